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
expect_category oom
expect_valid_json

# A file whose own clock stepped back (last stamp before its first) still overlaps its peer:
# no skew. Its span is [05:00, 10:00], not the inverted [10:00, 05:00] (review finding).
rm -rf "$logs"; mkdir -p "$logs"
printf '2024-05-01 10:00:00 worker start\n2024-05-01 05:00:00 worker again\n' >"$logs/a.log"
printf '2024-05-01 00:00:00 b start\n2024-05-01 12:00:00 b end\n' >"$logs/b.log"
run
has '/diagnostics/[code=timeline.clock-skew]' && bad "clock skew reported for overlapping files"
# ...and one 4 h before its span ([05:00, 10:00] vs [00:00, 01:00]) is reported as 4.0 h away.
printf '2024-05-01 00:00:00 b start\n2024-05-01 01:00:00 b end\n' >"$logs/b.log"
run
get '/diagnostics/[code=timeline.clock-skew]/message' | grep -q 'at least 4.0 h away' || bad "skew of a file with a backwards clock: want 4.0 h"
finish
