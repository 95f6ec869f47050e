#!/usr/bin/env bash
# Bad input end to end: one tree holding every kind of damage next to a real failure. Each
# problem must be a diagnostic, the real failure must still be found, the JSON must stay valid
# UTF-8 and no escape sequence from a log may reach the text report.
set -uo pipefail
megatriage=$1 fixtures=$2 json_check=$3 json_get=$4
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
logs="$tmp/job/logs"
mkdir -p "$logs/sub"
# The real failure (slurm-a1: IndexError on rank 2) must survive everything below.
cp "$fixtures/slurm-a1-exception-peer-reset/logs/"* "$logs/"

head -c 3000 <(gzip -c "$fixtures/megatron-none-1gpu/logs/megatron-4730.out") >"$logs/truncated.out.gz"
printf '\x28\xb5\x2f\xfd garbage that is not a zstd frame' >"$logs/corrupt.err.zst"
printf 'plain text in a .gz name\n' >"$logs/plain.err.gz"
head -c 65536 /dev/urandom >"$logs/core.1234"
: >"$logs/empty.err"
printf 'line one\r\nline two\r\n' >"$logs/crlf.err"
printf 'epoch 1 10%%\repoch 1 50%%\repoch 1 100%%\n' >"$logs/progress.out"
{ printf 'before\n'; head -c 3000000 /dev/zero | tr '\0' 'x'; printf '\nafter\n'; } >"$logs/longline.out"
# A crashed writer can leave NUL runs (preallocated blocks) inside ordinary text.
{ for i in $(seq 1 200); do echo "iteration $i | lm loss: 2.0 | consumed samples: $((i * 32))"; done
  printf 'Traceback (most recent call last):\n  File "/ws/x.py", line 1, in f\n\0\0\0\0\0\0\0\0'
  printf 'KeyError: 0\n'; } >"$logs/nul.out"
printf 'Traceback (most recent call last):\n  File "/ws/\xff\xfe.py", line 1, in f\nValueError: bad \xc3 byte and \x1b]0;pwned\x07 title \x1b[2J clear\n' >"$logs/sub/weird.err"
ln -s .. "$logs/sub/loop"
ln -s /etc/passwd "$logs/outside.err"
mkfifo "$logs/fifo.err"
printf 'secret\n' >"$logs/unreadable.err"
chmod 000 "$logs/unreadable.err"

rc=0
(cd "$tmp/job" && timeout 60 "$megatriage" --format json logs) >"$tmp/r.json" 2>"$tmp/err" || rc=$?
[[ $rc -eq 1 ]] || { echo "FAIL exit code $rc, want 1 (failure found)"; cat "$tmp/err"; fail=1; }
"$json_check" --valid "$tmp/r.json" || { echo "FAIL JSON report is not valid UTF-8 JSON"; fail=1; }
[[ $("$json_get" "$tmp/r.json" /root_cause/file) == logs/gpt-tiny-25.err ]] || { echo "FAIL the real root cause was not found"; fail=1; }
want=(read.truncated-gzip read.corrupt-zstd read.binary-file read.empty-file split.line-too-long
      split.nul-bytes extract.invalid-utf8 discover.symlink-loop discover.symlink-outside discover.special-file)
# root can read a mode-000 file, so EACCES is only observable as another user.
[[ $(id -u) -ne 0 ]] && want+=(discover.unreadable)
for code in "${want[@]}"; do
  "$json_get" "$tmp/r.json" "/diagnostics/[code=$code]" >/dev/null || { echo "FAIL no diagnostic $code"; fail=1; }
done
grep -q 'secret' "$tmp/r.json" && [[ $(id -u) -ne 0 ]] && { echo "FAIL unreadable content leaked"; fail=1; }
grep -q 'root:x:0' "$tmp/r.json" && { echo "FAIL followed a symlink outside the tree"; fail=1; }
"$json_get" "$tmp/r.json" '/files/[path=logs/crlf.err]' >/dev/null || { echo "FAIL CRLF file not listed"; fail=1; }

rc=0
(cd "$tmp/job" && timeout 60 "$megatriage" --color always logs) >"$tmp/r.txt" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || { echo "FAIL text exit code $rc"; fail=1; }
# Our own colour codes are SGR (ESC [ ... m); anything else would come from a log.
if LC_ALL=C grep -a -P '\x1b(?!\[[0-9;]*m)' "$tmp/r.txt" >/dev/null; then
  echo "FAIL a terminal escape from the logs reached the text report"; fail=1
fi
[[ $fail -eq 0 ]] && echo "bad input: all checks passed"
exit $fail
