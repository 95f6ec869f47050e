#!/usr/bin/env bash
# tools/style-sweep, small: one job in 16 log styles, each report must name the planted root
# (rank 77 oom) and give it a time (every style's stamps are read). Timings are not judged here
# (CI machines vary). The job lives beside the binary.
#   tests/e2e/style_sweep_test.sh MEGATRIAGE_BINARY
set -uo pipefail
megatriage=${1:?usage: style_sweep_test.sh MEGATRIAGE_BINARY}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export MEGATRIAGE_BENCH_DIR=${MEGATRIAGE_BENCH_DIR:-$(cd "$(dirname "$megatriage")" && pwd)/bench-trees}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
"$root/tools/style-sweep" --mb 4 --runs 1 --megatriage "$megatriage" >"$out" 2>&1
rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL tools/style-sweep exited $rc"; fail=1; }
num='[0-9]+(\.[0-9]+)?'
for style in plain crlf coloured level-first month-first vllm iso-offset loguru hydra nemo rank-prefix \
  mpi-tag-output ray-worker pdsh-per-host syslog json-lines; do
  grep -Eq "^$style +$num +$num +oom 77 2026-11-29T[0-9:.]+$" "$out" ||
    { echo "FAIL style $style: no line with rank 77 oom and a time"; fail=1; }
done
[[ $(grep -Ec "^[a-z-]+ +$num +$num +" "$out") -eq 16 ]] || { echo "FAIL not 16 styles measured"; fail=1; }
if [[ $fail -ne 0 ]]; then
  echo "---- tools/style-sweep output"
  cat "$out"
fi
exit $fail
