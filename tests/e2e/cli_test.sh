#!/usr/bin/env bash
# Command-line contract: exit codes, usage errors, --version/--help, --output, colour rules.
set -uo pipefail
megatriage=$1 fixtures=$2 json_get=$3   # json_get: tests/e2e/json_get.cc reads report fields
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
# The HTML page shows one job; watch's report is text or JSON.
expect_rc 2 "--format html --all-jobs" "$megatriage" --format html --all-jobs "$fixtures/slurm-g-success/logs"
expect_rc 2 "watch --format html" "$megatriage" watch --format html "$fixtures/slurm-g-success/logs"
expect_rc 0 "--version" "$megatriage" --version
grep -q "^megatriage [0-9]" "$tmp/out" || { echo "FAIL --version output"; fail=1; }
expect_rc 0 "--help" "$megatriage" --help
grep -q "Exit codes" "$tmp/out" || { echo "FAIL --help lacks exit codes"; fail=1; }
expect_rc 0 "no failure" "$megatriage" "$fixtures/slurm-g-success/logs"
expect_rc 1 "failure found" "$megatriage" "$fixtures/slurm-a1-exception-peer-reset/logs"
expect_rc 1 "--output" "$megatriage" --format json -o "$tmp/r.json" "$fixtures/slurm-a1-exception-peer-reset/logs"
[[ $("$json_get" "$tmp/r.json" /schema_version) == 2 ]] || { echo "FAIL --output did not write the JSON"; fail=1; }
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
# -o over an earlier file: its bytes are written over and the file cut to the report's length
# (no truncation to zero first: ext4 would force it to disk on close), so neither a longer nor a
# shorter old file shows through; a link is written through; a device is written as it is; a
# directory or a missing folder is a usage error saying why.
head -c 5000000 /dev/zero | tr '\0' 'x' >"$tmp/long.json"
printf 'x' >"$tmp/short.json"
cp "$tmp/long.json" "$tmp/target.json"
ln -s target.json "$tmp/link.json"
for old in long short link; do
  "$megatriage" --format json -o "$tmp/$old.json" "$fixtures/slurm-a1-exception-peer-reset/logs"
  cmp -s "$tmp/$old.json" "$tmp/file.json" || { echo "FAIL -o over an earlier $old file left other bytes"; fail=1; }
done
[[ -L "$tmp/link.json" ]] && cmp -s "$tmp/target.json" "$tmp/file.json" || { echo "FAIL -o through a link"; fail=1; }
expect_rc 1 "-o /dev/null" "$megatriage" --format json -o /dev/null "$fixtures/slurm-a1-exception-peer-reset/logs"
expect_rc 2 "-o a directory" "$megatriage" --format json -o "$tmp" "$fixtures/slurm-a1-exception-peer-reset/logs"
grep -q "cannot write $tmp: Is a directory" "$tmp/err" || { echo "FAIL -o a directory: message"; cat "$tmp/err"; fail=1; }
expect_rc 2 "-o in a missing folder" "$megatriage" --format json -o "$tmp/nope/r.json" "$fixtures/slurm-a1-exception-peer-reset/logs"
grep -q "cannot write $tmp/nope/r.json: No such file or directory" "$tmp/err" || { echo "FAIL -o in a missing folder: message"; cat "$tmp/err"; fail=1; }
# Never colour a pipe unless asked; honour --color always.
expect_rc 1 "colour to pipe" "$megatriage" "$fixtures/slurm-a1-exception-peer-reset/logs"
grep -q $'\x1b' "$tmp/out" && { echo "FAIL escape codes written to a pipe"; fail=1; }
expect_rc 1 "--color always" "$megatriage" --color always "$fixtures/slurm-a1-exception-peer-reset/logs"
grep -q $'\x1b\[' "$tmp/out" || { echo "FAIL --color always did not colour"; fail=1; }
expect_rc 0 "rules check" "$megatriage" rules check
# Every subcommand: --help is exit 0 and names the subcommand; a bad flag or value is the usage
# exit code (the flag parsing all of them share, cli/shared_flags.cc).
for sub in "" "rules check" lint watch postmortem; do
  # shellcheck disable=SC2086
  expect_rc 0 "${sub:-megatriage} --help" "$megatriage" $sub --help
  grep -q "^Usage: megatriage${sub:+ $sub}" "$tmp/out" || { echo "FAIL ${sub:-megatriage} --help usage line"; head -3 "$tmp/out"; fail=1; }
  # shellcheck disable=SC2086
  expect_rc 2 "${sub:-megatriage} --bogus" "$megatriage" $sub --bogus
