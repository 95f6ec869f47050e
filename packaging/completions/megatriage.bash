# bash completion for megatriage: subcommands, each subcommand's flags, and the values of the
# flags that take a fixed set (--format, --color) or a path. Installed as
# share/bash-completion/completions/megatriage, which bash-completion loads the first time
# `megatriage <TAB>` is pressed (also from a prefix on PATH: it looks in ../share beside it).
# Self-contained: it needs none of bash-completion's helper functions.

_megatriage() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  # `--format=js<TAB>`: bash splits at '=', so the flag is one or two words back.
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" ]] && ((COMP_CWORD > 1)); then
    prev=${COMP_WORDS[COMP_CWORD - 2]}
  fi

  local sub=triage
  if ((COMP_CWORD > 1)); then
    case ${COMP_WORDS[1]} in
      postmortem | watch | lint | partial | merge) sub=${COMP_WORDS[1]} ;;
      rules) sub=rules ;;
    esac
  fi
  if [[ $sub == rules ]]; then
    if ((COMP_CWORD == 2)); then
      if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "--help -h" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "check list" -- "$cur"))
      fi
      return
    fi
    sub="rules ${COMP_WORDS[2]}"
  fi

  local formats flags
  case $sub in
    triage)
      formats="text json html markdown github"
      flags="--help -h --version --format --output -o --jobs -j --rules --color --context --verbose -v
             --width --script --job --all-jobs --follow-symlinks --no-progress
             --max-decompressed-bytes --max-line-bytes --max-frames --max-message-bytes" ;;
    postmortem)
      formats="text json html"
      flags="--help -h --logs --partials --report-dir --format --rules --context --verbose -v --width" ;;
    partial)
      flags="--help -h --output -o --host --job --nodes --context --timeout --jobs -j --rules --follow-symlinks
             --max-decompressed-bytes --max-line-bytes --max-frames --max-message-bytes" ;;
    merge)
      formats="text json html markdown github"
      flags="--help -h --format --output -o --jobs -j --rules --color --context --verbose -v --width --script
             --nodes --logs --wait" ;;
    watch)
      formats="text json"
      flags="--help -h --job --cancel --interval --nccl-grace --timeout --rules --format --context
             --verbose -v --width" ;;
    lint)
      formats="text json sarif"
      flags="--help -h --no-filesystem --disable --rules --format" ;;
    "rules check" | "rules list")
      flags="--help -h --rules" ;;
    *) return ;;
  esac

  case $prev in
    --format)
      COMPREPLY=($(compgen -W "$formats" -- "$cur"))
      return ;;
    --color)
      COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
      return ;;
    --rules | --report-dir | --partials)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$cur"))
      return ;;
    -o | --output | --script | --logs)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
      return ;;
    -j | --jobs | --context | --width | --job | --interval | --nccl-grace | --timeout | --disable | \
      --host | --nodes | --wait | \
      --max-decompressed-bytes | --max-line-bytes | --max-frames | --max-message-bytes)
      return ;;  # a number or an id: nothing to offer
  esac

  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    return
  fi
  # Paths (log files, folders, scripts); in the first place also the subcommands.
  compopt -o filenames 2>/dev/null
  COMPREPLY=($(compgen -f -- "$cur"))
  if [[ $sub == triage ]] && ((COMP_CWORD == 1)); then
    COMPREPLY+=($(compgen -W "postmortem watch lint partial merge rules" -- "$cur"))
  fi
}

complete -F _megatriage megatriage
