#!/usr/bin/env bash
# Timestamps that go backwards within a stream (a clock step, files appended out of order):
# the traceback between them keeps only its upper bound, the report says so in its reasons,
# and the failure is still found.
source "$(dirname "$0")/lib.sh" "$@"
mkdir -p "$logs"
cat >"$logs/job-8-0.err" <<'LOG'
[2025-03-01 12:00:00] iteration 10/100 | lm loss: 2.1
[2025-03-01 13:00:00] iteration 11/100 | lm loss: 2.0
Traceback (most recent call last):
  File "/ws/pretrain_gpt.py", line 12, in <module>
ModuleNotFoundError: No module named 'apex'
[2025-03-01 11:00:00] ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 42) of binary: python
[2025-03-01 10:00:00] iteration 1/100 | lm loss: 9.9
LOG
run
expect_rc 1
expect_root logs/job-8-0.err
expect_code timeline.time-went-backwards
expect_category import
get '/root_cause/reasons/*' | grep -q 'go backwards' || bad "the root cause's reasons do not mention the backwards stamps"
expect_valid_json
finish