done
expect_rc 2 "watch --format yaml" "$megatriage" watch --format yaml "$tmp/empty"
expect_rc 2 "postmortem --format yaml" "$megatriage" postmortem --format yaml 1
expect_rc 2 "watch --format markdown (triage only)" "$megatriage" watch --format markdown "$tmp/empty"
expect_rc 2 "lint --format yaml" "$megatriage" lint --format yaml "$fixtures/lint/runbook-template.sbatch"
expect_rc 2 "--jobs 0" "$megatriage" --jobs 0 "$fixtures/slurm-g-success/logs"
expect_rc 2 "--max-line-bytes 3" "$megatriage" --max-line-bytes 3 "$fixtures/slurm-g-success/logs"
expect_rc 1 "lint findings" "$megatriage" lint --no-filesystem "$fixtures/lint/"*.sbatch
expect_rc 2 "lint unreadable" "$megatriage" lint "$tmp/nope.sbatch"
# --rules takes one directory: the path after it stays a log path.
expect_rc 1 "--rules DIR PATH" "$megatriage" --format json --rules "$tmp/empty" "$fixtures/slurm-a1-exception-peer-reset/logs"
# Colour on a terminal (script(1)) unless NO_COLOR is set; --color always wins over NO_COLOR.
case=$fixtures/slurm-a1-exception-peer-reset/logs
script -qec "$(printf '%q ' "$megatriage" "$case")" /dev/null >"$tmp/tty" 2>&1
grep -q $'\x1b\[' "$tmp/tty" || { echo "FAIL no colour on a terminal"; fail=1; }
NO_COLOR=1 script -qec "$(printf '%q ' "$megatriage" "$case")" /dev/null >"$tmp/tty" 2>&1
grep -q $'\x1b\[' "$tmp/tty" && { echo "FAIL colour on a terminal with NO_COLOR set"; fail=1; }
NO_COLOR=1 expect_rc 1 "--color always with NO_COLOR" "$megatriage" --color always "$case"
grep -q $'\x1b\[' "$tmp/out" || { echo "FAIL --color always did not colour with NO_COLOR set"; fail=1; }
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
# --help lists every subcommand, one line each.
expect_rc 0 "--help" "$megatriage" --help
for sub in postmortem watch lint "rules check"; do
  grep -q "^  megatriage $sub " "$tmp/out" || { echo "FAIL --help does not list '$sub'"; fail=1; }
done
# `rules` alone (and rules --help) is the rules help, never a triage of a folder named rules;
# `./rules` is that folder.
mkdir -p "$tmp/cwd/rules"
cp "$fixtures/slurm-a1-exception-peer-reset/logs/"* "$tmp/cwd/rules/"
cd "$tmp/cwd" || exit 1
for form in "" "--help" "-h"; do
  # shellcheck disable=SC2086
  expect_rc 0 "rules ${form:-(no verb)}" "$megatriage" rules $form
  grep -q "^Usage: megatriage rules VERB" "$tmp/out" && grep -q "^  check " "$tmp/out" ||
    { echo "FAIL rules ${form:-(no verb)} does not show the rules help"; head -3 "$tmp/out"; fail=1; }
done
expect_rc 2 "rules with an unknown verb" "$megatriage" rules logs
grep -q "unknown verb 'logs'" "$tmp/err" || { echo "FAIL rules VERB: no unknown-verb message"; fail=1; }
expect_rc 1 "./rules is a folder to triage" "$megatriage" --format json ./rules
[[ $("$json_get" "$tmp/out" /root_cause/file) == ./rules/gpt-tiny-25.err ]] ||
  { echo "FAIL ./rules was not triaged as logs"; fail=1; }
cd - >/dev/null || exit 1

# An exception that reaches main is an internal error: exit 3 and a bug message with the
# version, for every subcommand (MEGATRIAGE_TEST_THROW=1 is a test-only trigger, after parsing).
case=$fixtures/slurm-a1-exception-peer-reset/logs
for cmd in "$case" "rules check" "lint $fixtures/lint/$(ls "$fixtures/lint" | grep -m1 sbatch)" \
           "watch --timeout 1 $case" "postmortem 1"; do
  # shellcheck disable=SC2086
  MEGATRIAGE_TEST_THROW=1 expect_rc 3 "internal error in '$cmd'" "$megatriage" $cmd
  grep -qE "^megatriage [0-9][^ ]*: internal error: .*; please report it with the command line$" "$tmp/err" ||
    { echo "FAIL '$cmd': no internal-error message"; cat "$tmp/err"; fail=1; }
done

# No rules loaded (a bad MEGATRIAGE_RULES_DIR, an empty one, a binary copied away from its
# build tree): exit 2 naming where it looked and how to fix it, never a report. Every command.
mkdir -p "$tmp/no-rules"
for dir in /nonexistent/megatriage-rules "$tmp/no-rules"; do
  # postmortem's case is in postmortem_fallback_test.sh, which fakes SLURM.
  for cmd in "$case" "rules check" "watch --timeout 5 $case"; do
    # shellcheck disable=SC2086
    MEGATRIAGE_RULES_DIR=$dir expect_rc 2 "MEGATRIAGE_RULES_DIR=$dir for '$cmd'" "$megatriage" $cmd
    grep -q "no rules loaded ($dir: " "$tmp/err" && grep -q "looked for in: $dir (\$MEGATRIAGE_RULES_DIR)" "$tmp/err" &&
      grep -q "fix: point MEGATRIAGE_RULES_DIR" "$tmp/err" ||
      { echo "FAIL MEGATRIAGE_RULES_DIR=$dir '$cmd': message"; cat "$tmp/err"; fail=1; }
    [[ -s $tmp/out ]] && { echo "FAIL MEGATRIAGE_RULES_DIR=$dir '$cmd': a report with no rules"; fail=1; }
  done
done
if [[ ! -d /usr/local/share/megatriage/rules ]]; then
  mkdir -p "$tmp/away/bin"
  cp "$megatriage" "$tmp/away/bin/megatriage"
  env -u MEGATRIAGE_RULES_DIR "$tmp/away/bin/megatriage" "$case" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [[ $rc -eq 2 ]] && grep -q "looked for in: $tmp/away/share/megatriage/rules" "$tmp/err" &&
    grep -q "fix: set MEGATRIAGE_RULES_DIR" "$tmp/err" ||
    { echo "FAIL a binary away from its rules: exit $rc"; cat "$tmp/err"; fail=1; }
fi
exit $fail
