# Shared by the bad-input cases: each case builds a job tree holding the real failure of fixture
# slurm-a1 (IndexError on rank 2, logs/gpt-tiny-25.err) next to one kind of damage, runs
# megatriage and asserts the exit code, the diagnostic code and that the real failure was still
# found (the rest of the tree was triaged).
# Assertions read the report's fields through json_get (tests/e2e/json_get.cc), not its layout.
# Usage in a case: source "$(dirname "$0")/lib.sh" "$@"; setup_tree; ...; finish
set -uo pipefail
megatriage=$1 fixtures=$2 json_check=$3 json_get=$4
tmp=$(mktemp -d)
chmod 755 "$tmp"   # the non-root re-runs must reach it
[[ -n "${KEEP:-}" ]] && echo "kept $tmp" || trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
job="$tmp/job"
logs="$job/logs"
case_name=$(basename "$0" .sh)

setup_tree() {
  mkdir -p "$logs"
  cp "$fixtures/slurm-a1-exception-peer-reset/logs/"* "$logs/"
}

bad() { echo "FAIL [$case_name] $*"; fail=1; }

# run [ARGS...]: JSON report of the tree (default argument: logs) into $tmp/r.json; sets $rc.
# A run over 120 s (a hang on a FIFO, a loop) is a failure.
run() {
  rc=0
  (cd "$job" && timeout 120 "$megatriage" --format json "$@") >"$tmp/r.json" 2>"$tmp/err" || rc=$?
  [[ $rc -ne 124 ]] || bad "megatriage did not finish within 120 s: $*"
}
# run_as_nobody [ARGS...]: the same as user nobody (CI runs as root, which reads mode-000 files).
can_run_as_nobody() {
  [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null &&
    setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$megatriage"
}
run_as_nobody() {
  rc=0
  (cd "$job" && timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups \
     "$megatriage" --format json "$@") >"$tmp/r.json" 2>"$tmp/err" || rc=$?
  [[ $rc -ne 124 ]] || bad "megatriage did not finish within 120 s: $*"
}

# get PATH: the values at PATH in the report, one a line (see json_get.cc for PATH); fails when
# there is none. has PATH: whether there is one.
get() { "$json_get" "$tmp/r.json" "$1"; }
has() { get "$1" >/dev/null; }
expect_rc() { [[ $rc -eq $1 ]] || { bad "exit code $rc, want $1"; head -5 "$tmp/err"; }; }
expect_code() { has "/diagnostics/[code=$1]" || bad "no diagnostic $1"; }
expect_no_code() {
  has "/diagnostics/[code=$1]" && bad "unexpected diagnostic $1"
  return 0
}
# expect_message CODE TEXT: the diagnostic's message carries TEXT (a figure, a position).
expect_message() {
  get "/diagnostics/[code=$1]/message" | grep -qF -- "$2" ||
    bad "diagnostic $1 does not mention '$2'"
}
expect_valid_json() { "$json_check" --valid "$tmp/r.json" || bad "report is not valid UTF-8 JSON"; }
expect_root() {
  [[ $(get /root_cause/file) == "${1:-logs/gpt-tiny-25.err}" ]] || bad "root cause ${1:-logs/gpt-tiny-25.err} not found"
}
# expect_category CATEGORY: the root cause's category.
expect_category() { [[ $(get /root_cause/category) == "$1" ]] || bad "root cause category is not $1"; }
expect_listed() { has "/files/[path=$1]" || bad "$1 not in files"; }
expect_not_listed() { has "/files/[path=$1]" && bad "$1 was read"; return 0; }
# expect_file_field PATH KEY VALUE: the files entry of PATH has KEY equal to VALUE.
expect_file_field() { [[ $(get "/files/[path=$1]/$2") == "$3" ]] || bad "files entry $1: $2 is not $3"; }

finish() {
  [[ $fail -eq 0 ]] && echo "bad input [$case_name]: all checks passed"
  exit $fail
}
