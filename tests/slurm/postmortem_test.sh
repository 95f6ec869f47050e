#!/usr/bin/env bash
# End-to-end test of `megatriage postmortem` on a real SLURM 22.05 (tools/local-slurm), with the
# three wirings exactly as README.md "Post-mortem on SLURM" shows them (only install paths are
# replaced): an afternotok job, a strigger --fini program and EpilogSlurmctld. Jobs run as an
# unprivileged user (mtuser, created if missing), in parallel: a Python exception (shape), a
# time limit (--time=1, started first, checked last), a scancel, a cgroup OOM (--mem; only when
# local-slurm runs with cgroup v1). Fails loudly when SLURM cannot start; stops it on exit.
# Usage: postmortem_test.sh MEGATRIAGE SOURCE_DIR     (as root)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
slurm_test_setup postmortem "$1" "$2"
MTUID=$(id -u mtuser)

# --- the README's snippets --------------------------------------------------------------------
localize() {
  sed -e "s#/usr/local/bin/megatriage#$MT#g" -e "s#/usr/local/sbin/megatriage-trigger#$HOOKS/trigger.sh#g" \
      -e "s#/var/log/megatriage#$ADMIN#g" -e "s#/etc/slurm/megatriage-epilog.sh#$HOOKS/epilog.sh#g"
}
for s in afternotok strigger-program strigger epilog; do
  [[ -n $(snippet $s) ]] || fail "README.md has no '$s' snippet"
done
# EpilogSlurmctld gets no SLURM_CONF; local-slurm's slurm.conf is not at the default path.
{ echo '#!/bin/sh'; echo "export SLURM_CONF=$STATE/etc/slurm.conf"; snippet epilog | localize | tail -n +2; } \
  > "$HOOKS/epilog.sh"
