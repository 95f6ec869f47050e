#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets from fixtures/ and rules/ into OUT/<target>/.
# Usage: tests/fuzz/seed.sh OUT. Deterministic; small inputs (libFuzzer prefers them).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
mkdir -p "$out"/{fuzz_file,fuzz_timestamp,fuzz_prefix,fuzz_traceback,fuzz_rules,fuzz_config}
max=32768
n=0
# fuzz_file: first byte = mode (compression index; +8 = small caps), then the file's bytes.
while IFS= read -r -d '' f; do
  n=$((n + 1))
  magic=$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')
  case $magic in
    1f8b*) mode=1 ;; 425a68*) mode=2 ;; fd377a58) mode=3 ;; 28b52ffd) mode=4 ;; *) mode=0 ;;
  esac
  if [[ $mode -eq 0 ]]; then
    { printf "\\x0$mode"; head -c $max "$f"; } >"$out/fuzz_file/seed-$n"
    { printf '\x08'; head -c 4096 "$f"; } >"$out/fuzz_file/seed-$n-small"
    # The same through a pty (CRLF line ends), which the splitter's buffer pass takes apart.
    if [[ $((n % 4)) -eq 0 ]]; then { printf '\x08'; head -c 4096 "$f" | sed 's/$/\r/'; } >"$out/fuzz_file/seed-$n-crlf"; fi
    { printf '\x00'; head -c $max "$f"; } >"$out/fuzz_traceback/seed-$n"
    { printf '\x61'; head -c 4096 "$f"; } >"$out/fuzz_traceback/seed-$n-small"
    head -c $max "$f" >"$out/fuzz_config/seed-$n"
  elif [[ $(stat -c %s "$f") -le $max ]]; then
    { printf "\\x0$mode"; cat "$f"; } >"$out/fuzz_file/seed-$n"
  fi
done < <(find "$root/fixtures" -type f ! -name '*.md' ! -name '*.json' -print0 | sort -z)
# Line-level targets: a deterministic sample of distinct lines.
find "$root/fixtures" -type f ! -name '*.json' -print0 | sort -z |
  xargs -0 cat 2>/dev/null | LC_ALL=C grep -a -v '^$' | LC_ALL=C sort -u |
  awk 'NR % 7 == 0' | head -n 1500 >"$out/lines.txt" || true
i=0
while IFS= read -r line; do
  i=$((i + 1))
  printf '%s' "$line" >"$out/fuzz_timestamp/line-$i"
  printf '%s' "$line" >"$out/fuzz_prefix/line-$i"
done <"$out/lines.txt"
rm -f "$out/lines.txt"
# Shapes no fixture holds: a journal's head on every line, JSON records (one with a traceback
# escaped in a member, as logger.exception() through a JSON formatter prints it).
printf '\x08Nov 29 10:01:32 node012 python3[2301234]: Traceback (most recent call last):\nNov  9 10:01:33 node012 python3[2301235]:   File "/w/t.py", line 3, in f\nNov 29 10:01:32 node012 python3[2301234]: KeyError: 1\n' >"$out/fuzz_file/seed-journal"
printf '\x08{"time": "2026-11-29T10:01:32.594Z", "level": "INFO", "message": "step 1"}\n{"time": "2026-11-29T10:01:33.000Z", "level": "ERROR", "message": "failed", "exc_info": "Traceback (most recent call last):\\n  File \\"/w/t.py\\", line 3, in f\\ntorch.OutOfMemoryError: CUDA out of memory. \\u2014"}\n' >"$out/fuzz_file/seed-json"
printf '\x08{"log":"Traceback (most recent call last):\\n","stream":"stderr","time":"2026-11-29T10:01:32.1Z"}\n{"log":"  File \\"/w/t.py\\", line 3, in f\\n","stream":"stderr","time":"2026-11-29T10:01:32.2Z"}\n{"log":"KeyError: \\u0027x\\u0027\\n","stream":"stderr","time":"2026-11-29T10:01:32.3Z"}\n' >"$out/fuzz_file/seed-docker"
printf '\x08---\nOutOfMemoryError                          Traceback (most recent call last)\nCell In[7], line 3\n      2 b = 1\n----> 3 out = model(batch)\n\nFile ~/w/gpt.py:88, in GPT.forward(self, idx)\n---> 88     x = block(x)\n\nOutOfMemoryError: CUDA out of memory.\n' >"$out/fuzz_file/seed-ipython"
cp "$out/fuzz_file/seed-ipython" "$out/fuzz_traceback/seed-ipython"
printf 'Nov  9 10:01:32.123456 node012 python3[7]: x' >"$out/fuzz_timestamp/line-syslog"
printf '{"level": "INFO", "asctime": "2026-11-29 10:01:32,594", "msg": "x"}' >"$out/fuzz_timestamp/line-json"
for r in "$root"/rules/*.json; do cp "$r" "$out/fuzz_rules/"; done
echo "seed corpora in $out: $(find "$out" -type f | wc -l) inputs" >&2
