#!/usr/bin/env bash
# Binary files (a core dump, a torch .pt checkpoint) in logs/ are skipped: read.binary-file.
source "$(dirname "$0")/lib.sh" "$@"
setup_tree
{ printf '\x7fELF\x02\x01\x01\x04'; head -c 200000 /dev/urandom; } >"$logs/core.1234"
{ printf 'PK\x03\x04\x00\x00\x08\x08'; printf 'archive/data.pkl'; head -c 100000 /dev/urandom; } >"$logs/model_optim_rng.pt"
run
expect_rc 1
expect_code read.binary-file
expect_file_field logs/core.1234 skipped true
expect_file_field logs/model_optim_rng.pt skipped true
expect_root
expect_valid_json
finish
