#!/usr/bin/env bash
# A symlink to a file outside the tree is not followed by default (discover.symlink-outside);
# --follow-symlinks reads it.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
mkdir -p "$tmp/elsewhere"
printf 'marker-outside-the-tree\n' >"$tmp/elsewhere/other.out"
ln -s "$tmp/elsewhere/other.out" "$logs/other.out"
ln -s "$tmp/elsewhere" "$logs/elsewhere-dir"
run
expect_rc 1
expect_code discover.symlink-outside
expect_not_listed logs/other.out
expect_not_listed logs/elsewhere-dir/other.out
expect_root
run --follow-symlinks logs
expect_rc 1
expect_no_code discover.symlink-outside
# Both links reach the same file: it is read once (under either name, discover.duplicate).
get '/files/*/path' | grep -q 'other\.out$' || bad "the outside file was not read with --follow-symlinks"
expect_root
finish
