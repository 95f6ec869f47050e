#!/usr/bin/env bash
# A file that keeps growing while it is read (a live job) is read up to its size at open
# (read.file-grew); a file truncated while it is read ends early (read.file-shrank). Neither
# blocks or crashes, and the tree is triaged. The races are forced with files large enough
# that the reader is still busy when the other process acts; the diagnostics are checked only
# when the race was won, the exit code and the root every time.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
line='iteration      100/   1000 | consumed samples: 3200 | elapsed time per iteration (ms): 812.4'
yes "$line" | head -c 100000000 >"$logs/grow.out"
( while [[ -e "$logs/grow.out" ]]; do yes "$line" | head -c 10000000 >>"$logs/grow.out" || break; done ) &
writer=$!
run
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null
expect_rc 1
expect_root
expect_valid_json
has '/diagnostics/[code=read.file-grew]' && echo "  (growing file: read.file-grew seen)"
rm -f "$logs/grow.out"

yes "$line" | head -c 200000000 >"$logs/shrink.out"
( sleep 0.3; truncate -s 1000 "$logs/shrink.out" ) &
trunc=$!
run
wait "$trunc"
expect_rc 1
expect_root
expect_valid_json
has '/diagnostics/[code=read.file-shrank]' && echo "  (truncated file: read.file-shrank seen)"
finish
