#!/usr/bin/env bash
# The text report reads well (issue 18, items 8-14): it follows the width without breaking a
# file:line or a path, folds diagnostics and hides info ones without -v, names the failure in
# the verdict and the figures in the headline, shows raw context lines around the root, and uses
# ASCII outside UTF-8 locales. Structured facts are read from the JSON report.
set -uo pipefail
megatriage=$1 fixtures=$2 json_get=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
export LC_ALL=C.UTF-8
unset COLUMNS
bad() { echo "FAIL $*"; fail=1; }
# A line over the width is fine only as one word too long for any line (a path, a file:line, a
# URL), after at most an indent and a marker or gutter (`-`, `passed`, `> 12 |`).
one_long_word() { local head=${1% *}; [[ $head == "$1" ]] && return 0; (( $(wc -w <<<"$head") <= 3 )); }
run() { "$megatriage" "$@" 2>"$tmp/err"; local rc=$?; [[ $rc -le 1 ]] || { bad "exit $rc: $*"; cat "$tmp/err"; }; }

# Item 8: width. Every file:line of the JSON report (root, frames, symptoms) is found whole in
# the text at 60 and 160 columns, and each line fits the width unless it is one word too long.
cases=(megatron-import-wandb-cascade-pernode public-oom-olmo-ddp-8gpu-logits slurm-a1-exception-peer-reset
       public-import-logicrl-verl-ray-flashattn-undefsym gpu-oom-backward-interleaved slurm-b3-cgroup-oom-kill)
