#!/usr/bin/env bash
# One end-to-end check of one fixture. Usage: check_case.sh CHECK MEGATRIAGE CASE_DIR EXPECTED_DIR LABEL_CHECK
#   golden      JSON and text reports equal tests/e2e/expected/<case>.{json,txt}
#   invariance  --jobs 1, --jobs 3, --no-prefilter, --builtin-search, parallel chunks of
#               1000/1999/4099 bytes and compressed copies give identical JSON
#   label       the report agrees with the case's label.json, or the case is a listed known miss
#               (label-known-misses.txt) and still disagrees
set -euo pipefail
check=$1 megatriage=$2 case_dir=$3 expected=$4 label_check=$5
case=$(basename "$case_dir")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # run megatriage inside a copy/dir so paths in the report are logs/...; exit 0/1 are fine
  local dir=$1; shift
  local rc=0
  (cd "$dir" && "$megatriage" "$@" logs) >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -gt 1 ]]; then echo "megatriage exited $rc"; cat "$tmp/err"; exit 1; fi
  cat "$tmp/out"
}

# Git does not keep mtimes, and a log that prints no year takes it from its file's mtime: run on
# a copy whose files carry the fixtures' capture day, so reports do not depend on the checkout.
mkdir "$tmp/case"
cp -R "$case_dir/logs" "$tmp/case/logs"
find "$tmp/case/logs" -exec touch -h -d "2026-11-29 12:00:00 UTC" {} +
case_dir="$tmp/case"

# The text report follows the terminal's width and the locale's glyphs: goldens are made for a
# 100-column UTF-8 report, whatever the environment running the tests says.
export LC_ALL=C.UTF-8
unset COLUMNS

case $check in
golden)
  run "$case_dir" --format json --jobs 2 >"$tmp/got.json"
  run "$case_dir" --color never --jobs 2 >"$tmp/got.txt"
  diff -u "$expected/$case.json" "$tmp/got.json"
  diff -u "$expected/$case.txt" "$tmp/got.txt"
  # The text report fits a 100-column terminal (characters, not bytes), except a word that is
  # longer than a line by itself (a path, a file:line, a URL: never cut), which stands alone
  # after its indent and a marker or gutter (`-`, `passed`, `> 12 |`: three words at most).
  n=0
  while IFS= read -r l; do
    n=$((n + 1))
    if (( ${#l} > 100 )); then
      head=${l% *}
      [[ $head == "$l" ]] && head=""
      if (( $(wc -w <<<"$head") > 3 )); then echo "line $n is ${#l} columns: $l"; exit 1; fi
    fi
  done <"$tmp/got.txt"
  ;;
invariance)
  run "$case_dir" --format json --jobs 1 >"$tmp/j1.json"
  run "$case_dir" --format json --jobs 3 >"$tmp/j3.json"
  diff -u "$tmp/j1.json" "$tmp/j3.json"
  run "$case_dir" --format json --jobs 1 --no-prefilter >"$tmp/nopre.json"
  diff -u "$tmp/j1.json" "$tmp/nopre.json"
  run "$case_dir" --format json --jobs 2 --builtin-search >"$tmp/builtin.json"
  diff -u "$tmp/j1.json" "$tmp/builtin.json"
  # One file searched in parallel chunks (small chunks so that fixtures have many of them).
  for chunk in 1000 1999 4099; do
    run "$case_dir" --format json --jobs 3 --chunk-bytes $chunk >"$tmp/chunk.json"
    diff -u "$tmp/j1.json" "$tmp/chunk.json"
  done
  # Compressed copies under the SAME names (compression is detected from magic bytes), one
  # format per file in rotation; only the per-file compression and on-disk size may differ.
  mkdir "$tmp/copy"
  cp -a "$case_dir/logs" "$tmp/copy/logs"
  tools=(gzip bzip2 xz zstd)
  i=0
  while IFS= read -r -d '' f; do
    case $f in *.gz|*.bz2|*.xz|*.zst) continue ;; esac  # already compressed in the fixture
    tool=${tools[$((i % 4))]}
    i=$((i + 1))
    if [[ $tool == zstd ]]; then zstd -q -c "$f" >"$f.tmp"; else $tool -c "$f" >"$f.tmp"; fi
    touch -r "$f" "$f.tmp"
    mv "$f.tmp" "$f"
  done < <(find "$tmp/copy/logs" -type f -print0 | sort -z)
  run "$tmp/copy" --format json --jobs 2 >"$tmp/z.json"
  strip() { grep -v -E '"(compression|size_bytes)":' "$1"; }
  diff -u <(strip "$tmp/j1.json") <(strip "$tmp/z.json")
  ;;
label)
  run "$case_dir" --format json >"$tmp/got.json"
  # A case listed in label-known-misses.txt is a documented miss: its label check must still
  # fail, so that a fix shows up here (then take it off the list) instead of passing unnoticed.
  if grep -q -E "^$case( |$)" "$(dirname "$0")/label-known-misses.txt"; then
    if "$label_check" "$tmp/got.json" "$3/label.json"; then
      echo "$case now agrees with its label: remove it from tests/e2e/label-known-misses.txt"
      exit 1
    fi
    echo "known miss (tests/e2e/label-known-misses.txt)"
  else
    "$label_check" "$tmp/got.json" "$3/label.json"
  fi
  ;;
*)
  echo "unknown check $check"; exit 2 ;;
esac
