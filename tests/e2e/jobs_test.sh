#!/usr/bin/env bash
# Several jobs in one logs/ (--job, --all-jobs), megatriage's own reports read back as logs, and
# `-` for standard input. The multi-job trees are copies of the real SLURM fixtures made here.
set -uo pipefail
megatriage=$1 fixtures=$2 json_get=$3   # json_get: tests/e2e/json_get.cc reads report fields
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
# run WANT_RC OUT CMD...: runs CMD with stdout to OUT, stderr to $tmp/err, and checks the exit code.
run() {
  local want=$1 out=$2; shift 2
  "$@" >"$out" 2>"$tmp/err"
  local rc=$?
  [[ $rc -eq $want ]] || { bad "exit $rc, want $want: $*"; cat "$tmp/err"; }
}
get() { "$json_get" "$@" 2>/dev/null; }
single() {  # single FIXTURE PATH: a field of the fixture's own report, run from its folder
  (cd "$fixtures/$1" && "$megatriage" --format json logs >"$tmp/single.json"); get "$tmp/single.json" "$2"
}

# ---- several jobs in one logs/ (the runbook's --output=logs/%x-%j.out) ----
# Jobs 15 (cgroup OOM), 16 (import), 19 (time limit), 20 (success), 25 (exception).
mkdir -p "$tmp/five/logs"
for c in slurm-a1-exception-peer-reset slurm-b3-cgroup-oom-kill slurm-c-import-missing \
         slurm-e-time-limit-hang slurm-g-success; do
  cp "$fixtures/$c/logs/"* "$tmp/five/logs/"
done
cd "$tmp/five" || exit 1
run 1 "$tmp/r.json" "$megatriage" --format json logs
[[ $(get "$tmp/r.json" /job/id) == 25 ]] || bad "default is not the newest job (25)"
[[ $(get "$tmp/r.json" /job/pick) == newest ]] || bad "default pick is not 'newest'"
[[ $(get "$tmp/r.json" /job/jobs | tr -d '\n') == '["25","20","19","16","15"]' ]] ||
  bad "jobs are not listed newest first: $(get "$tmp/r.json" /job/jobs)"
