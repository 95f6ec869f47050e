#!/usr/bin/env bash
# Command-line contract: exit codes, usage errors, --version/--help, --output, colour rules.
set -uo pipefail
megatriage=$1 fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect_rc() {  # expect_rc WANT DESCRIPTION CMD...
  local want=$1 what=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne $want ]]; then echo "FAIL $what: exit $rc, want $want"; cat "$tmp/err"; fail=1; fi
}

expect_rc 2 "nonexistent path" "$megatriage" "$tmp/nope"
[[ $(wc -l <"$tmp/err") -eq 1 ]] && grep -q "nope" "$tmp/err" || { echo "FAIL usage error is not one line naming the path"; cat "$tmp/err"; fail=1; }
mkdir "$tmp/empty"
expect_rc 2 "empty directory" "$megatriage" "$tmp/empty"
expect_rc 2 "bad flag" "$megatriage" --format yaml "$fixtures/slurm-g-success/logs"
expect_rc 0 "--version" "$megatriage" --version
grep -q "^megatriage [0-9]" "$tmp/out" || { echo "FAIL --version output"; fail=1; }
expect_rc 0 "--help" "$megatriage" --help
grep -q "Exit codes" "$tmp/out" || { echo "FAIL --help lacks exit codes"; fail=1; }
expect_rc 0 "no failure" "$megatriage" "$fixtures/slurm-g-success/logs"
expect_rc 1 "failure found" "$megatriage" "$fixtures/slurm-a1-exception-peer-reset/logs"
expect_rc 1 "--output" "$megatriage" --format json -o "$tmp/r.json" "$fixtures/slurm-a1-exception-peer-reset/logs"
grep -q '"schema_version": 1' "$tmp/r.json" || { echo "FAIL --output did not write the JSON"; fail=1; }
[[ -s "$tmp/out" ]] && { echo "FAIL --output also wrote to stdout"; fail=1; }
# A report that cannot be written is a usage error naming why, not a silent exit 0/1 (the
# binary skips freeing at exit, so it must flush and check stdout itself).
if [[ -w /dev/full ]]; then
  "$megatriage" --format json "$fixtures/slurm-a1-exception-peer-reset/logs" >/dev/full 2>"$tmp/err"
  rc=$?
  [[ $rc -eq 2 ]] && grep -q "cannot write the report to standard output: No space left" "$tmp/err" ||
    { echo "FAIL write error on stdout: exit $rc"; cat "$tmp/err"; fail=1; }
  expect_rc 2 "-o /dev/full" "$megatriage" --format json -o /dev/full "$fixtures/slurm-a1-exception-peer-reset/logs"
fi
# Everything the run printed reaches a pipe whole (stdout is flushed before the quick exit).
"$megatriage" --format json "$fixtures/slurm-a1-exception-peer-reset/logs" | cat >"$tmp/piped.json"
"$megatriage" --format json -o "$tmp/file.json" "$fixtures/slurm-a1-exception-peer-reset/logs"
[[ -s "$tmp/piped.json" ]] && cmp -s "$tmp/piped.json" "$tmp/file.json" ||
  { echo "FAIL report through a pipe differs from the one written with -o"; fail=1; }
# Never colour a pipe unless asked; honour --color always.
expect_rc 1 "colour to pipe" "$megatriage" "$fixtures/slurm-a1-exception-peer-reset/logs"
grep -q $'\x1b' "$tmp/out" && { echo "FAIL escape codes written to a pipe"; fail=1; }
expect_rc 1 "--color always" "$megatriage" --color always "$fixtures/slurm-a1-exception-peer-reset/logs"
grep -q $'\x1b\[' "$tmp/out" || { echo "FAIL --color always did not colour"; fail=1; }
expect_rc 0 "rules check" "$megatriage" rules check
# Progress line: on a terminal (script(1) gives one) it is drawn and erased; never in a pipe, never
# in the report.
case=$fixtures/slurm-a1-exception-peer-reset/logs
script -qec "$(printf '%q ' "$megatriage" --progress-after-ms 0 --format json -o "$tmp/p.json" "$case")" /dev/null >"$tmp/tty" 2>&1
grep -q $'\r\x1b\[Kmegatriage: [0-9]*/[0-9]* files, .* GB/s, ETA' "$tmp/tty" || { echo "FAIL no progress line on a terminal"; od -c "$tmp/tty" | head; fail=1; }
[[ $(tail -c 4 "$tmp/tty" | od -An -c | tr -d ' ') == *'\r033[K'* ]] || { echo "FAIL progress line not erased at the end"; fail=1; }
grep -q "GB/s" "$tmp/p.json" && { echo "FAIL progress text in the JSON report"; fail=1; }
expect_rc 1 "no progress in a pipe" "$megatriage" --progress-after-ms 0 "$case"
grep -q "GB/s" "$tmp/err" "$tmp/out" && { echo "FAIL progress line written to a pipe"; fail=1; }
script -qec "$(printf '%q ' "$megatriage" --no-progress --progress-after-ms 0 --format json -o "$tmp/p.json" "$case")" /dev/null >"$tmp/tty" 2>&1
grep -q "GB/s" "$tmp/tty" && { echo "FAIL --no-progress still drew the line"; fail=1; }
# Hidden profiling flag: phase times on stderr, nothing else changes.
expect_rc 1 "--timings" "$megatriage" --timings --format json "$case"
grep -q '^timings: walk [0-9.]* s, .* analyse [0-9.]* s, report [0-9.]* s, render [0-9.]* s$' "$tmp/err" || { echo "FAIL --timings line"; cat "$tmp/err"; fail=1; }
cmp -s "$tmp/out" <("$megatriage" --format json "$case") || { echo "FAIL --timings changed the report"; fail=1; }
exit $fail
