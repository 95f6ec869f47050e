#!/usr/bin/env bash
# A folder with nothing readable in it (only a core dump, only empty files, both) is exit 2
# "nothing readable", never exit 0 "no failure found": a job that died before writing a line is
# not a success. Next to one readable log the same files are skipped and the tree is triaged.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
mkdir -p "$job/core-only" "$job/empty-only" "$job/both"
{ printf '\x7fELF\x02\x01\x01\x04'; head -c 100000 /dev/urandom; } >"$job/core-only/core.4242"
: >"$job/empty-only/job-4242.out"
: >"$job/empty-only/job-4242.err"
cp "$job/core-only/core.4242" "$job/both/"
: >"$job/both/job-4242.err"
for dir in core-only empty-only both; do
  run "$dir"
  expect_rc 2
  grep -q "no readable log files" "$tmp/err" || bad "$dir: stderr does not say nothing was readable"
done
grep -q "1 binary file (core-only/core.4242)" <(cd "$job" && "$megatriage" core-only 2>&1) ||
  bad "the message does not say what was there instead"
# Mixed: the readable log is analysed, the core and the empty file are skipped.
cp "$job/core-only/core.4242" "$logs/"
: >"$logs/empty.err"
run logs
expect_rc 1
expect_code read.binary-file
expect_root
finish
