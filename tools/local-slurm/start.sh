#!/usr/bin/env bash
# local-slurm/start.sh — bring up a real single-host SLURM cluster (Debian 12,
# SLURM 22.05): munged, MariaDB, slurmdbd (so sacct works), slurmctld and N
# slurmd "nodes" (node1..nodeN, all on 127.0.0.1, one port each). No systemd:
# every daemon is started by this script and its pid written to STATE/run/.
#
# Usage:  sudo start.sh [STATE_DIR]        (default: $LOCAL_SLURM_STATE or /tmp/local-slurm)
#         eval "$(start.sh --env STATE_DIR)"   # only print the environment
# Idempotent: a daemon whose pid file points at a live process is left alone.
# Settings (read on the first start of a state folder, then kept in STATE/settings.env;
# wipe the folder to change them):
#   LOCAL_SLURM_NODES=2          number of slurmd nodes (node1..nodeN)
#   LOCAL_SLURM_CPUS=2           CPUs per node (may exceed the real cores: config_overrides)
#   LOCAL_SLURM_MEM_MB=8192      RealMemory per node (DefMemPerCPU = MEM_MB / CPUS)
#   LOCAL_SLURM_CGROUP=auto      auto|v1|none: v1 = proctrack/cgroup + task/cgroup with
#                                ConstrainRAMSpace (OOM gives state OUT_OF_MEMORY); needs a writable
#                                cgroup-v1 memory hierarchy at /sys/fs/cgroup/memory. none =
#                                proctrack/linuxproc + task/none (no memory enforcement). auto picks v1 if it can.
#   LOCAL_SLURM_UTS=auto         auto|1|0: 1 = each slurmd runs in its own UTS namespace whose
#                                hostname is its node name, so `hostname` in a job says node2
#                                (needs unshare --uts); 0 = every node reports this host's name
#   LOCAL_SLURM_PORT_BASE=16810  slurmctld=BASE, slurmdbd=BASE+1, MariaDB=BASE+2, slurmd i=BASE+10+i
#   LOCAL_SLURM_CLUSTER=local    ClusterName
#   LOCAL_SLURM_EPILOG_SLURMCTLD=/path  optional EpilogSlurmctld (runs on the controller per job)
#   LOCAL_SLURM_EPILOG=/path            optional Epilog (runs on each node per job)
#   LOCAL_SLURM_NO_INSTALL=1     do not apt-get install missing packages
#   LOCAL_SLURM_JOB_PKGS="python3-torch"  Debian packages jobs need (installed with the daemons
#                                when missing; CPU torch 1.13 + gloo on /usr/bin/python3);
#                                set to "" to skip
#   LOCAL_SLURM_NO_HOSTS=1       do not add "127.0.0.1 node1 ..." to /etc/hosts
# Stop with stop.sh STATE_DIR [--wipe] (kills exactly the pids in STATE/run/).
# Run one local cluster per machine at a time (node names and cgroups are shared).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ENV_ONLY=0
if [[ ${1:-} == --env ]]; then ENV_ONLY=1; shift; fi
STATE=${1:-${LOCAL_SLURM_STATE:-/tmp/local-slurm}}
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)

print_env() {
    echo "export SLURM_CONF=$STATE/etc/slurm.conf"
}
if (( ENV_ONLY )); then print_env; exit 0; fi

