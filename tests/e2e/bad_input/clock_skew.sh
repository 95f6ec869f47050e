#!/usr/bin/env bash
# Clock skew of hours between hosts: node02's clock runs 3 h ahead. Its stamped OOM happened
# first in real time but reads 15:00; node01's watchdog symptom reads 12:10. A cause beats
# symptoms whatever the clocks say, so the OOM on node02 is the root.
source "$(dirname "$0")/lib.sh" "$@"
mkdir -p "$logs"
cat >"$logs/job-7-0.err" <<'LOG'
[2025-03-01 12:00:00] iteration 10/100 | lm loss: 2.1
[2025-03-01 12:10:00] [rank0]:[E301 12:10:00.000000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=10, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600050 milliseconds before timing out.
LOG
cat >"$logs/job-7-1.err" <<'LOG'
[2025-03-01 15:00:00] iteration 10/100 | lm loss: 2.1
Traceback (most recent call last):
  File "/ws/pretrain_gpt.py", line 12, in <module>
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free.
[2025-03-01 15:00:01] ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 42) of binary: python
LOG
run
expect_rc 1
expect_root logs/job-7-1.err
expect_code timeline.clock-skew
grep -q '"category": "oom"' "$tmp/r.json" || bad "root is not the OOM"
expect_valid_json
finish
