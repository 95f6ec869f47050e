#!/usr/bin/env bash
# `cmake --install` end to end: an installed binary reads the rules installed beside it (also
# after the prefix is moved), never the checkout's rules/, and a binary in the build tree still
# reads the checkout's. Every run starts in an empty directory, so nothing is found by accident.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR JSON_GET
set -uo pipefail
build=$1 source=$2 json_get=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
unset MEGATRIAGE_RULES_DIR
export MEGATRIAGE_CACHE_DIR=off
mkdir "$tmp/empty"
cd "$tmp/empty" || exit 1

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
installed=$tmp/prefix/bin/megatriage
[[ -x $installed ]] || bad "no bin/megatriage under the prefix"
[[ -f $tmp/prefix/share/megatriage/rules/cuda.json ]] || bad "no share/megatriage/rules/cuda.json under the prefix"

# rules_count BINARY: the rule count `rules check` reports (all rules load cleanly).
rules_count() {
  local out
  out=$("$1" rules check 2>"$tmp/check.err") || { bad "$1 rules check failed"; cat "$tmp/check.err"; }
  [[ $out =~ ^([0-9]+)\ rules\ loaded\ from\ 1\ directory,\ 0\ problem ]] || { bad "rules check said: $out"; echo 0; return; }
  echo "${BASH_REMATCH[1]}"
}
source_count=$(rules_count "$build/megatriage")
installed_count=$(rules_count "$installed")
[[ $source_count -gt 0 && $installed_count -eq $source_count ]] ||
  bad "installed rules give $installed_count rules, the checkout's $source_count"

# Take one family out of the installed copy: the installed binary must see fewer rules, the
# build-tree binary (the checkout's rules/) the same number. A family that carries none of the
# tags the code asks about (rule_tags.h), so that `rules check` stays clean without it.
rm "$tmp/prefix/share/megatriage/rules/misc.json"
fewer=$(rules_count "$installed")
[[ $fewer -gt 0 && $fewer -lt $source_count ]] || bad "installed binary did not read its own rules ($fewer rules)"
[[ $(rules_count "$build/megatriage") -eq $source_count ]] || bad "the build-tree binary no longer reads the checkout's rules"

# A moved prefix still finds its rules beside the binary.
mv "$tmp/prefix" "$tmp/moved"
[[ $(rules_count "$tmp/moved/bin/megatriage") -eq $fewer ]] || bad "a moved prefix lost its rules"

# The installed binary triages a fixture like the build-tree one (its rules restored).
cp "$source/rules/misc.json" "$tmp/moved/share/megatriage/rules/"
cp -r "$source/fixtures/gpu-oom-torchrun-logdir/logs" "$tmp/empty/logs"
rc=0
"$tmp/moved/bin/megatriage" --format json logs >"$tmp/r.json" 2>"$tmp/err" || rc=$?
[[ $rc -eq 1 ]] || { bad "installed binary exit code $rc, want 1"; cat "$tmp/err"; }
[[ $("$json_get" "$tmp/r.json" /root_cause/category) == oom ]] || bad "installed binary: root cause is not oom"
[[ $("$json_get" "$tmp/r.json" /rules/count) -eq $source_count ]] || bad "installed binary: rule count differs"

[[ $fail -eq 0 ]] && echo "install: all checks passed"
exit $fail
