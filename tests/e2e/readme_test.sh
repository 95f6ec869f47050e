#!/usr/bin/env bash
# README.md, read as a newcomer reads it: the first screen's two commands, a sample report that is
# really what tools/demo prints today, a Usage block naming every subcommand (each of which
# exists), the post-mortem snippet's small allocation, and links that lead somewhere.
# Usage: readme_test.sh MEGATRIAGE SOURCE_DIR
set -uo pipefail
megatriage=$(realpath "$1")
src=$(realpath "$2")
readme="$src/README.md"
fail=0
bad() { echo "FAIL readme: $*"; fail=1; }

# The body of the first fenced block after the line $1 (exact), or after the marker comment $1.
block_after() {
  awk -v start="$1" '$0 == start {f = 1; next}
                     f && /^```/ {if (in_block) exit; in_block = 1; next}
                     in_block {print}' "$readme"
}

# --- first screen: the two commands, before any other heading ------------------------------------
first_block=$(block_after "# megatriage")
grep -qE '^tools/demo( |$)' <<<"$first_block" || bad "the first code block does not start the demo (tools/demo)"
grep -qE '^tools/test( |$)' <<<"$first_block" || bad "the first code block does not run the tests (tools/test)"

# --- the sample report is what tools/demo shows, line for line except the elided ones ------------
demo_case=$(sed -n 's/.*fixtures\/\${1:-\([^}]*\)}.*/\1/p' "$src/tools/demo")
[[ -n $demo_case && -d $src/fixtures/$demo_case/logs ]] || bad "tools/demo names no bundled fixture ($demo_case)"
sample=$(block_after "<!-- sample: tools/demo -->")
usage_line=$(grep -n '^## Usage$' "$readme" | cut -d: -f1)
sample_line=$(grep -n '^<!-- sample: tools/demo -->$' "$readme" | cut -d: -f1)
[[ -n $sample_line && -n $usage_line && $sample_line -lt $usage_line ]] ||
  bad "no sample report (<!-- sample: tools/demo -->) before ## Usage"
expected_cmd="\$ cd fixtures/$demo_case && megatriage logs/"
[[ $(head -n1 <<<"$sample") == "$expected_cmd" ]] || bad "the sample does not start with '$expected_cmd'"
actual=$(cd "$src/fixtures/$demo_case" && env -u COLUMNS NO_COLOR=1 "$megatriage" --color never logs/ 2>/dev/null)
# Each sample line (after the command) must be the next matching report line, in order; a line
# that is only "[...]" skips report lines, a line ending in " [...]" matches by its beginning.
mapfile -t want < <(tail -n +2 <<<"$sample")
mapfile -t have <<<"$actual"
h=0
for w in "${want[@]}"; do
  [[ $w =~ ^[[:space:]]*\[\.\.\.\]$ ]] && continue
  prefix_only=0
  if [[ $w == *" [...]" ]]; then prefix_only=1; w=${w% \[...\]}; fi
  found=0
  while [[ $h -lt ${#have[@]} ]]; do
    line=${have[$h]}
    h=$((h + 1))
    if [[ $line == "$w" ]] || [[ $prefix_only -eq 1 && $line == "$w"* ]]; then found=1; break; fi
  done
  if [[ $found -eq 0 ]]; then
    bad "README sample line not in today's report of fixtures/$demo_case, or out of order: '$w'"
    echo "  (refresh the sample from: cd fixtures/$demo_case && megatriage logs/)"
    break
  fi
done

# --- Usage lists every subcommand, each one real -------------------------------------------------
usage=$(block_after "## Usage")
for sub in "" postmortem watch lint "rules check"; do
  if [[ -z $sub ]]; then
    grep -qE '^megatriage \[PATH' <<<"$usage" || bad "Usage does not show triage (megatriage [PATH...])"
    continue
  fi
  grep -qE "^megatriage $sub( |$)" <<<"$usage" || bad "Usage does not list 'megatriage $sub'"
  # shellcheck disable=SC2086  # "rules check" is two words on purpose
  "$megatriage" $sub --help >/dev/null 2>&1 || bad "'megatriage $sub --help' fails: Usage names a subcommand that is not there"
done

# --- the afternotok snippet asks for a small CPU allocation -------------------------------------
snippet=$(block_after "<!-- snippet: afternotok -->")
read -ra words <<<"$(tr '\\\n' '  ' <<<"$snippet")"
has_word() { local x; for x in "${words[@]}"; do [[ $x == "$1" ]] && return 0; done; return 1; }
for want_word in -n1 -c1 --mem=1G -t; do
  has_word "$want_word" || bad "the afternotok snippet lacks $want_word"
done
for i in "${!words[@]}"; do
  [[ ${words[$i]} == -t ]] && [[ ${words[$((i + 1))]:-} != 5 ]] && bad "the afternotok snippet's -t is not 5"
done
grep -qi 'partition' <<<"$(sed -n "/^\*\*User, no admin needed\*\*/,/<!-- snippet: afternotok -->/p" "$readme")" ||
  bad "the afternotok snippet has no note about the partition"

# --- relative links lead to files, and their #anchors to headings --------------------------------
slug() { tr 'A-Z' 'a-z' <<<"$1" | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'; }
check_link() {  # FROM_FILE TARGET
  local from=$1 target=$2 file anchor dir
  dir=$(dirname "$from")
  file=${target%%#*}
  anchor=""
  [[ $target == *"#"* ]] && anchor=${target#*#}
  [[ -z $file ]] && file=$(basename "$from")
  [[ -e $dir/$file ]] || { bad "$(basename "$from") links to $file, which does not exist"; return; }
  [[ -z $anchor ]] && return
  local found=0 heading
  while IFS= read -r heading; do
    [[ $(slug "$heading") == "$anchor" ]] && found=1
  done < <(sed -n 's/^#\{1,6\} //p' "$dir/$file")
  [[ $found -eq 1 ]] || bad "$(basename "$from") links to $file#$anchor: no such heading"
}
for doc in "$readme" "$src"/docs/*.md; do
  while IFS= read -r target; do
    [[ $target == http* ]] && continue
    check_link "$doc" "$target"
  done < <(grep -oE '\]\([^)]+\)' "$doc" | sed -E 's/^\]\((.*)\)$/\1/')
done
grep -q '](docs/architecture.md' "$readme" || bad "README does not link docs/architecture.md"
grep -q '](docs/performance.md' "$readme" || bad "README does not link docs/performance.md"

[[ $fail -eq 0 ]] && echo "readme: ok"
exit $fail
