#!/usr/bin/env bash
# tools/bench --quick against a given megatriage binary: the harness runs end to end, every
# megatriage report names the planted root cause, and every expected measurement line is
# printed with its figures and ratio, and a run that misses the planted root gets no ratio.
# Timings are not judged here (CI machines vary). The trees live beside the binary, so that
# two checkouts' runs never clean up each other's trees.
#   tests/e2e/bench_quick.sh MEGATRIAGE_BINARY
set -uo pipefail
megatriage=${1:?usage: bench_quick.sh MEGATRIAGE_BINARY}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export MEGATRIAGE_BENCH_DIR=${MEGATRIAGE_BENCH_DIR:-$(cd "$(dirname "$megatriage")" && pwd)/bench-trees}
out=$(mktemp) tmp=$(mktemp -d)
trap 'rm -rf "$out" "$tmp"' EXIT
fail=0

"$root/tools/bench" --quick --megatriage "$megatriage" >"$out" 2>&1
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL tools/bench --quick exited $rc"
  fail=1
fi

num='[0-9]+(\.[0-9]+)?'
# megatriage's own line per tree: median and fastest time, CPU time, GB/s, RSS, the right root cause.
for e in "a rank 517" "b rank 517" "c-zstd rank 517" "c-gzip rank 517" "d rank 517" "e rank 517" \
  "f rank 77" "g rank 77" "h rank 77" "i host node010" "j rank 77" "k rank 77" "l rank 77"; do
  tree=${e%% *} want=${e#* }
  grep -Eq "^$tree +megatriage +$num +$num +$num +$num +$num +- +root: $want oom OK" "$out" ||
    { echo "FAIL no megatriage line with the right root cause ($want oom) for tree $tree"; fail=1; }
done
# One ratio line per (tree, peer): median and fastest time, CPU time, GB/s, RSS, megatriage/peer.
expected=(
  "a rg-lit-j2" "a rg-re-j2" "a wc-l" "a cat"
  "b rg-lit-j2" "b rg-re-j2" "b wc-l" "b cat"
  "c-zstd zstd-dc|rg-lit" "c-zstd zstd-dc"
  "c-gzip pigz-dc|rg-lit" "c-gzip pigz-dc"
  "d rg-lit-j2" "d rg-re-j2" "d wc-l" "d cat"
  "e rg-lit-j2" "e cat"
)
for tree in f g h i j k l; do expected+=("$tree rg-lit-j2" "$tree rg-re-j2" "$tree wc-l" "$tree cat"); done
for e in "${expected[@]}"; do
  tree=${e%% *} peer=${e#* }
  peer_re=${peer//|/\\|}
  grep -Eq "^$tree +$peer_re +$num +$num +$num +$num +$num +$num( |$)" "$out" ||
    { echo "FAIL no ratio line for tree $tree, peer $peer"; fail=1; }
done
# Targets are reported (met or MISSED) on the lines that have one; RSS on a and e.
for e in "a rg-lit-j2 1.25" "b rg-lit-j2 1.5" "c-zstd zstd-dc|rg-lit 1.1" "c-gzip pigz-dc|rg-lit 1.1" "d rg-lit-j2 1.5" \
  "f rg-lit-j2 1.5" "g rg-lit-j2 1.5" "h rg-lit-j2 1.5" "i rg-lit-j2 1.5" "j rg-lit-j2 1.5" "k rg-lit-j2 1.5" \
  "l rg-lit-j2 1.5"; do
  read -r tree peer target <<<"$e"
  grep -E "^$tree +${peer//|/\\|} " "$out" | grep -Eq "target <= $target: (met|MISSED)" ||
    { echo "FAIL no target verdict for tree $tree, peer $peer"; fail=1; }
done
for tree in a b c-zstd c-gzip d e f g h i j k l; do
  grep -E "^$tree +megatriage " "$out" | grep -Eq "RSS <= 64 MB: (met|MISSED)" ||
    { echo "FAIL no RSS verdict for tree $tree"; fail=1; }
done

# A "megatriage" that names the wrong root: the bench fails and prints no ratio for the tree.
cat >"$tmp/wrong-root" <<'FAKE'
#!/usr/bin/env bash
while [[ $# -gt 0 ]]; do [[ $1 == -o ]] && out=$2; shift; done
printf '{\n  "root_cause": {\n    "category": "nccl",\n    "rank": 3,\n    "host": "node001"\n  }\n}\n' >"$out"
exit 1
FAKE
chmod +x "$tmp/wrong-root"
"$root/tools/bench" --quick --only f --megatriage "$tmp/wrong-root" >"$tmp/wrong.out" 2>&1
rc=$?
[[ $rc -eq 1 ]] || { echo "FAIL the bench exited $rc on a wrong root cause (want 1)"; fail=1; }
grep -Eq "^f +megatriage .*WRONG" "$tmp/wrong.out" || { echo "FAIL no WRONG note for a wrong root cause"; fail=1; }
if grep -E "^f +rg-lit-j2 " "$tmp/wrong.out" | grep -Evq " refused( |$)"; then
  echo "FAIL a ratio was printed for a tree whose root was missed"
  cat "$tmp/wrong.out"
  fail=1
fi

if [[ $fail -ne 0 ]]; then
  echo "---- tools/bench --quick output"
  cat "$out"
fi
exit $fail
