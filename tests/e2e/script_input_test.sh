#!/usr/bin/env bash
# Batch scripts that are not scripts: `megatriage lint` and `megatriage --script` given a
# directory, a FIFO, a binary, an empty, an unreadable file and a log each report the reader's
# diagnostic and go on (lint: the other script is still linted, exit 2; triage: the logs are
# still triaged, exit 1); nothing blocks or aborts. Triage attaches a script beside logs/ only
# when its #SBATCH output names fit the logs, and says why it left one out.
# Usage: script_input_test.sh <megatriage> <repo>/fixtures <json_get>
set -uo pipefail
megatriage=$(realpath "$1") fixtures=$(realpath "$2") json_get=$(realpath "$3")
tmp=$(mktemp -d)
chmod 755 "$tmp"  # the runs as user nobody must reach it
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

job="$tmp/job"
mkdir -p "$job/logs" "$job/scripts.d"
cp "$fixtures/slurm-a1-exception-peer-reset/logs/"* "$job/logs/"
cp "$fixtures/lint/runbook-template.sbatch" "$job/good.sbatch"
mkfifo "$job/fifo.sbatch"
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000>\000' >"$job/core.sbatch"
: >"$job/empty.sbatch"
cp "$job/logs/gpt-tiny-25.err" "$job/log.sbatch"
printf '#!/bin/bash\nsrun hostname\n' >"$job/locked.sbatch"
chmod 000 "$job/locked.sbatch"
chmod -R a+rX "$job" 2>/dev/null; chmod 000 "$job/locked.sbatch"

# Root reads mode-000 files: the unreadable case runs as user nobody, or is skipped (said so).
as_nobody=()
if [[ $(id -u) -eq 0 ]]; then
  if command -v setpriv >/dev/null &&
     setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$megatriage"; then
    as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  else
    echo "SKIP unreadable: running as root and cannot run $megatriage as nobody"
  fi
fi

# path:code pairs; `locked.sbatch` needs a user that may not read it.
cases=("scripts.d:read.directory" "fifo.sbatch:discover.special-file" "core.sbatch:read.binary-file"
       "empty.sbatch:read.empty-file" "log.sbatch:lint.not-a-script" "missing.sbatch:read.open-failed")
[[ $(id -u) -ne 0 || ${#as_nobody[@]} -gt 0 ]] && cases+=("locked.sbatch:discover.unreadable")

for c in "${cases[@]}"; do
  path=${c%%:*} code=${c#*:}
  # lint: the good script is linted, the bad path is one diagnostic line `megatriage: PATH: CODE: ...`.
  rc=0
  (cd "$job" && timeout 60 "${as_nobody[@]}" "$megatriage" lint --no-filesystem good.sbatch "$path") \
    >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 2 ]] || bad "lint $path: exit $rc, want 2"
  got=$(sed -nE "s|^megatriage: $path: ([a-z]+\.[a-z-]+): .*|\1|p" "$tmp/err")
  [[ $got == "$code" ]] || { bad "lint $path: diagnostic [$got], want [$code]"; cat "$tmp/err"; }
  [[ $(tail -n1 "$tmp/out") == "1 script, 0 findings, 1 path not linted" ]] ||
    bad "lint $path: summary [$(tail -n1 "$tmp/out")]"

  # triage --script: the logs are triaged; the script is a diagnostic and not listed.
  rc=0
  (cd "$job" && timeout 60 "${as_nobody[@]}" "$megatriage" --format json --script "$path" logs) \
    >"$tmp/r.json" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 1 ]] || { bad "--script $path: exit $rc, want 1"; head -3 "$tmp/err"; }
  "$json_get" "$tmp/r.json" "/diagnostics/[code=$code]/path" | grep -qx -- "$path" ||
    bad "--script $path: no $code diagnostic for it"
  [[ $("$json_get" "$tmp/r.json" /root_cause/file) == logs/gpt-tiny-25.err ]] || bad "--script $path: root cause lost"
  "$json_get" "$tmp/r.json" "/scripts/*" >/dev/null && bad "--script $path: listed among the scripts"
done

# lint of a path alone that is no script: exit 2 and the message, nothing else on stdout.
rc=0; (cd "$job" && "$megatriage" lint log.sbatch) >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 && $(cat "$tmp/out") == "0 scripts, 0 findings, 1 path not linted" ]] ||
  bad "lint of a log alone: exit $rc, out [$(cat "$tmp/out")]"

# Discovery: of two scripts beside logs/, only the one whose output names fit the logs
# (gpt-tiny-25.err) is attached; the other is named in an info diagnostic.
disc="$tmp/disc"
mkdir -p "$disc/logs"
cp "$fixtures/slurm-a1-exception-peer-reset/logs/"* "$disc/logs/"
printf '#!/bin/bash\n#SBATCH --job-name=gpt-tiny\n#SBATCH --output=logs/%%x-%%j.out\n#SBATCH --error=logs/%%x-%%j.err\nsrun torchrun train.py\n' >"$disc/train.sbatch"
printf '#!/bin/bash\n#SBATCH --job-name=eval\n#SBATCH --output=logs/%%x-%%j.out\nsrun python eval.py\n' >"$disc/eval.sbatch"
rc=0; (cd "$disc" && "$megatriage" --format json logs) >"$tmp/r.json" 2>"$tmp/err" || rc=$?
[[ $rc -eq 1 ]] || bad "discovery: exit $rc, want 1"
[[ $("$json_get" "$tmp/r.json" "/scripts/*") == train.sbatch ]] ||
  bad "discovery: scripts [$("$json_get" "$tmp/r.json" "/scripts/*" | tr '\n' ' ')], want [train.sbatch]"
[[ $("$json_get" "$tmp/r.json" "/diagnostics/[code=lint.script-not-attached]/path") == eval.sbatch ]] ||
  bad "discovery: no lint.script-not-attached for eval.sbatch"
[[ $("$json_get" "$tmp/r.json" "/diagnostics/[code=lint.script-not-attached]/severity") == info ]] ||
  bad "discovery: lint.script-not-attached is not info"
"$json_get" "$tmp/r.json" "/root_cause/checks/[id=lint.bare-torchrun]" >/dev/null ||
  bad "discovery: the attached script's finding is not among the checks"

[[ $fail -eq 0 ]] && echo "script input: all checks passed"
exit $fail
