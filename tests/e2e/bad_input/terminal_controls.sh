#!/usr/bin/env bash
# ANSI CSI / OSC and other terminal controls inside the root exception message: the text report
# neutralises them (only our own SGR colours remain, other control bytes as \xNN), the JSON
# report is valid UTF-8 with none of them raw (sequences removed, other controls \u-escaped).
source "$(dirname "$0")/lib.sh" "$@"
mkdir -p "$logs"
{ printf 'Traceback (most recent call last):\n  File "/ws/t.py", line 1, in <module>\n'
  printf 'ValueError: bad \x1b]0;pwned\x07 title \x1b[2J\x1b[H clear \x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \x08\x08 bell\x07 \x9b31m c1 \x1bc reset\n'
} >"$logs/rank0.err"
run
expect_rc 1
expect_root logs/rank0.err
expect_valid_json
# Escape sequences are removed before matching (extract.terminal-escapes); any other control
# byte left in the text is escaped (\u00NN) by the JSON writer, never raw.
expect_code extract.terminal-escapes
LC_ALL=C grep -a -q -P '[\x00-\x08\x0b-\x1f\x7f]' "$tmp/r.json" && bad "a raw control byte in the JSON report"
[[ $(get /root_cause/exception) == "ValueError: bad "* ]] || bad "the exception is not in the JSON report"
rc=0
(cd "$job" && timeout 60 "$megatriage" --color always logs) >"$tmp/r.txt" 2>&1 || rc=$?
expect_rc 1
grep -q 'ValueError: bad' "$tmp/r.txt" || bad "the exception is missing from the text report"
if LC_ALL=C grep -a -P '\x1b(?!\[[0-9;]*m)' "$tmp/r.txt" >/dev/null; then bad "a terminal escape reached the text report"; fi
LC_ALL=C grep -a -q -P '[\x07\x08\x9b]' "$tmp/r.txt" && bad "a raw control byte reached the text report"
finish
