#!/usr/bin/env bash
# Directory symlink loops (to a parent, and two links pointing at each other) are reported as
# discover.symlink-loop and walked once; the run ends and the tree is triaged.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
mkdir -p "$logs/sub"
ln -s .. "$logs/sub/loop"
ln -s b "$logs/a" && ln -s a "$logs/b"
run
expect_rc 1
expect_code discover.symlink-loop
expect_root
expect_valid_json
finish
