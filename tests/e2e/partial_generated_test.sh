#!/usr/bin/env bash
# partial + merge on a generated 1,024-rank job (tools/bench_gen.cc logdir, 128 nodes, ~40 MB,
# 2,305 files): the merged JSON report equals the one-scan report for three splits (one partial
# report per node's share of the files, random halves, one for everything), and the merged
# report names the planted root (rank 517, oom). Prints the partial reports' total size and the
# merge's time and peak memory (not judged: tools/bench's rows are).
#   partial_generated_test.sh MEGATRIAGE REPO_ROOT BENCH_GEN
set -euo pipefail
megatriage=$1 root=$2 gen=$3
json_get() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"r": r}))' "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
unset SLURM_JOB_ID SLURM_JOB_NODELIST SLURM_CLUSTER_NAME SLURMD_NODENAME SLURM_JOB_UID
"$gen" logdir "$tmp/job" 1024 8 >/dev/null
cd job
"$megatriage" --format json --jobs 2 logs >single.json || [[ $? -eq 1 ]]
[[ $(json_get single.json 'r["root_cause"]["rank"], r["root_cause"]["category"]') == "(517, 'oom')" ]] ||
  { echo "FAIL the one-scan report does not name rank 517 oom"; exit 1; }
find logs -type f | LC_ALL=C sort >files
# 128 shares (a node's), random halves (a fixed shuffle), and one partial report of logs/.
split -n l/128 -d -a 3 files share.
shuf --random-source=<(yes) files >shuffled
head -n $(( $(wc -l <files) / 2 )) shuffled >half.0
tail -n +$(( $(wc -l <files) / 2 + 1 )) shuffled >half.1
fail=0
check() {  # check NAME LISTS...
  local name=$1; shift
  mkdir "parts-$name"
  local k=0
  for list in "$@"; do
    xargs -a "$list" "$megatriage" partial --host '' --jobs 2 -o "parts-$name/$k.json.zst"
    k=$((k + 1))
  done
  local rc=0
  /usr/bin/time -f '%e %M' -o "time-$name" "$megatriage" merge --format json --jobs 2 "parts-$name" >"merged-$name.json" || rc=$?
  [[ $rc -eq 1 ]] || { echo "FAIL merge ($name) exited $rc"; fail=1; }
  if cmp -s single.json "merged-$name.json"; then
    read -r secs kb < <(tail -1 "time-$name")
    echo "ok $name: $k partial reports, $(du -cb "parts-$name"/* | tail -1 | cut -f1) bytes (zstd), merge ${secs} s, ${kb} KB peak RSS"
  else
    echo "FAIL $name: the merged report differs from the one-scan report"
    diff <(python3 -m json.tool single.json) <(python3 -m json.tool "merged-$name.json") | head -20
    fail=1
  fi
}
check nodes share.*
check halves half.0 half.1
mkdir parts-one
"$megatriage" partial --host '' -o parts-one/all.json logs
"$megatriage" merge --format json parts-one >merged-one.json || true
cmp -s single.json merged-one.json && echo "ok one: $(stat -c %s parts-one/all.json) bytes (JSON)" ||
  { echo "FAIL one: the merged report differs"; fail=1; }
exit $fail
