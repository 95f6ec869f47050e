#!/usr/bin/env bash
# `megatriage partial` / `merge` on a real SLURM 22.05 (tools/local-slurm), with README.md's
# snippets (partial-job, partial-node-epilog, partial-ctld-epilog; only install and spool paths
# replaced). A 2-node job (one task per node, as mtuser) writes each rank's log into a folder of
# its node's own, $BASE/nodes/<node>/ (standing for a node-local /tmp: the job's paths name the
# node, so neither node's partial report reads the other's); rank 1, on node2, fails. Checks:
# the merged report names rank 1 on node2, equals the one-scan report of both folders once the
# `nodeN:` prefixes are taken off, is the same from the in-job and the Epilog partial reports,
# the EpilogSlurmctld post-mortem merges them, and a missing node's report is named.
# Usage: partial_test.sh MEGATRIAGE SOURCE_DIR     (as root)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
slurm_test_setup partial "$1" "$2"
mkdir -p "$JOBS/multi/logs" "$BASE/nodes" "$BASE/spool"
chmod 1777 "$BASE/nodes" "$BASE/spool"

# Install paths, the shared spool, and the node-local folder (one per node here).
localize() {
  sed -e "s#/usr/local/bin/megatriage#$MT#g" -e "s#/shared/megatriage#$BASE/spool#g" \
      -e "s#/var/log/megatriage#$ADMIN#g" -e "s#/tmp/torchrun-#$BASE/nodes/\$(hostname)/torchrun-#g"
}
for s in partial-job partial-node-epilog partial-ctld-epilog; do
  [[ -n $(snippet $s) ]] || fail "README.md has no '$s' snippet"
done
snippet partial-node-epilog | localize > "$HOOKS/node-epilog.sh"
# EpilogSlurmctld gets no SLURM_CONF; local-slurm's slurm.conf is not at the default path.
{ echo '#!/bin/sh'; echo "export SLURM_CONF=$STATE/etc/slurm.conf"; snippet partial-ctld-epilog | localize | tail -n +2; } \
  > "$HOOKS/ctld-epilog.sh"
