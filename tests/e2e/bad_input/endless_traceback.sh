#!/usr/bin/env bash
# A traceback that never ends (a million frames, no exception line): bounded memory, frames
# capped with extract.frames-capped and the figure; the real failure is still the root.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
{ printf 'Traceback (most recent call last):\n'
  yes '  File "/ws/recurse.py", line 7, in f' | head -n 1000000; } >"$logs/zz-endless.err"
run
expect_rc 1
expect_code extract.frames-capped
expect_message extract.frames-capped "traceback has 1000000 frames; kept 64 (limit 64"
expect_root
run --max-frames 8 logs
expect_rc 1
expect_message extract.frames-capped "kept 8 (limit 8"
expect_valid_json
finish
