#!/usr/bin/env bash
# An empty file is listed with diagnostic read.empty-file; the tree is still triaged.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
: >"$logs/empty.err"
run
expect_rc 1
expect_code read.empty-file
expect_listed logs/empty.err
expect_root
finish