chmod 755 "$HOOKS"/*.sh

start_slurm LOCAL_SLURM_EPILOG="$HOOKS/node-epilog.sh" LOCAL_SLURM_EPILOG_SLURMCTLD="$HOOKS/ctld-epilog.sh" \
  LOCAL_SLURM_JOB_PKGS=""
note "SLURM up"

# Each rank: an NCCL line naming its host, three iterations, then rank 1 fails (a shape error
# in PyTorch's `[rankN]:` prefix) and srun kills rank 0. torchrun's --log-dir layout.
cat > "$JOBS/multi/rank.sh" <<'RANK'
#!/bin/bash
# torchrun --rdzv-id=$SLURM_JOB_ID --log-dir=...: <log dir>/<rdzv id>_<8 random>/attempt_0/<local rank>/
dir=$NODE_LOCAL/$(hostname)/torchrun-$SLURM_JOB_ID/${SLURM_JOB_ID}_k3x9q2ab/attempt_0/$SLURM_LOCALID
mkdir -p "$dir"
exec >"$dir/stderr.log" 2>&1
r=$SLURM_PROCID
echo "[rank$r]:$(hostname):$$:$$ [0] NCCL INFO NCCL version 2.18.1+cuda12.1"
for i in 1 2 3; do
  echo "[rank$r]: [2026-12-02 10:00:0$i] iteration        $i/      12 | consumed samples:           $((i * 8)) | lm loss: 1.0E+01 |"
  sleep 1
done
if [[ $r == 1 ]]; then
  echo "[rank$r]: Traceback (most recent call last):"
  echo "[rank$r]:   File \"/work/train.py\", line 20, in <module>"
  echo "[rank$r]:     loss = model(x).pow(2).mean()"
  echo "[rank$r]: RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x96 and 64x256)"
  exit 1
fi
sleep 120
RANK
{
  echo '#!/bin/bash'
  echo '#SBATCH --job-name=gpt-multi'
  echo '#SBATCH --nodes=2'
  echo '#SBATCH --ntasks-per-node=1'
  echo '#SBATCH --time=5'
  echo '#SBATCH --mem=100M'
  echo '#SBATCH --output=logs/%x-%j.out'
  echo '#SBATCH --error=logs/%x-%j.err'
  echo "export NODE_LOCAL=$BASE/nodes"
  echo 'srun --kill-on-bad-exit=1 bash rank.sh'
  snippet partial-job | localize
} > "$JOBS/multi/job.sbatch"
chown -R mtuser "$JOBS"

J=$(as_user "$JOBS/multi" "sbatch --parsable job.sbatch")
[[ $J =~ ^[0-9]+$ ]] || fail "sbatch did not submit the job: $J"
note "2-node job $J"
wait_for 90 "job $J to end" bash -c "! squeue -h -j $J | grep -q ."
IN_JOB=$JOBS/multi/megatriage/$J
wait_for 10 "the in-job partial reports" test -s "$IN_JOB/node2.json"
[[ -s $IN_JOB/node1.json ]] || fail "no in-job partial report of node1: $(ls "$IN_JOB")"
[[ $(stat -c %U "$IN_JOB/node2.json") == mtuser ]] || fail "the in-job partial report is not the user's"

# (1) The in-job merge: rank 1 on node2, and the one-scan report of both folders.
cd "$BASE"
rc=0; "$MT" merge --format json -o merged.json "$IN_JOB" || rc=$?
[[ $rc == 1 ]] || fail "merge exited $rc, want 1 (failure found)"
expect merged.json 'd["root_cause"]["category"]' shape
expect merged.json 'd["root_cause"]["rank"]' 1
expect merged.json 'd["root_cause"]["host"]' node2
expect merged.json 'd["root_cause"]["file"].startswith("node2:")' True
"$MT" --format json -o single.json "$BASE/nodes/node1/torchrun-$J" "$BASE/nodes/node2/torchrun-$J" || true
/usr/bin/python3 - "$BASE/merged.json" "$BASE/single.json" <<'PY' || fail "the merged report is not the one-scan report"
import json, sys
def strip(v):
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items()}
    if isinstance(v, list): return [strip(x) for x in v]
    return v.replace("node1:", "").replace("node2:", "") if isinstance(v, str) else v
merged, single = (json.load(open(p)) for p in sys.argv[1:3])
if strip(merged) != single:
    print(json.dumps(strip(merged), indent=1)[:3000]); sys.exit(1)
PY
grep -q 'FAILURE' "$JOBS/multi/logs/gpt-multi-$J.out" || fail "the job's own merge printed no report"
note "in-job wiring ok: rank 1 on node2, equal to the one-scan report"

# (2) The node Epilog: one partial report per node, as mtuser, the same merged report.
wait_for 60 "the Epilog's partial reports" test -s "$BASE/spool/$J/node1.json" -a -s "$BASE/spool/$J/node2.json"
[[ $(stat -c %U "$BASE/spool/$J/node1.json") == mtuser ]] || fail "the Epilog wrote its report as root"
"$MT" merge --format json -o epilog.json "$BASE/spool/$J" || true
cmp merged.json epilog.json || fail "the Epilog's partial reports merge to another report"
note "node Epilog wiring ok"

# (3) EpilogSlurmctld: the post-mortem merges the spool (waiting for the nodes' reports).
R=$JOBS/multi/logs/megatriage-$J.json
wait_for 90 "EpilogSlurmctld's report" test -s "$R"
expect "$R" 'd["root_cause"]["rank"]' 1
expect "$R" 'd["root_cause"]["host"]' node2
expect "$R" 'd["slurm"]["state"]' FAILED
expect "$R" 'sorted(f["path"].split(":")[0] for f in d["files"] if f["path"].startswith("node"))' "['node1', 'node2']"
expect "$R" '[x["code"] for x in d["diagnostics"] if x["code"].startswith("merge.")]' '[]'
note "EpilogSlurmctld wiring ok"

# (4) A node whose report is missing is named; another job's report is refused.
note "nodes the Epilog's partial report lists: $(json_get "$BASE/spool/$J/node2.json" 'd["nodes"]')"
mkdir lost && cp "$IN_JOB/node2.json" lost/
"$MT" merge --format json -o lost.json lost || true
expect lost.json 'any("node node1:" in x["message"] for x in d["diagnostics"] if x["code"] == "merge.missing-node")' True
SLURM_JOB_ID=999999 "$MT" partial --host node9 -o lost/other.json "$BASE/nodes/node1/torchrun-$J"
rc=0; "$MT" merge lost 2>err.txt >/dev/null || rc=$?
[[ $rc == 2 ]] || fail "merging two jobs' reports exited $rc, want 2"
grep -q 'different jobs' err.txt || fail "no clear error for two jobs: $(cat err.txt)"
note "missing node and another job ok"
