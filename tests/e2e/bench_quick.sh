#!/usr/bin/env bash
# tools/bench --quick against a given megatriage binary: the harness runs end to end, every
# megatriage report names the planted root cause, and every expected measurement line is
# printed with its figures and ratio. Timings are not judged here (CI machines vary).
#   tests/e2e/bench_quick.sh MEGATRIAGE_BINARY
set -uo pipefail
megatriage=${1:?usage: bench_quick.sh MEGATRIAGE_BINARY}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0

"$root/tools/bench" --quick --megatriage "$megatriage" >"$out" 2>&1
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL tools/bench --quick exited $rc"
  fail=1
fi

num='[0-9]+(\.[0-9]+)?'
# megatriage's own line per tree: median and fastest time, CPU time, GB/s, RSS, the right root cause.
for tree in a b c-zstd c-gzip d e; do
  grep -Eq "^$tree +megatriage +$num +$num +$num +$num +$num +- +root: rank 517 oom OK" "$out" ||
    { echo "FAIL no megatriage line with the right root cause for tree $tree"; fail=1; }
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
for e in "${expected[@]}"; do
  tree=${e%% *} peer=${e#* }
  peer_re=${peer//|/\\|}
  grep -Eq "^$tree +$peer_re +$num +$num +$num +$num +$num +$num( |$)" "$out" ||
    { echo "FAIL no ratio line for tree $tree, peer $peer"; fail=1; }
done
# Targets are reported (met or MISSED) on the lines that have one; RSS on a and e.
for e in "a rg-lit-j2 1.25" "b rg-lit-j2 1.5" "c-zstd zstd-dc|rg-lit 1.1" "c-gzip pigz-dc|rg-lit 1.1" "d rg-lit-j2 1.5"; do
  read -r tree peer target <<<"$e"
  grep -E "^$tree +${peer//|/\\|} " "$out" | grep -Eq "target <= $target: (met|MISSED)" ||
    { echo "FAIL no target verdict for tree $tree, peer $peer"; fail=1; }
done
for tree in a e; do
  grep -E "^$tree +megatriage " "$out" | grep -Eq "RSS <= 64 MB: (met|MISSED)" ||
    { echo "FAIL no RSS verdict for tree $tree"; fail=1; }
done

if [[ $fail -ne 0 ]]; then
  echo "---- tools/bench --quick output"
  cat "$out"
fi
exit $fail