for c in "${cases[@]}"; do
  (cd "$fixtures/$c" && run --format json logs) >"$tmp/r.json"
  {
    echo "$("$json_get" "$tmp/r.json" /root_cause/file):$("$json_get" "$tmp/r.json" /root_cause/line)"
    paste -d: <("$json_get" "$tmp/r.json" '/root_cause/frames/*/path') <("$json_get" "$tmp/r.json" '/root_cause/frames/*/line')
    paste -d: <("$json_get" "$tmp/r.json" '/symptoms/*/first_file') <("$json_get" "$tmp/r.json" '/symptoms/*/first_line')
  } | grep -v '^:*$' >"$tmp/tokens"
  [[ -s "$tmp/tokens" ]] || bad "$c: no file:line in the JSON report"
  for cols in 60 160; do
    (cd "$fixtures/$c" && COLUMNS=$cols run --color never --context 0 logs) >"$tmp/r.txt"
    while IFS= read -r token; do
      grep -qF -- "$token" "$tmp/r.txt" || bad "$c at $cols columns: '$token' is not whole in the text"
    done <"$tmp/tokens"
    n=0 widest=0
    while IFS= read -r l; do
      n=$((n + 1)); (( ${#l} > widest )) && widest=${#l}
      (( ${#l} > cols )) && ! one_long_word "$l" && bad "$c: line $n is ${#l} columns at $cols: $l"
    done <"$tmp/r.txt"
    (( cols == 160 && widest <= 100 )) && bad "$c: at 160 columns no line is wider than 100 (width not followed)"
  done
done
# --width wins over $COLUMNS.
(cd "$fixtures/megatron-import-wandb-cascade-pernode" && COLUMNS=200 run --color never --width 40 logs) >"$tmp/w.txt"
while IFS= read -r l; do
  (( ${#l} > 40 )) && ! one_long_word "$l" && { bad "--width 40: $l"; break; }
done <"$tmp/w.txt"

# Item 9: diagnostics folded by code; info ones only with -v; the JSON keeps them all.
mkdir -p "$tmp/diag/logs"
cp "$fixtures/megatron-import-wandb-cascade-pernode/logs/"* "$tmp/diag/logs/"
for i in $(seq 0 39); do : >"$tmp/diag/logs/task-$i.out"; done             # srun tasks that printed nothing
for i in 0 1 2 3 4; do printf 'x%.0s' {1..300} | gzip -c | head -c 40 >"$tmp/diag/logs/cut-$i.log.gz"; done
(cd "$tmp/diag" && run --format json logs) >"$tmp/d.json"
[[ $("$json_get" "$tmp/d.json" /diagnostic_counts/read.empty-file) -ge 40 ]] || bad "JSON lost empty-file diagnostics"
(cd "$tmp/diag" && run --color never logs) >"$tmp/d.txt"
grep -q "read.empty-file" "$tmp/d.txt" && bad "info diagnostics shown without -v"
grep -q "task-1.out" "$tmp/d.txt" && bad "an empty srun .out is worth a line without -v"
code=$("$json_get" "$tmp/d.json" '/diagnostics/*/code' | grep '^read\.' | grep -v empty-file | sort | uniq -c | sort -rn | head -1)
code=${code##* }
if [[ -n $code ]]; then
  [[ $(grep -c "$code" "$tmp/d.txt") -eq 1 ]] || bad "$code is not folded into one line"
  grep -q "$code 5 files" "$tmp/d.txt" || bad "$code does not say how many files"
fi
(cd "$tmp/diag" && run --color never -v --width 10000 logs) >"$tmp/dv.txt"
grep -Eq "read.empty-file 4[0-9] files" "$tmp/dv.txt" || bad "-v does not show the folded info diagnostics"
grep -q "task-39.out" "$tmp/dv.txt" || bad "-v does not name every file of a folded code"

# Item 10: headlines carry their figures; the verdict names the failure.
hl() { (cd "$fixtures/$1" && run --format json logs) >"$tmp/h.json"; "$json_get" "$tmp/h.json" /root_cause/headline; }
[[ $(hl megatron-import-wandb-cascade-pernode) == "No module named 'wandb' on rank 1" ]] || bad "wandb headline: $(hl megatron-import-wandb-cascade-pernode)"
[[ $(hl megatron-shape-tp-heads-pernode) == "num_attention_heads 3 is not a multiple of TP 2 on rank 0" ]] ||
  bad "TP headline: $(hl megatron-shape-tp-heads-pernode)"
h=$(hl slurm-e-time-limit-hang)
[[ $h == *node1* || $h == *rank* ]] && bad "a time limit is job-wide, yet the headline names where: $h"
for d in "$fixtures"/*/; do
  [[ -d $d/logs ]] || continue
  (cd "$d" && run --format json logs) >"$tmp/a.json"
  [[ $("$json_get" "$tmp/a.json" /verdict) == failure ]] || continue
  h=$("$json_get" "$tmp/a.json" /root_cause/headline)
  [[ $h == *"unknown rank"* ]] && bad "$(basename "$d"): headline says 'unknown rank': $h"
  [[ $("$json_get" "$tmp/a.json" /root_cause/failure_name) == UNKNOWN ]] && bad "$(basename "$d"): verdict UNKNOWN"
  # Item 12: no negative delay a second-granularity stamp made up.
  while IFS= read -r delay; do
    [[ $delay == null ]] && continue
    awk -v d="$delay" 'BEGIN { exit !(d < 0 && d > -1) }' && bad "$(basename "$d"): delay $delay s inside a second"
  done < <("$json_get" "$tmp/a.json" '/symptoms/*/delay_seconds')
done
(cd "$fixtures/slurm-a1-exception-peer-reset" && run --color never logs) >"$tmp/v.txt"
head -1 "$tmp/v.txt" | grep -q "FAILURE — IndexError" || bad "verdict does not name the exception: $(head -1 "$tmp/v.txt")"

# Item 12: a chained traceback is one failure: its later blocks are its chain, not something
# that followed (with and without rank prefixes, both chain separators).
mkdir -p "$tmp/chain/logs"
chain='Traceback (most recent call last):
  File "/w/a.py", line 3, in f
    x = d["k"]
KeyError: '"'k'"'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/w/a.py", line 9, in <module>
    f()
ValueError: bad config'
printf '%s\n' "$chain" >"$tmp/chain/logs/plain.err"
printf '%s\n' "${chain//direct cause of the following exception:/During handling of the above exception, another exception occurred:}" |
  sed 's/^/[rank0]: /' >"$tmp/chain/logs/prefixed.err"
for f in plain prefixed; do
  (cd "$tmp/chain" && run --format json "logs/$f.err") >"$tmp/ch.json"
  [[ $("$json_get" "$tmp/ch.json" '/root_cause/chain/*' | wc -l) -eq 2 ]] || bad "$f chain: not one event of two blocks"
  "$json_get" "$tmp/ch.json" '/symptoms/*' >/dev/null && bad "$f chain: a block became a symptom"
done

# Item 12: per-host grouping is filled where the logs tie ranks to hosts.
hosts=0
for d in "$fixtures"/*/; do
  [[ -d $d/logs ]] || continue
  (cd "$d" && run --format json logs) >"$tmp/a.json"
  "$json_get" "$tmp/a.json" '/symptoms/*/hosts/*' >/dev/null && hosts=$((hosts + 1))
done
(( hosts > 3 )) || bad "only $hosts fixtures have a symptom with hosts (3 before the hosts of ranks and tasks were used)"

# Item 13: --context N raw lines around the root, escaped, in text and JSON.
c=megatron-shape-tp-heads-pernode
(cd "$fixtures/$c" && run --format json logs) >"$tmp/c.json"
root_line=$("$json_get" "$tmp/c.json" /root_cause/line)
[[ $("$json_get" "$tmp/c.json" '/root_cause/context/*/line' | wc -l) -eq 7 ]] || bad "default context is not 3 lines each side"
"$json_get" "$tmp/c.json" '/root_cause/context/*/line' | grep -qx "$root_line" || bad "context lacks the root's line"
(cd "$fixtures/$c" && run --format json --context 1 logs) >"$tmp/c1.json"
[[ $("$json_get" "$tmp/c1.json" '/root_cause/context/*/line' | tr '\n' ' ') == "$((root_line - 1)) $root_line $((root_line + 1)) " ]] ||
  bad "--context 1 lines: $("$json_get" "$tmp/c1.json" '/root_cause/context/*/line' | tr '\n' ' ')"
(cd "$fixtures/$c" && run --format json --context 0 logs) >"$tmp/c0.json"
"$json_get" "$tmp/c0.json" '/root_cause/context/*' >/dev/null && bad "--context 0 still has context"
(cd "$fixtures/$c" && run --color never logs) | grep -q "^  > *$root_line | Traceback" || bad "text context does not mark the root's line"
mkdir -p "$tmp/esc/logs"
printf 'step 1 \x1b[31mred\x1b[0m \x1b]0;title\x07\nTraceback (most recent call last):\n  File "/w/t.py", line 1, in <module>\nValueError: bad \x1b[2J\n' >"$tmp/esc/logs/r.err"
(cd "$tmp/esc" && run --color never logs) >"$tmp/e.txt"
grep -q $'\x1b' "$tmp/e.txt" && bad "context lets a terminal escape through"
grep -q "step 1 red" "$tmp/e.txt" || bad "context line before the root missing"

# Deep in a big plain file the context is read from a window around the root's offset: the same
# lines, numbered the same, as from its compressed copy (read from the start).
mkdir -p "$tmp/big/plain/logs" "$tmp/big/gz/logs"
{
  awk 'BEGIN { for (i = 0; i < 40000; i++) { printf "iteration %d loss 0.%04d %s", i, i % 9973, substr("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 1, i % 41); if (i % 7 == 0) printf "\r progress"; printf "\n" } }'
  printf 'Traceback (most recent call last):\n  File "/w/t.py", line 1, in <module>\nValueError: deep failure\n'
  for i in 0 1 2 3 4; do echo "after $i"; done
} >"$tmp/big/plain/logs/r.err"
gzip -c "$tmp/big/plain/logs/r.err" >"$tmp/big/gz/logs/r.err"
for k in plain gz; do (cd "$tmp/big/$k" && run --format json --context 4 logs) >"$tmp/big/$k.json"; done
[[ $("$json_get" "$tmp/big/plain.json" /root_cause/line) == 40001 ]] || bad "big file: root line"
[[ $("$json_get" "$tmp/big/plain.json" '/root_cause/context/*/line' | tr '\n' ' ') == "39997 39998 39999 40000 40001 40002 40003 40004 40005 " ]] ||
  bad "big file: context lines $("$json_get" "$tmp/big/plain.json" '/root_cause/context/*/line' | tr '\n' ' ')"
cmp -s <("$json_get" "$tmp/big/plain.json" '/root_cause/context') <("$json_get" "$tmp/big/gz.json" '/root_cause/context') ||
  bad "big file: the window's context differs from the compressed copy's"

# Item 14: ASCII glyphs outside a UTF-8 locale.
c=megatron-import-wandb-cascade-pernode
(cd "$fixtures/$c" && LC_ALL=C LANG=C run --color never logs) >"$tmp/ascii.txt"
LC_ALL=C grep -q $'[\x80-\xff]' "$tmp/ascii.txt" && bad "LANG=C report has non-ASCII bytes: $(LC_ALL=C grep -m1 $'[\x80-\xff]' "$tmp/ascii.txt")"
head -1 "$tmp/ascii.txt" | grep -q "FAILURE - IMPORT" || bad "LANG=C verdict: $(head -1 "$tmp/ascii.txt")"
(cd "$fixtures/$c" && LC_ALL=C.UTF-8 LANG=C run --color never logs) >"$tmp/utf8.txt"
head -1 "$tmp/utf8.txt" | grep -q "FAILURE — IMPORT" || bad "LC_ALL=C.UTF-8 verdict: $(head -1 "$tmp/utf8.txt")"

exit $fail
