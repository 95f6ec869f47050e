#!/usr/bin/env bash
# An empty directory: alone it is "nothing readable" (exit 2); next to a good tree it is ignored.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
mkdir -p "$job/empty" "$logs/also-empty"
run empty
expect_rc 2
grep -q "no readable log files" "$tmp/err" || bad "stderr does not say nothing was readable"
run empty logs
expect_rc 1
expect_root
expect_valid_json
finish
