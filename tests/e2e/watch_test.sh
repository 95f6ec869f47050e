#!/usr/bin/env bash
# The watcher on growing files: a cause is reported within 2 s of its exception line being
# written; NCCL-only evidence waits its grace period; a file that appears late is picked up.
set -uo pipefail
megatriage=$1 json_get=$2   # json_get: tests/e2e/json_get.cc reads the report's fields
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
now() { date +%s.%N; }

# 1. OOM traceback appended to a running job's log, in a file that appears after the watcher started.
mkdir -p "$tmp/a/logs"
echo "[rank0]:[W1130 10:00:00.000000000 x.cpp:1] starting" >"$tmp/a/logs/job.err"
"$megatriage" watch --interval 0.2 --timeout 30 --format json "$tmp/a/logs" >"$tmp/a/report.json" 2>"$tmp/a/watch.err" &
watcher=$!
sleep 1
for i in 1 2 3; do echo "[rank0]:[W1130 10:00:0$i.000000000 x.cpp:1] step $i" >>"$tmp/a/logs/job.err"; sleep 0.3; done
{ echo "[rank1]: Traceback (most recent call last):"
  echo "[rank1]:   File \"/ws/train.py\", line 9, in step"
  echo -n "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free."
} >>"$tmp/a/logs/late.err"
sleep 0.5
echo "" >>"$tmp/a/logs/late.err"   # the exception line's newline arrives
written=$(now)
wait $watcher
rc=$?
reported=$(now)
delay=$(echo "$reported - $written" | bc)
echo "cause reported $delay s after its exception line was written"
[[ $rc -eq 1 ]] || { echo "FAIL watch exit $rc"; cat "$tmp/a/watch.err"; fail=1; }
[[ $("$json_get" "$tmp/a/report.json" /root_cause/category) == oom ]] ||
  { echo "FAIL the watch report's root cause is not the OOM"; cat "$tmp/a/report.json"; fail=1; }
[[ $("$json_get" "$tmp/a/report.json" /root_cause/file) == */logs/late.err ]] ||
  { echo "FAIL the late file was not picked up"; fail=1; }
(( $(echo "$delay < 2.0" | bc) )) || { echo "FAIL reported after $delay s (want < 2 s)"; fail=1; }

# 2. NCCL-only evidence waits for the grace period before it is reported.
mkdir -p "$tmp/b/logs"
echo "[rank0]:[E1130 10:10:06.000000000 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=13, OpType=ALLREDUCE, NumelIn=4, NumelOut=4, Timeout(ms)=30000) ran for 30038 milliseconds before timing out." >"$tmp/b/logs/job.err"
start=$(now)
"$megatriage" watch --interval 0.2 --nccl-grace 2 --timeout 30 "$tmp/b/logs" >"$tmp/b/report.txt" 2>"$tmp/b/watch.err"
rc=$?
took=$(echo "$(now) - $start" | bc)
[[ $rc -eq 1 ]] || { echo "FAIL NCCL watch exit $rc"; fail=1; }
(( $(echo "$took >= 2.0" | bc) )) || { echo "FAIL NCCL-only evidence reported after $took s, before its 2 s grace"; fail=1; }
grep -q "waiting up to 2 s" "$tmp/b/watch.err" || { echo "FAIL no grace notice"; cat "$tmp/b/watch.err"; fail=1; }

[[ $(grep -c . "$tmp/b/report.txt") -gt 0 ]] || { echo "FAIL no text report"; fail=1; }

# 3. --cancel without --job is a usage error.
"$megatriage" watch --cancel "$tmp/b/logs" >/dev/null 2>&1
[[ $? -eq 2 ]] || { echo "FAIL --cancel without --job"; fail=1; }
[[ $fail -eq 0 ]] && echo "watch: all checks passed"
exit $fail
