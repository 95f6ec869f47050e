#!/usr/bin/env bash
# Invalid UTF-8 and NUL bytes inside the root traceback: the failure is still found and
# classified, text is repaired (U+FFFD), diagnostics extract.invalid-utf8 and split.nul-bytes.
source "$(dirname "$0")/lib.sh" "$@"
mkdir -p "$logs"
{ printf 'Traceback (most recent call last):\n'
  printf '  File "/ws/\xff\xfe/train.py", line 12, in <module>\n\0\0\0\0\n'
  printf '  File "/ws/model.py", line 3, in forward\n'
  printf "ModuleNotFoundError: No module named 'bad\xc3name'\n"; } >"$logs/rank0.err"
run
expect_rc 1
expect_code extract.invalid-utf8
expect_code split.nul-bytes
expect_root logs/rank0.err
expect_category import
grep -q $'\xef\xbf\xbd' "$tmp/r.json" || bad "no U+FFFD replacement in the report"
expect_valid_json
finish
