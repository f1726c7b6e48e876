#!/usr/bin/env bash
# A real one-node Slurm cluster on this host for tests: `slurm-cluster.sh start DIR` writes
# DIR/slurm.conf for this host, starts munged (its own key and socket under DIR), slurmctld and
# slurmd, and waits until the node is idle; `slurm-cluster.sh stop DIR` stops them. Clients find
# the cluster through SLURM_CONF=DIR/slurm.conf (the start prints that line).
#
# The node has the host's name (the daemons talk over 127.0.0.1, so it need not resolve),
# CPUs=SLURM_TEST_CPUS (default 8: more slots than cores, so many short jobs run at once) and
# SLURM_TEST_GPUS fake GPUs (default 4): a gpu GRES backed by character devices under DIR (made
# with mknod, /dev/null's numbers), so `--gres=gpu:1` allocates one and the job's
# CUDA_VISIBLE_DEVICES is set as on a GPU node (without mknod: a count, and no
# CUDA_VISIBLE_DEVICES). Partitions debug (default) and gpu. No accounting, no cgroups
# (task/none, proctrack/linuxproc), KillWait=2. The daemons run as the current user (root in CI;
# slurmd can only start jobs of other users as root). Ports: SLURM_TEST_PORT for slurmctld and
# the next one for slurmd, default the first free pair from 16817, so it runs beside a real
# cluster's daemons. Needs slurmctld, slurmd, sinfo and munged (Debian: slurmctld, slurmd,
# slurm-client, munge). Logs: DIR/slurmctld.log, DIR/slurmd.log, DIR/munge/munged.log.
set -euo pipefail

usage() { echo "usage: $0 start|stop|status DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)

port_in_use() {  # listening TCP port (IPv4 or IPv6), from /proc (no ss/netstat needed)
  local hex
  hex=$(printf '%04X' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: by the clock (a command may take a while)
  local end=$((SECONDS + $1)) what=$2; shift 2
  while ((SECONDS < end)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "slurm-cluster: $what did not happen within $1s" >&2
  return 1
}

stop_pidfile() {  # stop_pidfile FILE NAME: SIGTERM, wait, then SIGKILL
  local f=$1 pid i
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

node_state() { SLURM_CONF="$dir/slurm.conf" timeout 5 sinfo -h -N -o '%T' 2>/dev/null | head -n1; }
# A daemon that gave up (a port taken by another cluster started at the same moment).
daemon_failed() { grep -qE "fatal:|Unable to bind" "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null; }
node_idle() { [ "$(node_state)" = idle ]; }

write_conf() {  # uses host, cpus, port, fake_gpus
  cat > "$dir/slurm.conf" <<CONF
# A one-node test cluster (tests/support/slurm/slurm-cluster.sh).
ClusterName=mskbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=2
MinJobAge=5
InactiveLimit=0
MessageTimeout=10
SlurmctldTimeout=30
SlurmdTimeout=30
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 $fake_gpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$host MaxTime=INFINITE State=UP
CONF
}

start() {
  for p in slurmctld slurmd munged sinfo; do
    command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || { echo "slurm-cluster: $p not found (Debian: slurmctld, slurmd, slurm-client, munge)" >&2; exit 1; }
  done
  export PATH="$PATH:/usr/sbin:/sbin"
  if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    echo "slurm-cluster: already running in $dir" >&2; exit 1
  fi
  local host cpus gpus port
  host=$(hostname -s)
  cpus=${SLURM_TEST_CPUS:-8}
  gpus=${SLURM_TEST_GPUS:-4}
  port=${SLURM_TEST_PORT:-}
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/dev"
  chmod 700 "$dir/munge"
  # munge: a key of our own and a socket under DIR (no system munged needed).
  if [ ! -s "$dir/munge/munge.key" ]; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge/munge.key"
  fi
  local fake_gpus=""
  if [ "$gpus" -gt 0 ]; then
    fake_gpus="Gres=gpu:$gpus"
    # slurmd accepts only character or block devices as a GPU's File.
    local made=1
    for ((i = 0; i < gpus; ++i)); do
      [ -c "$dir/dev/gpu$i" ] || mknod "$dir/dev/gpu$i" c 1 3 2>/dev/null || made=0
    done
    if [ "$made" = 1 ]; then
      echo "NodeName=$host Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]" > "$dir/gres.conf"
    else
      echo "NodeName=$host Name=gpu Count=$gpus" > "$dir/gres.conf"
    fi
  else
    : > "$dir/gres.conf"
  fi
  export SLURM_CONF="$dir/slurm.conf"
  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" ||
    { echo "slurm-cluster: munged did not start: $(tail -n 3 "$dir/munge/munged.log" 2>/dev/null)" >&2; exit 1; }
  wait_for 10 "munged's socket" test -S "$dir/munge/munge.socket" || { stop; exit 1; }
  # Free ports from a random start; a pair another cluster took in the meantime: the next one.
  local attempt start=$((16817 + 2 * (RANDOM % 500)))
  for attempt in 1 2 3 4 5; do
    if [ -z "${SLURM_TEST_PORT:-}" ]; then
      port=$start
      while port_in_use "$port" || port_in_use $((port + 1)); do port=$((port + 2)); done
    fi
    write_conf
    rm -f "$dir/slurmctld.log" "$dir/slurmd.log"
    slurmctld -f "$dir/slurm.conf" -i ||
      { echo "slurm-cluster: slurmctld did not start: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null)" >&2; stop; exit 1; }
    slurmd -f "$dir/slurm.conf" ||
      { echo "slurm-cluster: slurmd did not start: $(tail -n 3 "$dir/slurmd.log" 2>/dev/null)" >&2; stop; exit 1; }
    local end=$((SECONDS + 60))
    while ((SECONDS < end)) && ! node_idle && ! daemon_failed; do sleep 0.2; done
    if node_idle; then
      echo "SLURM_CONF=$dir/slurm.conf"
      return 0
    fi
    if ! daemon_failed || [ -n "${SLURM_TEST_PORT:-}" ]; then break; fi
    stop_pidfile "$dir/slurmd.pid"
    stop_pidfile "$dir/slurmctld.pid"
    start=$((port + 2))
  done
  echo "slurm-cluster: node $host not idle (state '$(node_state)'); slurmctld: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null);" \
    "slurmd: $(tail -n 3 "$dir/slurmd.log" 2>/dev/null)" >&2
  stop
  exit 1
}

stop() {
  if [ -f "$dir/slurm.conf" ]; then
    SLURM_CONF="$dir/slurm.conf" scancel --quiet --user="$(id -un)" 2>/dev/null || true
  fi
  stop_pidfile "$dir/slurmd.pid"
  stop_pidfile "$dir/slurmctld.pid"
  stop_pidfile "$dir/munge/munged.pid"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) node_state ;;
  *) usage ;;
esac