log() { printf '[local-slurm %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
[[ $(id -u) == 0 ]] || die "run as root (daemons, apt-get and /etc/hosts need it)"
T0=$(date +%s%N)

# ---- settings: first start records them, later starts reuse them ----------
if [[ -f $STATE/settings.env ]]; then
    # shellcheck disable=SC1091
    source "$STATE/settings.env"
else
    NODES=${LOCAL_SLURM_NODES:-2}
    CPUS=${LOCAL_SLURM_CPUS:-2}
    MEM_MB=${LOCAL_SLURM_MEM_MB:-8192}
    CGROUP=${LOCAL_SLURM_CGROUP:-auto}
    if [[ $CGROUP == auto ]]; then
        CGROUP=none
        probe=/sys/fs/cgroup/memory/local-slurm-probe.$$
        if mkdir "$probe" 2>/dev/null; then
            [[ -f $probe/memory.limit_in_bytes ]] && CGROUP=v1
            rmdir "$probe"
        fi
    fi
    UTS=${LOCAL_SLURM_UTS:-auto}
    if [[ $UTS == auto ]]; then
        UTS=0; unshare --uts true 2>/dev/null && UTS=1
    fi
    PORT_BASE=${LOCAL_SLURM_PORT_BASE:-16810}
    CLUSTER=${LOCAL_SLURM_CLUSTER:-local}
    EPILOG_SLURMCTLD=${LOCAL_SLURM_EPILOG_SLURMCTLD:-}
    EPILOG=${LOCAL_SLURM_EPILOG:-}
    DB_PASS=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
    declare -p NODES CPUS MEM_MB CGROUP UTS PORT_BASE CLUSTER EPILOG_SLURMCTLD EPILOG DB_PASS \
        | sed 's/^declare -- //' > "$STATE/settings.env"
    chmod 600 "$STATE/settings.env"
fi
CTLD_PORT=$PORT_BASE; DBD_PORT=$((PORT_BASE + 1)); DB_PORT=$((PORT_BASE + 2))
HOST=$(hostname -s)
NODE_NAMES=$(seq -f 'node%g' 1 "$NODES" | tr '\n' ' '); NODE_NAMES=${NODE_NAMES% }

# ---- packages ---------------------------------------------------------------
PKGS=(munge mariadb-server slurmdbd slurmctld slurmd slurm-client)
# Packages the test jobs use: Debian's CPU torch (gloo) for /usr/bin/python3.
# shellcheck disable=SC2206
PKGS+=(${LOCAL_SLURM_JOB_PKGS-python3-torch})
need_install() {
    local p
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 0
    done
    return 1
}
if need_install; then
    [[ -z ${LOCAL_SLURM_NO_INSTALL:-} ]] || die "packages missing: ${PKGS[*]}"
    log "installing missing packages among ${PKGS[*]} with apt-get"
    # Keep the packages' maintainer scripts from starting system-wide daemons.
    made_policy=0
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d; made_policy=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    install() { apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >>"$STATE/apt.log" 2>&1; }
    # Refresh the package lists if they are empty (fresh image) or stale (install fails).
    compgen -G '/var/lib/apt/lists/*Packages*' >/dev/null || apt-get update -qq >>"$STATE/apt.log" 2>&1
    install || { apt-get update -qq >>"$STATE/apt.log" 2>&1; install; } || apt_rc=$?
    (( made_policy )) && rm -f /usr/sbin/policy-rc.d
    [[ -z ${apt_rc:-} ]] || die "apt-get failed, see $STATE/apt.log"
fi

# ---- helpers ----------------------------------------------------------------
mkdir -p "$STATE"/{etc,run,log,munge/key,munge/sock,db/data,db/run,ctld,spool}
for n in $NODE_NAMES; do mkdir -p "$STATE/spool/$n"; done
chmod 700 "$STATE/munge/key"; chmod 755 "$STATE/munge/sock"
export SLURM_CONF=$STATE/etc/slurm.conf

# alive NAME: true if STATE/run/NAME.pid names a live process (checks its comm too,
# so a recycled pid is never mistaken for our daemon).
alive() {
    local f=$STATE/run/$1.pid pid comm
    [[ -s $f ]] || return 1
    pid=$(<"$f"); comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [[ $comm == "$2" ]]
}
# launch NAME LOGFILE CMD...: run CMD in its own session in the background,
# record its pid (CMD must stay in the foreground: -D / -F flags).
launch() {
    local name=$1 logf=$2; shift 2
    setsid "$@" </dev/null >>"$logf" 2>&1 &
    echo $! > "$STATE/run/$name.pid"
}
# wait_for SECONDS DESC CMD...: poll CMD until it succeeds.
wait_for() {
    local secs=$1 desc=$2 end; shift 2
    end=$(( $(date +%s) + secs ))
    until "$@" >/dev/null 2>&1; do
        (( $(date +%s) < end )) || die "timed out after ${secs}s waiting for $desc (logs: $STATE/log)"
        sleep 0.2
    done
}
render() {  # render TEMPLATE OUT: substitute @VARS@ from the environment
    local t
    t=$(<"$1")
    for v in STATE HOST CLUSTER CTLD_PORT DBD_PORT DB_PORT DB_PASS CPUS MEM_MB MEM_PER_CPU NODES \
             NODE_FIRST_PORT NODE_LAST_PORT NODE_HOSTNAME PROCTRACK TASK_PLUGIN EPILOG_LINES; do
        t=${t//@$v@/${!v}}
    done
    printf '%s\n' "$t" > "$2"
}

# ---- config files (written once; edit them in STATE/etc and restart) -------
NODE_FIRST_PORT=$((PORT_BASE + 11)); NODE_LAST_PORT=$((PORT_BASE + 10 + NODES))
MEM_PER_CPU=$((MEM_MB / CPUS))
# With UTS namespaces each node's hostname is its NodeName (NodeHostname's default).
if (( UTS )); then NODE_HOSTNAME="node[1-$NODES]"; else NODE_HOSTNAME=$HOST; fi
if [[ $CGROUP == v1 ]]; then PROCTRACK=proctrack/cgroup; TASK_PLUGIN=task/cgroup
else PROCTRACK=proctrack/linuxproc; TASK_PLUGIN=task/none; fi
EPILOG_LINES=""
[[ -n $EPILOG_SLURMCTLD ]] && EPILOG_LINES+="EpilogSlurmctld=$EPILOG_SLURMCTLD"$'\n'
[[ -n $EPILOG ]] && EPILOG_LINES+="Epilog=$EPILOG"$'\n'
[[ -f $STATE/etc/slurm.conf ]] || render "$HERE/slurm.conf.in" "$STATE/etc/slurm.conf"
if [[ ! -f $STATE/etc/slurmdbd.conf ]]; then
    render "$HERE/slurmdbd.conf.in" "$STATE/etc/slurmdbd.conf"
    chmod 600 "$STATE/etc/slurmdbd.conf"   # slurmdbd refuses a readable file
fi
if [[ ! -f $STATE/etc/cgroup.conf ]]; then
    if [[ $CGROUP == v1 ]]; then
        printf '%s\n' CgroupPlugin=cgroup/v1 CgroupMountpoint=/sys/fs/cgroup \
            ConstrainRAMSpace=yes ConstrainSwapSpace=no > "$STATE/etc/cgroup.conf"
    else
        echo "CgroupPlugin=autodetect" > "$STATE/etc/cgroup.conf"   # read but unused
    fi
fi

# ---- node names resolve to loopback (jobs use them, e.g. as MASTER_ADDR) ----
if [[ -z ${LOCAL_SLURM_NO_HOSTS:-} ]] && ! grep -q "# local-slurm $STATE\$" /etc/hosts; then
    missing=""
    for n in $NODE_NAMES; do getent hosts "$n" >/dev/null || missing+=" $n"; done
    if [[ -n $missing ]]; then
        echo "127.0.0.1$missing # local-slurm $STATE" >> /etc/hosts \
            || log "warning: could not add$missing to /etc/hosts (node names will not resolve)"
    fi
fi

# ---- munge --------------------------------------------------------------------
SOCK=$STATE/munge/sock/munge.socket
if ! alive munged munged; then
    [[ -f $STATE/munge/key/munge.key ]] || mungekey -c -b 1024 -k "$STATE/munge/key/munge.key"
    rm -f "$SOCK" "$SOCK.lock"
    launch munged "$STATE/log/munged.out" munged -F --force -S "$SOCK" \
        --key-file="$STATE/munge/key/munge.key" --pid-file="$STATE/munge/munged.pid" \
        --log-file="$STATE/log/munged.log" --seed-file="$STATE/munge/seed"
    wait_for 20 munged sh -c "munge -S '$SOCK' -n | unmunge -S '$SOCK'"
    log "munged up"
fi

# ---- MariaDB (own datadir, TCP on 127.0.0.1 only) ------------------------------
DB_SOCK=$STATE/db/run/mysqld.sock
sql() { mariadb --no-defaults --socket="$DB_SOCK" -u root -e "$1"; }
if ! alive mariadbd mariadbd; then
    if [[ ! -d $STATE/db/data/mysql ]]; then
        mariadb-install-db --no-defaults --datadir="$STATE/db/data" --user=root \
            --auth-root-authentication-method=socket --skip-test-db >"$STATE/log/mariadb-install.log" 2>&1 \
            || die "mariadb-install-db failed, see $STATE/log/mariadb-install.log"
    fi
    launch mariadbd "$STATE/log/mariadbd.out" mariadbd --no-defaults --user=root \
        --datadir="$STATE/db/data" --socket="$DB_SOCK" --pid-file="$STATE/db/run/mariadbd.pid" \
        --bind-address=127.0.0.1 --port="$DB_PORT" --skip-name-resolve \
        --log-error="$STATE/log/mariadbd.log" \
        --innodb-buffer-pool-size=256M --innodb-lock-wait-timeout=900
    wait_for 60 mariadbd mariadb-admin --no-defaults --socket="$DB_SOCK" ping
    sql "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$DB_PASS';
         GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
    log "mariadbd up (127.0.0.1:$DB_PORT)"
fi

# ---- slurmdbd, then register the cluster ----------------------------------------
if ! alive slurmdbd slurmdbd; then
    # slurmdbd reads slurmdbd.conf from the directory of $SLURM_CONF.
    launch slurmdbd "$STATE/log/slurmdbd.out" slurmdbd -D
    wait_for 60 slurmdbd sacctmgr -n -P list cluster
    log "slurmdbd up (127.0.0.1:$DBD_PORT)"
fi
if [[ -z $(sacctmgr -n -P list cluster "$CLUSTER" format=cluster) ]]; then
    sacctmgr -i add cluster "$CLUSTER" >/dev/null   # also creates account root + user root
    log "registered cluster $CLUSTER"
fi

# ---- slurmctld ------------------------------------------------------------------
if ! alive slurmctld slurmctld; then
    launch slurmctld "$STATE/log/slurmctld.out" slurmctld -D -i
    wait_for 60 slurmctld scontrol ping
    log "slurmctld up (127.0.0.1:$CTLD_PORT)"
fi

# ---- slurmd, one per node ----------------------------------------------------------
for n in $NODE_NAMES; do
    if ! alive "slurmd-$n" slurmd; then
        if (( UTS )); then
            # unshare execs (no fork), so the recorded pid ends up being slurmd's.
            launch "slurmd-$n" "$STATE/log/slurmd-$n.out" unshare --uts \
                sh -c 'hostname "$0" && exec slurmd -D -N "$0"' "$n"
        else
            launch "slurmd-$n" "$STATE/log/slurmd-$n.out" slurmd -D -N "$n"
        fi
    fi
done
nodes_idle() {  # every node idle (or allocated/mixed: already running jobs)
    local states
    states=$(sinfo -h -N -o '%T' | sort -u)
    [[ -n $states ]] && ! grep -qvE '^(idle|mixed|allocated|completing)$' <<<"$states"
}
wait_for 90 "nodes idle (sinfo)" nodes_idle
log "nodes up: $(sinfo -h -N -o '%N=%T' | tr '\n' ' ')"
ms=$(( ($(date +%s%N) - T0) / 1000000 ))
log "ready in $((ms / 1000)).$(printf %03d $((ms % 1000)))s"
print_env