[[ $(get "$tmp/r.json" /files/*/path | sort | tr '\n' ' ') == "logs/gpt-tiny-25.err logs/gpt-tiny-25.out " ]] ||
  bad "job 25's report reads other jobs' files: $(get "$tmp/r.json" /files/*/path)"
[[ $(get "$tmp/r.json" /root_cause/rule) == "$(single slurm-a1-exception-peer-reset /root_cause/rule)" ]] ||
  bad "job 25's root cause differs from its own fixture's"
[[ $(get "$tmp/r.json" /symptoms/*/rule) == "$(single slurm-a1-exception-peer-reset /symptoms/*/rule)" ]] ||
  bad "other jobs' failures became job 25's symptoms"
get "$tmp/r.json" '/diagnostics/[code=discover.several-jobs]/message' | grep -q "holds 5 jobs; this is job 25, the newest; others: 20 19 16 15" ||
  bad "no several-jobs diagnostic naming the others"
# The text report says it under the verdict and headline, where it cannot be missed.
run 1 "$tmp/r.txt" "$megatriage" logs
sed -n 3p "$tmp/r.txt" | grep -q "holds 5 jobs; this is job 25, the newest" ||
  bad "text report does not say under its headline that the logs hold several jobs"

# --job ID: that job's files only, its own answer.
run 1 "$tmp/r15.json" "$megatriage" --format json --job 15 logs
[[ $(get "$tmp/r15.json" /job/id) == 15 && $(get "$tmp/r15.json" /job/pick) == asked ]] || bad "--job 15 is not job 15"
[[ $(get "$tmp/r15.json" /root_cause/rule) == "$(single slurm-b3-cgroup-oom-kill /root_cause/rule)" ]] ||
  bad "--job 15 gives another root cause than job 15's own logs"
run 0 "$tmp/r20.json" "$megatriage" --format json --job 20 logs
[[ $(get "$tmp/r20.json" /verdict) == no_failure ]] || bad "--job 20 (a success) is not 'no failure'"
# An unknown id: usage error listing the ids.
run 2 "$tmp/out" "$megatriage" --job 99 logs
grep -q "job 99 is not in the logs; they hold job(s) 25 20 19 16 15" "$tmp/err" || { bad "unknown --job message"; cat "$tmp/err"; }
run 2 "$tmp/out" "$megatriage" --job 25 --all-jobs logs

# --all-jobs: one report per job, newest first, in one envelope; exit 1 when any failed.
run 1 "$tmp/all.json" "$megatriage" --format json --all-jobs logs
[[ $(get "$tmp/all.json" /schema_version) == 2 ]] || bad "--all-jobs envelope has no schema_version"
[[ $(get "$tmp/all.json" /jobs/*/job/id | tr '\n' ' ') == "25 20 19 16 15 " ]] || bad "--all-jobs order: $(get "$tmp/all.json" /jobs/*/job/id)"
[[ $(get "$tmp/all.json" /jobs/4/root_cause/rule) == "$(single slurm-b3-cgroup-oom-kill /root_cause/rule)" ]] ||
  bad "--all-jobs: job 15's report differs from its own"
[[ $(get "$tmp/all.json" /jobs/1/verdict) == no_failure ]] || bad "--all-jobs: job 20 is not 'no failure'"
run 1 "$tmp/all.txt" "$megatriage" --all-jobs logs
[[ $(head -1 "$tmp/all.txt") == "megatriage: 5 job(s) in the logs, newest first: 25 20 19 16 15" ]] ||
  bad "--all-jobs text header: $(head -1 "$tmp/all.txt")"
[[ $(grep -c '^== job ' "$tmp/all.txt") -eq 5 ]] || bad "--all-jobs text does not have one header per job"
# Only the success: --all-jobs exits 0.
run 0 "$tmp/out" "$megatriage" --all-jobs logs/gpt-tiny-20.err logs/gpt-tiny-20.out

# watch --job follows the whole folder but reports on its job's files only.
run 1 "$tmp/w.json" timeout 60 "$megatriage" watch --job 16 --format json --interval 0.1 --timeout 20 logs
[[ $(get "$tmp/w.json" /job/id) == 16 ]] || bad "watch --job 16 did not report on job 16"
[[ $(get "$tmp/w.json" /root_cause/rule) == "$(single slurm-c-import-missing /root_cause/rule)" ]] ||
  bad "watch --job 16 gives another root cause than job 16's own logs"

# A file that names no job is read with every job, and the report says how many.
cp "$fixtures/slurm-g-success/logs/gpt-tiny-20.out" logs/launcher.out
run 1 "$tmp/r.json" "$megatriage" --format json logs
[[ $(get "$tmp/r.json" /job/files_without_job) == 1 ]] || bad "files_without_job is not 1"
get "$tmp/r.json" /files/*/path | grep -qx logs/launcher.out || bad "a file with no job id was left out"
get "$tmp/r.json" '/diagnostics/[code=discover.files-without-job]/message' | grep -q "^1 file(s) name no job" ||
  bad "no diagnostic about the file that names no job"
rm logs/launcher.out

# One job only: nothing changes (no job block, no diagnostic), with or without --job.
cd "$fixtures/slurm-a1-exception-peer-reset" || exit 1
run 1 "$tmp/one.json" "$megatriage" --format json logs
run 1 "$tmp/one-asked.json" "$megatriage" --format json --job 25 logs
cmp -s "$tmp/one.json" "$tmp/one-asked.json" || bad "--job on a one-job folder changed the report"
get "$tmp/one.json" /job >/dev/null && bad "a one-job folder got a job block"
cd "$tmp" || exit 1

# Array tasks (%A_%a) are jobs of their own; a task of a %j-%t name is not.
mkdir -p "$tmp/array/logs"
cp "$fixtures/slurm-c-import-missing/logs/gpt-tiny-16.err" "$tmp/array/logs/slurm-30_1.out"
cp "$fixtures/slurm-b3-cgroup-oom-kill/logs/gpt-tiny-15.err" "$tmp/array/logs/slurm-30_2.out"
run 1 "$tmp/r.json" "$megatriage" --format json "$tmp/array/logs"
[[ $(get "$tmp/r.json" /job/id) == 30_2 && $(get "$tmp/r.json" /job/jobs | tr -d '\n') == '["30_2","30_1"]' ]] ||
  bad "array tasks: $(get "$tmp/r.json" /job)"
# Per-rank files numbered from 0 are one job, not four.
mkdir -p "$tmp/ranks/logs"
for r in 0 1 2 3; do cp "$fixtures/slurm-g-success/logs/gpt-tiny-20.out" "$tmp/ranks/logs/train-$r.log"; done
run 0 "$tmp/r.json" "$megatriage" --format json "$tmp/ranks/logs"
get "$tmp/r.json" /job >/dev/null && bad "train-0..3.log were taken for four jobs"

# ---- megatriage's own reports in the log folder are not read back ----
mkdir -p "$tmp/own/logs"
cp "$fixtures/slurm-a1-exception-peer-reset/logs/"* "$tmp/own/logs/"
cd "$tmp/own" || exit 1
run 1 "$tmp/first.json" "$megatriage" --format json logs
# As postmortem leaves it (megatriage-<jobid>.json), a saved text report, a coloured one under a
# name that says nothing, and an --all-jobs report.
cp "$tmp/first.json" logs/megatriage-25.json
"$megatriage" logs/gpt-tiny-25.err logs/gpt-tiny-25.out >logs/report-25.txt
"$megatriage" --color always logs/gpt-tiny-25.err >logs/notes.out
"$megatriage" --all-jobs --format json logs/gpt-tiny-25.err >logs/everything.log
run 1 "$tmp/again.json" "$megatriage" --format json logs
for f in megatriage-25.json report-25.txt notes.out everything.log; do
  [[ $(get "$tmp/again.json" "/files/[path=logs/$f]/skipped") == true ]] || bad "own report $f was read as a log"
  get "$tmp/again.json" "/diagnostics/[path=logs/$f]/code" | grep -qx read.own-report || bad "no read.own-report for $f"
done
[[ $(get "$tmp/again.json" /root_cause/rule) == "$(get "$tmp/first.json" /root_cause/rule)" &&
   $(get "$tmp/again.json" /symptoms/*/rule) == "$(get "$tmp/first.json" /symptoms/*/rule)" ]] ||
  bad "own reports in logs/ changed the report"
# report-25.txt names job 25 but is no job's output: still one job.
get "$tmp/again.json" /job >/dev/null && bad "an own report's name made a second job"
cd "$tmp" || exit 1

# ---- `-` reads standard input, plain or compressed ----
cd "$fixtures/slurm-a1-exception-peer-reset" || exit 1
run 1 "$tmp/file.json" "$megatriage" --format json logs/gpt-tiny-25.err
for squeeze in cat "gzip -c" "zstd -c -q" "xz -c"; do
  command -v "${squeeze%% *}" >/dev/null || continue
  $squeeze logs/gpt-tiny-25.err | "$megatriage" --format json - >"$tmp/stdin.json" 2>"$tmp/err"
  rc=$?
  [[ $rc -eq 1 ]] || { bad "$squeeze | megatriage -: exit $rc, want 1"; cat "$tmp/err"; }
  [[ $(get "$tmp/stdin.json" /root_cause/file) == "<stdin>" && $(get "$tmp/stdin.json" /files/0/path) == "<stdin>" ]] ||
    bad "$squeeze | megatriage -: not named <stdin>"
  [[ $(get "$tmp/stdin.json" /root_cause/rule) == "$(get "$tmp/file.json" /root_cause/rule)" &&
     $(get "$tmp/stdin.json" /root_cause/line) == "$(get "$tmp/file.json" /root_cause/line)" ]] ||
    bad "$squeeze | megatriage -: another root cause than the file's"
done
[[ $(gzip -c logs/gpt-tiny-25.err | "$megatriage" --format json - | "$json_get" /dev/stdin /files/0/compression) == gzip ]] ||
  bad "compressed standard input not reported as gzip"
# Standard input beside files, and given twice (read once).
run 1 "$tmp/mixed.json" "$megatriage" --format json - logs/gpt-tiny-25.out - <logs/gpt-tiny-25.err
[[ $(get "$tmp/mixed.json" /files/*/path | tr '\n' ' ') == "<stdin> logs/gpt-tiny-25.out " ]] ||
  bad "- beside a file: $(get "$tmp/mixed.json" /files/*/path)"
cd "$tmp" || exit 1

exit $fail
