#!/usr/bin/env bash
# A 200 MB line: cut to --max-line-bytes (default 65536) with split.line-too-long and the
# figure; the lines after it are read.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
{ printf 'before\n'; head -c 200000000 /dev/zero | tr '\0' 'x'; printf '\nafter\n'; } >"$logs/long.out"
run
expect_rc 1
expect_code split.line-too-long
expect_message split.line-too-long "longer than 65536 bytes"
expect_file_field logs/long.out lines 3
expect_root
run --max-line-bytes 1000 logs
expect_rc 1
expect_message split.line-too-long "longer than 1000 bytes"
expect_root
finish
