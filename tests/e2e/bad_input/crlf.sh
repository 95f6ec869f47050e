#!/usr/bin/env bash
# CRLF files give the same root cause, line and exception as their LF originals.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
run
cp "$tmp/r.json" "$tmp/lf.json"
for f in "$logs"/*; do sed -i 's/$/\r/' "$f"; done
grep -q $'\r$' "$logs/gpt-tiny-25.err" || bad "fixture not converted"
run
expect_rc 1
expect_root
expect_valid_json
grep -q $'\\\\r' "$tmp/r.json" && bad "a \\r reached the report"
field() { sed -n '/"root_cause"/,/"symptoms"/p' "$1" | grep -E "\"($2)\":" | head -3; }
[[ "$(field "$tmp/r.json" 'line|exception|rule')" == "$(field "$tmp/lf.json" 'line|exception|rule')" ]] ||
  bad "CRLF root differs from LF"
finish
