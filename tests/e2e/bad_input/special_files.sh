#!/usr/bin/env bash
# A FIFO and a character device in logs/ never block the run: discover.special-file, skipped,
# also when named directly on the command line.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
mkfifo "$logs/fifo.err"
have_dev=0
if [[ $(id -u) -eq 0 ]] && mknod "$logs/null.err" c 1 3 2>/dev/null; then have_dev=1; fi
run
expect_rc 1
expect_code discover.special-file
expect_not_listed logs/fifo.err
expect_root
[[ $have_dev -eq 1 ]] && expect_not_listed logs/null.err
run logs/fifo.err logs/gpt-tiny-25.err
expect_rc 1
expect_code discover.special-file
expect_root
finish
