#!/usr/bin/env bash
# An Lmod module on shared storage: a prefix installed, then moved (as a software team copies a
# tree to shared storage), `module use <prefix>/share/megatriage/modulefiles; module load
# megatriage` in a fresh bash puts the binary on PATH, the manual on MANPATH and the bash
# completion where bash-completion looks; `module unload` takes them away again.
# Usage: module_test.sh BINARY BUILD_DIR SOURCE_DIR JSON_GET
. "$(dirname "$0")/lib.sh"
lmod_init=/usr/share/lmod/lmod/init/bash
if [[ ! -f $lmod_init ]]; then
  echo "SKIP: Lmod is not installed (Debian package lmod; tools/setup test installs it)"
  exit 77
fi
install_to "$tmp/install"
mv "$tmp/install" "$tmp/shared"
prefix=$tmp/shared

# The shell prints KEY=VALUE lines, read back into an array below (no text is grepped).
env -i HOME="$HOME" PATH=/usr/bin:/bin TERM=dumb bash --noprofile --norc -c '
  prefix=$1
  . '"$lmod_init"'
  module use "$prefix/share/megatriage/modulefiles" 2>&1
  module load megatriage 2>&1
  echo "which=$(command -v megatriage)"
  echo "manpath=$MANPATH"
  echo "man=$(man -w megatriage 2>/dev/null)"
  echo "root=$MEGATRIAGE_ROOT"
  echo "version=$(megatriage --version | head -1)"
  if [[ -f /usr/share/bash-completion/bash_completion ]]; then
    . /usr/share/bash-completion/bash_completion
    __load_completion megatriage
    echo "complete=$(complete -p megatriage 2>/dev/null)"
  fi
  module unload megatriage 2>&1
  echo "after_unload=$(command -v megatriage)"
' bash "$prefix" >"$tmp/out" 2>&1
declare -A got
while IFS= read -r line; do
  [[ $line =~ ^([a-z_]+)=(.*)$ ]] && got[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done <"$tmp/out"
[[ ${got[which]:-} == "$prefix/bin/megatriage" ]] || bad "after module load, megatriage is '${got[which]:-}'"
[[ ":${got[manpath]:-}:" == *":$prefix/share/man:"* ]] || bad "MANPATH lacks the prefix: '${got[manpath]:-}'"
if command -v man >/dev/null; then
  [[ ${got[man]:-} == "$prefix/share/man/man1/megatriage.1.gz" ]] || bad "man -w megatriage: '${got[man]:-}'"
fi
[[ ${got[root]:-} == "$prefix" ]] || bad "MEGATRIAGE_ROOT: '${got[root]:-}'"
[[ ${got[version]:-} == "megatriage "* ]] || bad "megatriage --version from the module: '${got[version]:-}'"
if [[ -f /usr/share/bash-completion/bash_completion ]]; then
  [[ ${got[complete]:-} == "complete -F _megatriage megatriage" ]] || bad "bash completion not loaded: '${got[complete]:-}'"
fi
[[ -v got[after_unload] && -z ${got[after_unload]} ]] || bad "after module unload, megatriage is still '${got[after_unload]:-}'"
[[ $fail -eq 0 ]] || cat "$tmp/out"
finish
