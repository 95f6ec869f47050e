# What the SLURM tests share (sourced by postmortem_test.sh and partial_test.sh): a root check,
# a temporary base folder that holds SLURM's state and the jobs, the cleanup that stops SLURM
# and, when the test failed, shows the daemons' last lines; README.md's snippets, and helpers to
# run as the job's user, wait and read JSON reports.
# Usage: source lib.sh; slurm_test_setup NAME MEGATRIAGE SOURCE_DIR
#   sets MT, SRC, BASE, STATE (SLURM's), ADMIN, HOOKS, JOBS (made), creates the user mtuser.

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "[$TEST_NAME-test $((SECONDS - T0))s] $*"; }

slurm_test_setup() {  # slurm_test_setup NAME MEGATRIAGE SOURCE_DIR
  TEST_NAME=$1
  MT=$(realpath "$2")
  SRC=$(realpath "$3")
  T0=$SECONDS
  [[ $(id -u) == 0 ]] || fail "must run as root (it starts SLURM's daemons)"
  BASE=$(mktemp -d "/tmp/mt-$TEST_NAME.XXXXXX")
  chmod 755 "$BASE"
  STATE=$BASE/slurm ADMIN=$BASE/admin HOOKS=$BASE/hooks JOBS=$BASE/jobs
  trap slurm_test_cleanup EXIT
  mkdir -p "$ADMIN" "$HOOKS" "$JOBS"
  id mtuser >/dev/null 2>&1 || useradd -m mtuser
}

# On failure: the daemons' last lines, the post-mortem reports and the jobs' own logs. Always:
# SLURM stopped and its state and the jobs removed.
slurm_test_cleanup() {
  local rc=$?
  if (( rc != 0 )); then
    tail -n 20 "$STATE"/log/slurmctld.log >&2 || true
    tail -n 20 "$STATE"/log/slurmd*.log >&2 || true
    for f in "$ADMIN"/*.txt "$JOBS"/*/logs/*; do [[ -e $f ]] && { echo "== $f" >&2; head -n 30 "$f" >&2; }; done
  fi
  "$SRC/tools/local-slurm/stop.sh" "$STATE" --wipe >/dev/null 2>&1 || true
  rm -rf "$BASE"
  note "done (rc $rc)"
}

start_slurm() {  # start_slurm [VAR=VALUE...]: tools/local-slurm with these settings, its env here
  note "starting SLURM in $STATE"
  if ! env "$@" "$SRC/tools/local-slurm/start.sh" "$STATE" > "$BASE/env" 2> "$BASE/start.log"; then
    cat "$BASE/start.log" >&2
    fail "local SLURM did not start"
  fi
  eval "$(cat "$BASE/env")"
}

snippet() {  # snippet NAME: the code block after README.md's `<!-- snippet: NAME -->`
  awk -v n="$1" '$0 == "<!-- snippet: " n " -->" {f = 1; next}
                 f && /^```/ {if (inside) exit; inside = 1; next}
                 f && inside {print}' "$SRC/README.md"
}

as_user() {  # as_user DIR COMMAND: a login-less shell of mtuser in DIR, megatriage on PATH
  runuser -u mtuser -- env -i PATH="$(dirname "$MT"):/usr/bin:/bin" HOME=/home/mtuser \
    SLURM_CONF="$SLURM_CONF" bash -c "cd '$1' && $2"
}

wait_for() {  # wait_for SECONDS DESC CMD...
  local secs=$1 desc=$2 end=$((SECONDS + $1)); shift 2
  until "$@" >/dev/null 2>&1; do
    (( SECONDS < end )) || fail "timed out after ${secs}s waiting for $desc"
    sleep 0.5
  done
}

json_get() {  # json_get FILE EXPR  (EXPR in Python over d)
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

expect() {  # expect FILE EXPR VALUE: on a mismatch, the report's root cause, files and SLURM part
  local got
  got=$(json_get "$1" "$2") || fail "cannot read $1"
  if [[ $got != "$3" ]]; then
    json_get "$1" 'json.dumps({k: d[k] for k in ("root_cause", "files", "slurm") if k in d}, indent=1)' |
      head -c 6000 >&2
    fail "$(basename "$1"): $2 is '$got', expected '$3'"
  fi
}
