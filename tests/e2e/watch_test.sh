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

# 4. Exit codes CI can tell apart (README "Exit codes"): a path that does not exist is a usage
# error at once (2); --timeout with no cause is 4, not 0 "no failure".
start=$(now)
timeout 20 "$megatriage" watch --interval 0.1 "$tmp/nope" >/dev/null 2>"$tmp/nope.err"
rc=$?
[[ $rc -eq 2 ]] || { echo "FAIL watch on a missing path: exit $rc, want 2"; fail=1; }
grep -q "nope" "$tmp/nope.err" || { echo "FAIL the usage error does not name the path"; cat "$tmp/nope.err"; fail=1; }
mkdir -p "$tmp/c/logs"
echo "[rank0]:[W1130 10:00:00.000000000 x.cpp:1] step 1" >"$tmp/c/logs/job.err"
"$megatriage" watch --interval 0.1 --timeout 1 --format json "$tmp/c/logs" >"$tmp/c/report.json" 2>"$tmp/c/watch.err"
rc=$?
[[ $rc -eq 4 ]] || { echo "FAIL watch --timeout with no cause: exit $rc, want 4"; cat "$tmp/c/watch.err"; fail=1; }
[[ $("$json_get" "$tmp/c/report.json" /verdict) == no_failure ]] ||
  { echo "FAIL no report of what was seen before the timeout"; fail=1; }

# 5. --job against a fake squeue (first on PATH) answering from FAKE_SQUEUE_PLAN, one word a
# call (the last repeats): fail (the controller unreachable), running, ended.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/squeue" <<'SH'
#!/usr/bin/env bash
n=$(cat "$FAKE_SQUEUE_COUNT" 2>/dev/null || echo 0)
echo $((n + 1)) >"$FAKE_SQUEUE_COUNT"
read -ra plan <<<"$FAKE_SQUEUE_PLAN"
(( n < ${#plan[@]} )) || n=$(( ${#plan[@]} - 1 ))
case ${plan[$n]} in
  fail) echo "squeue: error: Unable to contact slurm controller (connect failure)" >&2; exit 1 ;;
  running) echo RUNNING ;;
  ended) ;;
esac
SH
chmod +x "$tmp/bin/squeue"
fake_watch() {  # fake_watch NAME PLAN ARGS...: runs watch --job 77 with that plan; sets rc
  local name=$1 plan=$2; shift 2
  rc=0
  PATH="$tmp/bin:$PATH" FAKE_SQUEUE_PLAN=$plan FAKE_SQUEUE_COUNT="$tmp/$name.count" timeout 60 \
    "$megatriage" watch --job 77 --interval 0.1 --format json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" || rc=$?
}
# 5a. One failed squeue is retried (with a diagnostic), not read as "the job ended": the failure
# written a second later is still caught.
mkdir -p "$tmp/d/logs"
echo "[rank0]:[W1130 10:00:00.000000000 x.cpp:1] step 1" >"$tmp/d/logs/job.err"
( sleep 1.5
  { echo "[rank1]: Traceback (most recent call last):"
    echo "[rank1]:   File \"/ws/train.py\", line 9, in step"
    echo "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.02 GiB is free."
  } >>"$tmp/d/logs/job.err" ) &
fake_watch d "fail running" "$tmp/d/logs"
[[ $rc -eq 1 ]] || { echo "FAIL one failed squeue: exit $rc, want 1 (the cause written later)"; cat "$tmp/d.err"; fail=1; }
grep -q "Unable to contact slurm controller.*asking squeue again in 0.1 s (retry 1 of 6)" "$tmp/d.err" ||
  { echo "FAIL no retry diagnostic with squeue's own error"; cat "$tmp/d.err"; fail=1; }
wait
# 5b. squeue failing on every retry: exit 5, after the backoff (0.1 + 0.2 + ... + 3.2 s).
start=$(now)
fake_watch e "fail" "$tmp/d/logs/job.err" --nccl-grace 0
took=$(echo "$(now) - $start" | bc)
[[ $rc -eq 1 ]] || { echo "FAIL squeue down, cause in the logs: exit $rc, want 1"; fail=1; }
echo "[rank0]:[W1130 10:00:00.000000000 x.cpp:1] step 1" >"$tmp/c/logs/job.err"
start=$(now)
fake_watch e "fail" "$tmp/c/logs"
took=$(echo "$(now) - $start" | bc)
[[ $rc -eq 5 ]] || { echo "FAIL squeue always failing: exit $rc, want 5"; cat "$tmp/e.err"; fail=1; }
(( $(echo "$took >= 6.0" | bc) )) || { echo "FAIL gave up after $took s, before the backoff's 6.3 s"; fail=1; }
grep -q "squeue failed 7 times in a row" "$tmp/e.err" || { echo "FAIL no give-up diagnostic"; cat "$tmp/e.err"; fail=1; }
# 5c. The job ended, its logs show no failure: 0. It ended having written nothing readable
# (the named file never appeared, or stayed empty): 2.
fake_watch f "running ended" "$tmp/c/logs"
[[ $rc -eq 0 ]] || { echo "FAIL job ended, no failure: exit $rc, want 0"; cat "$tmp/f.err"; fail=1; }
mkdir -p "$tmp/g/logs"
fake_watch g "running running ended" "$tmp/g/logs/job-77.err"
[[ $rc -eq 2 ]] || { echo "FAIL job ended, its log never written: exit $rc, want 2"; cat "$tmp/g.err"; fail=1; }
grep -q "does not exist yet; waiting for job 77" "$tmp/g.err" || { echo "FAIL no notice of the awaited file"; fail=1; }
: >"$tmp/g/logs/job-77.err"
fake_watch h "ended" "$tmp/g/logs"
[[ $rc -eq 2 ]] || { echo "FAIL job ended, its log empty: exit $rc, want 2"; cat "$tmp/h.err"; fail=1; }

[[ $fail -eq 0 ]] && echo "watch: all checks passed"
exit $fail
