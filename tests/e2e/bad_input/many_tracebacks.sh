#!/usr/bin/env bash
# 50,000 tracebacks (watchdog symptoms on every rank) in one file: finishes, groups them as one
# symptom with the count, and the real failure stays the root.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
msg='torch.distributed.DistBackendError: NCCL communicator was aborted on rank 3. Original reason for failure was: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=512, OpType=ALLREDUCE, NumelIn=4194304, NumelOut=4194304, Timeout(ms)=600000) ran for 600091 milliseconds before timing out.'
awk -v msg="$msg" 'BEGIN { for (i = 0; i < 50000; i++) {
  printf "[rank%d]: Traceback (most recent call last):\n", i % 64
  printf "[rank%d]:   File \"/ws/train.py\", line %d, in step\n", i % 64, i
  printf "[rank%d]: %s\n", i % 64, msg } }' >"$logs/zz-watchdogs.err"
start=$(date +%s)
run
echo "  (50,000 tracebacks: $(( $(date +%s) - start )) s)"
expect_rc 1
expect_root
get '/symptoms/*/count' | grep -qx 50000 || bad "the 50,000 symptoms are not counted"
expect_valid_json
finish
