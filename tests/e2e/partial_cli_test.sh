#!/usr/bin/env bash
# `partial` and `merge` at their edges: exit codes, the report written on a usage error and on
# --timeout, the output folder made, no temporary file left, reports of another version or job
# refused with a clear message, a missing node and a node's problem named, a damaged report.
#   partial_cli_test.sh MEGATRIAGE FIXTURES JSON_GET
set -uo pipefail
megatriage=$1 fixtures=$2 json_get=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_CLUSTER_NAME SLURMD_NODENAME SLURM_JOB_UID
fail=0
expect_rc() {  # expect_rc WANT DESCRIPTION CMD...
  local want=$1 what=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL $what: exit $rc, want $want"; cat "$tmp/err"; fail=1; fi
}
logs=$fixtures/slurm-a1-exception-peer-reset/logs
codes() { python3 -c 'import json,sys; print(" ".join(d["code"] for d in json.load(open(sys.argv[1]))["diagnostics"]))' "$1"; }

expect_rc 0 "partial into a folder that does not exist yet" \
  env SLURM_JOB_ID=77 SLURM_JOB_NODELIST='n[1-3]' "$megatriage" partial --host n1 -o "$tmp/spool/77/n1.json" "$logs"
[[ $("$json_get" "$tmp/spool/77/n1.json" /format) == megatriage-partial ]] || { echo "FAIL no partial report written"; fail=1; }
ls "$tmp/spool/77" | grep -q tmp && { echo "FAIL a temporary file was left: $(ls "$tmp/spool/77")"; fail=1; }
expect_rc 2 "partial of a path that does not exist (a report is still written)" \
  env SLURM_JOB_ID=77 "$megatriage" partial --host n2 -o "$tmp/spool/77/n2.json" "$tmp/nope"
grep -q nope "$tmp/err" || { echo "FAIL the usage error does not name the path"; fail=1; }
expect_rc 1 "merge: a failure found" "$megatriage" merge --format json -o "$tmp/m.json" "$tmp/spool/77"
[[ " $(codes "$tmp/m.json") " == *" merge.node-problem "* && " $(codes "$tmp/m.json") " == *" merge.missing-node "* ]] ||
  { echo "FAIL merge names neither n3 missing nor n2's problem: $(codes "$tmp/m.json")"; fail=1; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
m=[x["message"] for x in d["diagnostics"] if x["code"]=="merge.missing-node"]
sys.exit(0 if m == ["no partial report from node n3: the logs only they could read are not in this report"] else 1)' "$tmp/m.json" ||
  { echo "FAIL the missing node is not n3 alone"; fail=1; }
expect_rc 1 "merge --nodes adds a node" "$megatriage" merge --format json -o "$tmp/m2.json" --nodes n9 "$tmp/spool/77/n1.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
m=[x["message"] for x in d["diagnostics"] if x["code"]=="merge.missing-node"]
sys.exit(0 if len(m)==1 and m[0].startswith("no partial report from 3 nodes: n2, n3, n9:") else 1)' "$tmp/m2.json" ||
  { echo "FAIL --nodes n9: the missing nodes are not n2, n3, n9"; fail=1; }

# Refusals: exit 2, one clear line.
env SLURM_JOB_ID=78 "$megatriage" partial --host n1 -o "$tmp/other/n1.json" "$logs"
cp "$tmp/spool/77/n1.json" "$tmp/other/n0.json"
expect_rc 2 "merge of two jobs" "$megatriage" merge "$tmp/other"
grep -q "different jobs" "$tmp/err" && grep -q "job 77" "$tmp/err" && grep -q "job 78" "$tmp/err" ||
  { echo "FAIL two jobs: $(cat "$tmp/err")"; fail=1; }
sed 's/"version":2,/"version":3,/' "$tmp/spool/77/n1.json" >"$tmp/v3.json"
expect_rc 2 "merge of an unknown version" "$megatriage" merge "$tmp/v3.json"
grep -q "version 3" "$tmp/err" || { echo "FAIL unknown version: $(cat "$tmp/err")"; fail=1; }
head -c 300 "$tmp/spool/77/n1.json" >"$tmp/cut.json"
expect_rc 2 "merge of a damaged report" "$megatriage" merge "$tmp/cut.json"
expect_rc 2 "merge of a report of the main command" "$megatriage" merge "$tmp/m.json"
grep -q "not a megatriage partial report" "$tmp/err" || { echo "FAIL own JSON report: $(cat "$tmp/err")"; fail=1; }
expect_rc 2 "merge of nothing" "$megatriage" merge "$tmp/nope"

# --timeout: standard input that never ends; the report says so, exit 4, within a few seconds.
start=$SECONDS
rc=0
"$megatriage" partial --host n5 --timeout 1 -o "$tmp/slow/n5.json" - < <(sleep 20) >/dev/null 2>"$tmp/err" || rc=$?
echo "$rc" >"$tmp/rc"
[[ $(cat "$tmp/rc") == 4 ]] || { echo "FAIL --timeout exit $(cat "$tmp/rc"), want 4"; fail=1; }
(( SECONDS - start < 15 )) || { echo "FAIL --timeout 1 took $((SECONDS - start)) s"; fail=1; }
[[ $("$json_get" "$tmp/slow/n5.json" /problem) == *"within 1 s"* ]] || { echo "FAIL the timed-out report does not say so"; fail=1; }
exit $fail
