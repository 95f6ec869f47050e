#!/usr/bin/env bash
# Damaged compression: a truncated .gz and a corrupt .zst keep their decoded prefix with a
# diagnostic; a .gz that is really text is read as text; a tiny .gz that expands past
# --max-decompressed-bytes (a zip bomb) stops there with the figure.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
head -c 3000 <(gzip -c "$fixtures/megatron-none-1gpu/logs/megatron-4730.out") >"$logs/truncated.out.gz"
printf '\x28\xb5\x2f\xfd garbage that is not a zstd frame' >"$logs/corrupt.err.zst"
printf 'plain text in a .gz name\n' >"$logs/plain.err.gz"
head -c 50000000 /dev/zero | tr '\0' 'y' | fold -w 100 | gzip -9 >"$logs/bomb.out.gz"
[[ $(stat -c %s "$logs/bomb.out.gz") -lt 1000000 ]] || bad "the bomb is not tiny"
run --max-decompressed-bytes 1000000 logs
expect_rc 1
expect_code read.truncated-gzip
expect_code read.corrupt-zstd
expect_code read.decompressed-limit
expect_message read.decompressed-limit "stopped after 1000000 decompressed bytes"
expect_no_code read.corrupt-gzip
expect_file_field logs/plain.err.gz compression none
expect_file_field logs/bomb.out.gz bytes 1000000
expect_root
expect_valid_json
finish