snippet strigger-program | localize > "$HOOKS/trigger.sh"
chmod 755 "$HOOKS"/*.sh

# --- SLURM ------------------------------------------------------------------------------------
start_slurm LOCAL_SLURM_EPILOG_SLURMCTLD="$HOOKS/epilog.sh"
CGROUP=$(. "$STATE/settings.env"; echo "$CGROUP")
note "SLURM up (cgroup: $CGROUP)"

# --- jobs, as mtuser --------------------------------------------------------------------------
cp "$SRC/tests/slurm/train.py" "$JOBS/train.py"
make_job() {  # make_job DIR MODE SBATCH-LINES...
  local dir=$JOBS/$1 mode=$2; shift 2
  mkdir -p "$dir/logs"
  {
    echo '#!/bin/bash'
    echo "#SBATCH --job-name=gpt-$mode"
    echo '#SBATCH --nodes=1'
    echo '#SBATCH --ntasks=1'
    printf '#SBATCH %s\n' "$@"
    echo '#SBATCH --output=logs/%x-%j.out'
    echo '#SBATCH --error=logs/%x-%j.err'
    echo 'echo "START TIME: $(date)"'
    echo "srun /usr/bin/python3 ../train.py $mode"
  } > "$dir/job.sbatch"
}
make_job timeout hang --time=1 --mem=400M
make_job fail shape --time=5 --mem=400M
make_job cancel wait --time=5 --mem=400M
make_job oom oom --time=5 --mem=150M
# The watcher's job: task 0 fails at iteration 3, task 1 waits (as peers blocked in a collective
# would), so the job keeps running until someone cancels it.
mkdir -p "$JOBS/watch/logs"
cat > "$JOBS/watch/job.sbatch" <<'SBATCH'
#!/bin/bash
#SBATCH --job-name=gpt-watch
#SBATCH --nodes=1
#SBATCH --ntasks=2
#SBATCH --time=5
#SBATCH --mem=800M
#SBATCH --output=logs/%x-%j.out
#SBATCH --error=logs/%x-%j.err
srun bash -c 'if [ "$SLURM_PROCID" = 0 ]; then exec /usr/bin/python3 ../train.py shape; else exec /usr/bin/python3 ../train.py wait; fi'
SBATCH
chown -R mtuser "$JOBS"
submit() { as_user "$JOBS/$1" "sbatch --parsable job.sbatch"; }

JT=$(submit timeout)
note "time-limit job $JT"
# (1) user wiring: the README snippet, verbatim, in the job's directory.
JF=$(as_user "$JOBS/fail" "$(snippet afternotok)"$'\necho "JOB_ID=$JOB_ID"' | sed -n 's/^JOB_ID=//p')
[[ $JF =~ ^[0-9]+$ ]] || fail "the afternotok snippet did not submit the job"
note "exception job $JF with an afternotok post-mortem job"
# (2) admin wiring: strigger --fini.
JOB_ID=$JF
eval "$(snippet strigger | localize)"
strigger --get --jobid="$JF" | grep -q "$JF" || fail "strigger did not register a trigger for $JF"
# A symlink beside the job's logs pointing at a root-only file: its content must not leak.
printf 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nRuntimeError: TOPSECRET-7f3a\n' \
  > "$BASE/secret.txt"
chmod 600 "$BASE/secret.txt"
as_user "$JOBS/fail" "ln -s '$BASE/secret.txt' logs/secret-$JF.err"
JC=$(submit cancel)
note "scancel job $JC"
JW=$(submit watch)
note "watched job $JW"
# README "Watching a running job": the snippet, run as the job's user, in the job's directory.
as_user "$JOBS/watch" "JOB_ID=$JW; $(snippet watch) > watch-report.txt 2> watch.err" &
WATCHER=$!
JO=""
if [[ $CGROUP == v1 ]]; then JO=$(submit oom); note "OOM job $JO"; else note "cgroup $CGROUP: no OOM case (no memory enforcement)"; fi

no_secret() { ! grep -rq TOPSECRET "$@" || fail "root-only content leaked into $*"; }

wait_for 60 "job $JC to print iteration 3" grep -q 'iteration        3/' "$JOBS/cancel/logs/gpt-wait-$JC.out"
as_user "$JOBS/cancel" "scancel $JC"

# --- exception job: all three wirings ----------------------------------------------------------
R=$JOBS/fail/logs/megatriage-$JF.json
wait_for 60 "EpilogSlurmctld's report of $JF" test -s "$ADMIN/$JF.txt"
wait_for 10 "the JSON report of $JF" test -s "$R"
expect "$R" 'd["root_cause"]["category"]' shape
expect "$R" 'd["slurm"]["state"]' FAILED
expect "$R" 'd["slurm"]["exit_code"]' 1:0
expect "$R" 'd["slurm"]["user"]' mtuser
[[ $(stat -c %U "$R") == mtuser ]] || fail "$R is not owned by the job's user"
grep -q "secret-$JF.err" "$R" || fail "the symlink beside the logs was not even tried"
grep -q 'FAILURE — SHAPE' "$ADMIN/$JF.txt" || fail "epilog text report: $(cat "$ADMIN/$JF.txt")"
grep -q '^SLURM' "$ADMIN/$JF.txt" || fail "no SLURM section in the text report"
note "exception job: EpilogSlurmctld ok"
wait_for 60 "the afternotok job's output" bash -c "grep -l 'FAILURE — SHAPE' '$JOBS'/fail/slurm-*.out"
note "exception job: afternotok ok"
wait_for 60 "the strigger program's report" grep -q 'FAILURE — SHAPE' "$ADMIN/trigger-$JF.txt"
note "exception job: strigger ok"
no_secret "$JOBS/fail" "$ADMIN"
# Same report again (no wall-clock in it), written as the user into another directory.
as_user "$JOBS/fail" "mkdir -p again && megatriage postmortem $JF --report-dir again --format json >/dev/null" \
  && fail "postmortem of a failed job exited 0" || [[ $? == 1 ]] || fail "postmortem exit code is not 1"
cmp "$R" "$JOBS/fail/again/megatriage-$JF.json" || fail "second run gave a different report"

# --- scancel -------------------------------------------------------------------------------------
R=$JOBS/cancel/logs/megatriage-$JC.json
wait_for 60 "the report of cancelled job $JC" test -s "$R"
expect "$R" 'd["slurm"]["state"]' CANCELLED
expect "$R" 'd["slurm"]["cancelled_by"]' "$MTUID"
expect "$R" 'd["root_cause"]["category"]' unknown
expect "$R" '"cancelled by mtuser" in d["root_cause"]["title"]' True
note "scancel ok"

# --- watch --cancel ------------------------------------------------------------------------------
# Time from the traceback's write (seen by a 50 ms poll here) to the report and to the job's end.
tb_at="" report_at="" end=$((SECONDS + 180))
while (( SECONDS < end )); do
  [[ -z $tb_at ]] && grep -q 'mat1 and mat2' "$JOBS/watch/logs/gpt-watch-$JW.err" 2>/dev/null && tb_at=$(date +%s.%N)
  [[ -n $tb_at && -z $report_at ]] && [[ -s $JOBS/watch/watch-report.txt ]] && report_at=$(date +%s.%N)
  [[ -n $report_at ]] && break
  sleep 0.05
done
[[ -n $report_at ]] || fail "the watcher did not report job $JW ($(cat "$JOBS/watch/watch.err" 2>/dev/null))"
rc=0; wait $WATCHER || rc=$?
[[ $rc == 1 ]] || fail "watch exit code $rc, want 1"
wait_for 60 "watched job $JW to end" bash -c "! squeue -h -j $JW | grep -q ."
end_at=$(date +%s.%N)
grep -q 'FAILURE — SHAPE' "$JOBS/watch/watch-report.txt" || fail "watch report: $(head -5 "$JOBS/watch/watch-report.txt")"
grep -q "cancelled job $JW" "$JOBS/watch/watch.err" || fail "the watcher did not cancel: $(cat "$JOBS/watch/watch.err")"
sacct -j "$JW" -X -n -P -o State | grep -q CANCELLED || fail "job $JW is not CANCELLED in sacct"
to_report=$(echo "$report_at - $tb_at" | bc); to_end=$(echo "$end_at - $tb_at" | bc)
note "watch: report $to_report s and job end $to_end s after the traceback was written"
(( $(echo "$to_report < 2.5" | bc) )) || fail "the watcher took $to_report s to report (want < 2 s + polling)"

# --- cgroup OOM ------------------------------------------------------------------------------
if [[ -n $JO ]]; then
  R=$JOBS/oom/logs/megatriage-$JO.json
  wait_for 60 "the report of OOM job $JO" test -s "$R"
  expect "$R" 'd["root_cause"]["category"]' oom
  expect "$R" 'd["slurm"]["out_of_memory"]' True
  note "OOM ok (state $(json_get "$R" 'd["slurm"]["state"]'))"
fi

# --- usage errors --------------------------------------------------------------------------------
rc=0; "$MT" postmortem 999999 2>"$BASE/err" || rc=$?
[[ $rc == 2 ]] && grep -q 'not found' "$BASE/err" || fail "unknown job: rc $rc, $(cat "$BASE/err")"
rc=0; "$MT" postmortem "$JF+0" 2>"$BASE/err" || rc=$?
[[ $rc == 2 ]] && grep -q heterogeneous "$BASE/err" || fail "het job: rc $rc, $(cat "$BASE/err")"

# --- accounting down: a failing sacct first on PATH, the real controller -------------------------
# sacct's own error is shown; while the controller still knows the job (MinJobAge) its
# `scontrol show job` gives the facts; a job it does not know is a usage error quoting sacct.
mkdir -p "$BASE/nosacct"
printf '#!/bin/sh\necho "sacct: error: Problem talking to the database: Connection refused" >&2\nexit 1\n' \
  > "$BASE/nosacct/sacct"
chmod 755 "$BASE/nosacct" "$BASE/nosacct/sacct"
rc=0
as_user "$JOBS/fail" "mkdir -p nosacct && PATH=$BASE/nosacct:\$PATH megatriage postmortem $JF --report-dir nosacct \
  --format json > nosacct/out.json 2> nosacct/err.txt" || rc=$?
[[ $rc == 1 ]] || fail "accounting down, $JF known to the controller: rc $rc, $(cat "$JOBS/fail/nosacct/err.txt")"
R=$JOBS/fail/nosacct/out.json
expect "$R" 'd["slurm"]["state"]' FAILED
expect "$R" 'd["slurm"]["user"]' mtuser
expect "$R" 'd["root_cause"]["category"]' shape
expect "$R" '[x["code"] for x in d["diagnostics"] if "Problem talking to the database" in x["message"]]' \
  "['postmortem.sacct-failed']"
rc=0; PATH="$BASE/nosacct:$PATH" "$MT" postmortem 999999 2>"$BASE/err" || rc=$?
[[ $rc == 2 ]] && grep -q 'sacct failed: sacct: error: Problem talking to the database' "$BASE/err" ||
  fail "accounting down, unknown job: rc $rc, $(cat "$BASE/err")"
note "accounting down ok"

# --- time limit (started first; killed at 60-73 s) ----------------------------------------------
R=$JOBS/timeout/logs/megatriage-$JT.json
wait_for 150 "the report of time-limit job $JT" test -s "$R"
expect "$R" 'd["slurm"]["state"]' TIMEOUT
expect "$R" 'd["slurm"]["time_limit_hit"]' True
expect "$R" 'd["root_cause"]["category"]' unknown
expect "$R" '"hung" in d["root_cause"]["explain"]' True
expect "$R" 'd["root_cause"]["facts"].get("last_iteration")' 3
note "time limit ok"
note "all SLURM post-mortem checks passed in $((SECONDS - T0))s"
