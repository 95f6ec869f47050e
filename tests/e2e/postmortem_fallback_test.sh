#!/usr/bin/env bash
# `megatriage postmortem` when accounting cannot answer (AccountingStorageType=none, slurmdbd
# down), against fake sacct and scontrol first on PATH: sacct's own error is shown; the job's
# facts come from `scontrol show job` while the controller knows it; else `--logs` alone is
# triaged (no `slurm` block, a diagnostic saying why); else it is a usage error.
# Usage: postmortem_fallback_test.sh MEGATRIAGE FIXTURES JSON_GET
set -uo pipefail
megatriage=$1 fixtures=$2 json_get=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
mkdir -p "$tmp/bin" "$tmp/job/logs"
cp "$fixtures/slurm-a1-exception-peer-reset/logs/"* "$tmp/job/logs/"
cat >"$tmp/bin/sacct" <<'SH'
#!/bin/sh
echo "sacct: error: Slurm accounting storage is disabled" >&2
exit 1
SH
# scontrol: the text of $FAKE_SCONTROL when set, else a job the controller does not know.
cat >"$tmp/bin/scontrol" <<'SH'
#!/bin/sh
[ -n "$FAKE_SCONTROL" ] && { cat "$FAKE_SCONTROL"; exit 0; }
echo "slurm_load_jobs error: Invalid job id specified" >&2
exit 1
SH
chmod +x "$tmp/bin/"*
# As in EpilogSlurmctld: the environment names the job's owner (this user, so that a root run
# reads the logs as itself).
export PATH="$tmp/bin:$PATH" SLURM_JOB_ID=4242 SLURM_SCRIPT_CONTEXT=epilog_slurmctld SLURM_JOB_UID=$(id -u)
export MEGATRIAGE_CACHE_DIR=off
run() {  # run NAME ARGS...: postmortem 4242 ARGS, JSON on $tmp/NAME.json; sets rc
  local name=$1; shift
  rc=0
  timeout 60 "$megatriage" postmortem 4242 --format json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" || rc=$?
}
get() { "$json_get" "$tmp/$1.json" "$2"; }

# 1. Nobody knows the job, no --logs: a usage error that quotes sacct and says what to do.
run alone
[[ $rc -eq 2 ]] || bad "no facts, no --logs: exit $rc, want 2"
grep -q "sacct failed: sacct: error: Slurm accounting storage is disabled" "$tmp/alone.err" ||
  { bad "sacct's own error is not shown"; cat "$tmp/alone.err"; }
grep -q -- "--logs DIR" "$tmp/alone.err" || bad "the usage error does not point at --logs"
grep -q "not found" "$tmp/alone.err" && bad "still says 'not found' though sacct failed"

# 2. With --logs: the logs alone, no slurm block, a diagnostic saying why.
run logs --logs "$tmp/job/logs"
[[ $rc -eq 1 ]] || { bad "--logs alone: exit $rc, want 1"; cat "$tmp/logs.err"; }
get logs /slurm >/dev/null && bad "a slurm block without SLURM's facts"
[[ $(get logs /root_cause/file) == */gpt-tiny-25.err ]] || bad "--logs alone: the logs' root cause is missing"
get logs '/diagnostics/[code=postmortem.no-slurm-facts]/message' | grep -q "accounting storage is disabled" ||
  bad "no postmortem.no-slurm-facts diagnostic quoting sacct"
[[ -f $tmp/job/logs/megatriage-4242.json ]] || bad "the report was not written beside the logs"

# 3. The controller still knows the job: scontrol's facts (a time limit) decide, with a warning.
cat >"$tmp/scontrol.txt" <<EOF2
JobId=4242 JobName=gpt-tiny
   UserId=tester($(id -u)) GroupId=tester($(id -g)) MCS_label=N/A
   JobState=TIMEOUT Reason=TimeLimit Dependency=(null)
   RunTime=00:10:01 TimeLimit=00:10:00 TimeMin=N/A
   NodeList=node[1-2]
   WorkDir=$tmp/job
   StdErr=$tmp/job/logs/gpt-tiny-25.err
   StdOut=$tmp/job/logs/gpt-tiny-25.out
   ExitCode=0:15
EOF2
FAKE_SCONTROL=$tmp/scontrol.txt run facts
[[ $rc -eq 1 ]] || { bad "scontrol's facts: exit $rc, want 1"; cat "$tmp/facts.err"; }
[[ $(get facts /slurm/state) == TIMEOUT ]] || bad "the slurm block does not carry scontrol's state"
[[ $(get facts /slurm/time_limit) == 00:10:00 ]] || bad "the slurm block lacks scontrol's TimeLimit"
get facts '/diagnostics/[code=postmortem.sacct-failed]/message' | grep -q "accounting storage is disabled" ||
  bad "no postmortem.sacct-failed diagnostic quoting sacct"

# 3b. --format html: the page on stdout, its embedded JSON report with SLURM's facts; the JSON
# report still goes beside the logs.
rm -f "$tmp/job/logs/megatriage-4242.json"
rc=0
FAKE_SCONTROL=$tmp/scontrol.txt timeout 60 "$megatriage" postmortem 4242 --format html >"$tmp/page.html" 2>"$tmp/page.err" || rc=$?
[[ $rc -eq 1 ]] || { bad "--format html: exit $rc, want 1"; cat "$tmp/page.err"; }
python3 - "$tmp/page.html" "$tmp/html.json" <<'PY' || bad "--format html: no embedded JSON report"
import sys
page = open(sys.argv[1], encoding="utf-8").read()
start = page.index('<script type="application/json" id="megatriage-report">') + 55
open(sys.argv[2], "w", encoding="utf-8").write(page[start:page.index("</script>", start)])
PY
[[ $(get html /slurm/state) == TIMEOUT ]] || bad "--format html: the embedded report lacks the slurm block"
[[ -f $tmp/job/logs/megatriage-4242.json ]] || bad "--format html: the JSON report was not written beside the logs"

# 4. No rules loaded: the same usage error as every command, never a report.
MEGATRIAGE_RULES_DIR=$tmp/no-such-rules run norules --logs "$tmp/job/logs"
[[ $rc -eq 2 ]] || bad "no rules: exit $rc, want 2"
grep -q "no rules loaded ($tmp/no-such-rules: " "$tmp/norules.err" || { bad "no rules: message"; cat "$tmp/norules.err"; }
[[ -s $tmp/norules.json ]] && bad "no rules: a report was written to stdout"

[[ $fail -eq 0 ]] && echo "postmortem fallback: all checks passed"
exit $fail
