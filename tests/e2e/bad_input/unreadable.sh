#!/usr/bin/env bash
# Unreadable file and directory (EACCES): discover.unreadable, the rest triaged. Root reads
# mode-000 files, so the check runs as user nobody too (CI runs as root).
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
chmod -R a+rX "$job"
printf 'Traceback (most recent call last):\nsecret: do not read\n' >"$logs/unreadable.err"
chmod 000 "$logs/unreadable.err"
mkdir -p "$logs/locked" && cp "$logs/unreadable.err" "$logs/locked/x.err" && chmod 000 "$logs/locked"
if [[ $(id -u) -ne 0 ]]; then
  run
elif can_run_as_nobody; then
  run_as_nobody
else
  echo "bad input [$case_name]: SKIP (root without setpriv, or nobody cannot run $megatriage)"
  exit 0
fi
expect_rc 1
expect_code discover.unreadable
expect_root
grep -q 'secret' "$tmp/r.json" && bad "unreadable content leaked"
expect_valid_json

# Every file unreadable: nothing to triage, the usage error an empty tree gives (exit 2). The
# walk lists files without opening them, so this is decided once they were tried.
only="$tmp/only/logs"
mkdir -p "$only" && printf 'x\n' >"$only/a.err" && printf 'y\n' >"$only/b.out"
chmod 755 "$tmp/only" "$only" && chmod 000 "$only/a.err" "$only/b.out"
if [[ $(id -u) -ne 0 ]]; then run "$only"; else run_as_nobody "$only"; fi
expect_rc 2
grep -q 'no readable log files' "$tmp/err" || bad "no usage message for a tree of unreadable files"
finish
