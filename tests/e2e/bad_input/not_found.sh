#!/usr/bin/env bash
# A path that does not exist is a usage error (exit 2, README "Exit codes"), alone or next to a
# good tree; the message names the path.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
run nope
expect_rc 2
grep -q "path 'nope' does not exist" "$tmp/err" || bad "stderr does not name the missing path"
run nope logs
expect_rc 2
run logs
expect_rc 1
expect_root
finish
