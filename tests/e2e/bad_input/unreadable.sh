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
finish
