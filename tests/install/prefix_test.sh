#!/usr/bin/env bash
# `cmake --install` end to end: the prefix holds the layout README "Install" lists; the installed
# binary reads the rules installed beside it (also after the prefix is moved), never the
# checkout's rules/, names no build-tree path, and reports as the build tree's binary does; a
# binary in the build tree still reads the checkout's rules. Every run starts in an empty folder.
# Usage: prefix_test.sh BINARY BUILD_DIR SOURCE_DIR JSON_GET
. "$(dirname "$0")/lib.sh"
mkdir "$tmp/empty"
cd "$tmp/empty" || exit 1

install_to "$tmp/prefix"
version=$("$binary" --version | head -1)
version=${version#megatriage }
for f in bin/megatriage share/megatriage/rules/cuda.json share/man/man1/megatriage.1.gz \
         share/bash-completion/completions/megatriage share/zsh/site-functions/_megatriage \
         share/doc/megatriage/README.md share/doc/megatriage/copyright \
         share/doc/megatriage/schema/report.schema.json share/doc/megatriage/schema/lint.schema.json \
         "share/megatriage/modulefiles/megatriage/$version.lua"; do
  [[ -f $tmp/prefix/$f ]] || bad "no $f under the prefix"
done
installed=$tmp/prefix/bin/megatriage
[[ -x $installed ]] || bad "bin/megatriage is not executable"
if [[ $sanitized -eq 0 ]] && grep -c -F -e "$build" -e "$source" "$installed" >/dev/null; then
  bad "the installed binary names the build tree or the checkout"
fi

# --version: four lines, each parsed.
mapfile -t v < <("$installed" --version)
[[ ${#v[@]} -eq 4 ]] || bad "--version: ${#v[@]} lines, want 4"
[[ ${v[0]} =~ ^megatriage\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || bad "--version line 1: ${v[0]}"
[[ ${v[1]} =~ ^commit:\ ([0-9a-f]{7,}(-dirty)?|unknown)$ ]] || bad "--version line 2: ${v[1]}"
[[ ${v[2]} =~ ^build\ type:\ [A-Za-z]+$ ]] || bad "--version line 3: ${v[2]}"
[[ ${v[3]} =~ ^Vectorscan:\ (yes|no)\  ]] || bad "--version line 4: ${v[3]}"
# (Not compared with the checkout's HEAD: a commit made after the build would fail it.)

# rules_count BINARY: the rule count `rules check` reports (all rules load cleanly).
rules_count() {
  local out
  out=$("$1" rules check 2>"$tmp/check.err") || { bad "$1 rules check failed"; cat "$tmp/check.err"; }
  [[ $out =~ ^([0-9]+)\ rules\ loaded\ from\ 1\ directory,\ 0\ problem ]] || { bad "rules check said: $out"; echo 0; return; }
  echo "${BASH_REMATCH[1]}"
}
source_count=$(rules_count "$binary")
installed_count=$(rules_count "$installed")
[[ $source_count -gt 0 && $installed_count -eq $source_count ]] ||
  bad "installed rules give $installed_count rules, the checkout's $source_count"

# Take one family out of the installed copy: the installed binary must see fewer rules, the
# build-tree binary (the checkout's rules/) the same number. A family that carries none of the
# tags the code asks about (rule_tags.h), so that `rules check` stays clean without it.
rm "$tmp/prefix/share/megatriage/rules/misc.json"
fewer=$(rules_count "$installed")
[[ $fewer -gt 0 && $fewer -lt $source_count ]] || bad "installed binary did not read its own rules ($fewer rules)"
[[ $(rules_count "$binary") -eq $source_count ]] || bad "the build-tree binary no longer reads the checkout's rules"

# A moved prefix still finds its rules beside the binary.
mv "$tmp/prefix" "$tmp/moved"
[[ $(rules_count "$tmp/moved/bin/megatriage") -eq $fewer ]] || bad "a moved prefix lost its rules"

# The moved prefix's binary (its rules restored) triages a fixture as the build tree's does.
cp "$source/rules/misc.json" "$tmp/moved/share/megatriage/rules/"
run=$(fixture_copy gpu-oom-torchrun-logdir)
cd "$run" || exit 1
"$binary" --format json logs >"$tmp/build.json"
rc=0
"$tmp/moved/bin/megatriage" --format json logs >"$tmp/moved.json" 2>"$tmp/err" || rc=$?
[[ $rc -eq 1 ]] || { bad "installed binary exit code $rc, want 1"; cat "$tmp/err"; }
[[ $("$json_get" "$tmp/moved.json" /root_cause/category) == oom ]] || bad "installed binary: root cause is not oom"
same_report "$tmp/build.json" "$tmp/moved.json" || bad "the moved prefix's binary: another report than the build tree's"
finish
