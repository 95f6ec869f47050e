#!/usr/bin/env bash
# The bash completion as installed: bash-completion's loader finds it under the prefix, it
# completes the subcommands, the rules verbs and the --format values each subcommand accepts,
# and it offers every flag that the subcommand's --help lists (so a new flag cannot be forgotten
# here). Completion is driven as bash does it: COMP_WORDS/COMP_CWORD, then the function that
# `complete -p` names, then COMPREPLY.
# Usage: completion_test.sh BINARY BUILD_DIR SOURCE_DIR JSON_GET
. "$(dirname "$0")/lib.sh"
install_to "$tmp/prefix"
script=$tmp/prefix/share/bash-completion/completions/megatriage
[[ -f $script ]] || { echo "FAIL no bash completion under the prefix"; exit 1; }
mkdir "$tmp/empty"
cd "$tmp/empty" || exit 1

# complete WORD...: the completions bash would offer with the cursor after the last word (give
# "" to complete an empty word), sorted, one a line, from a fresh bash that loaded the script.
complete_words() {
  bash --noprofile --norc -c '
    . "$1"; shift
    spec=$(complete -p megatriage) || exit 1
    [[ $spec =~ -F\ ([^ ]+) ]] || exit 1
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    "${BASH_REMATCH[1]}" megatriage "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' bash "$script" "$@" | sort
}
# expect "WANT..." -- WORD...: the completions are exactly WANT.
expect() {
  local want=() got
  while [[ $1 != -- ]]; do want+=("$1"); shift; done
  shift
  got=$(complete_words "$@")
  [[ $got == "$(printf '%s\n' "${want[@]}" | sort)" ]] || bad "completing '$*': got [$(echo $got)], want [${want[*]}]"
}

# The subcommands `megatriage --help` lists (its Subcommands block: `  megatriage WORD [WORD]
# ARGS...  what it does`), as word lists: "postmortem", "rules check", ...
subcommands=()
while IFS= read -r line; do
  [[ $line =~ ^\ +megatriage((\ [a-z]+)+) ]] && subcommands+=("${BASH_REMATCH[1]# }")
done < <("$binary" --help | sed -n '/^Subcommands/,/^$/p')
[[ ${#subcommands[@]} -ge 5 ]] || bad "read only ${#subcommands[@]} subcommands from megatriage --help"
first_words=$(for s in "${subcommands[@]}"; do echo "${s%% *}"; done | sort -u)
[[ $(complete_words megatriage "") == "$first_words" ]] ||
  bad "completing 'megatriage ': got [$(echo $(complete_words megatriage ""))], --help lists [$(echo $first_words)]"
expect lint merge partial postmortem rules watch -- megatriage ""
expect watch -- megatriage wa
expect check list -- megatriage rules ""
expect html json markdown github text -- megatriage --format ""
expect json -- megatriage --format j
expect html json markdown github text -- megatriage --format = ""
expect html json text -- megatriage postmortem --format ""
expect json text -- megatriage watch --format ""
expect json sarif text -- megatriage lint --format ""
expect always auto never -- megatriage --color ""
expect --format -- megatriage --form

# The --format values match what each subcommand's --help accepts, and every flag in its --help
# is offered after "--" (CLI11 help: flags at the start of an option line, values in {...}).
help_flags() { "$binary" "$@" --help | grep -oE '^  (-[a-zA-Z],)?--[a-z-]+' | tr ',' '\n' | sed 's/^ *//' | sort -u; }
help_formats() { "$binary" "$@" --help | sed -n 's/^ *--format [A-Z]*:{\([a-z,]*\)}.*/\1/p' | tr ',' '\n' | sort; }
for sub in "" "${subcommands[@]}"; do
  read -ra words <<<"$sub"
  missing=$(comm -23 <(help_flags "${words[@]}") <({ complete_words megatriage "${words[@]}" -; complete_words megatriage "${words[@]}" --; } | sort -u))
  [[ -z $missing ]] || bad "'megatriage $sub': --help lists flags the completion does not offer: $(echo $missing)"
  formats=$(help_formats "${words[@]}")
  if [[ -n $formats ]]; then
    [[ $(complete_words megatriage "${words[@]}" --format "") == "$formats" ]] ||
      bad "'megatriage $sub --format': completion and --help disagree"
  fi
done

# The zsh completion at least parses (zsh is not among the packages tools/setup installs).
if command -v zsh >/dev/null; then
  zsh -n "$tmp/prefix/share/zsh/site-functions/_megatriage" || bad "the zsh completion does not parse"
fi

# bash-completion's own loader finds the script under the prefix (XDG_DATA_DIRS, as the module
# file sets it).
if [[ -f /usr/share/bash-completion/bash_completion ]]; then
  spec=$(XDG_DATA_DIRS=$tmp/prefix/share:/usr/share bash --noprofile --norc -c '
    . /usr/share/bash-completion/bash_completion
    __load_completion megatriage && complete -p megatriage')
  [[ $spec == "complete -F _megatriage megatriage" ]] || bad "bash-completion did not load it: '$spec'"
else
  echo "note: bash-completion is not installed (tools/setup test installs it); its loader not tried"
fi
finish
