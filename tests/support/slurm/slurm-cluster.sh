#!/usr/bin/env bash
# A real one-node Slurm cluster on this host for tests: `slurm-cluster.sh start DIR` writes
# DIR/slurm.conf for this host, starts munged (its own key and socket under DIR), slurmctld and
# slurmd, and waits until the node is idle; `slurm-cluster.sh stop DIR` stops them. Clients find
# the cluster through SLURM_CONF=DIR/slurm.conf (the start prints that line).
#
# The node has the host's name, CPUs=SLURM_TEST_CPUS (default 8; more slots than cores, so many
# short steps run at once) and SLURM_TEST_GPUS fake GPUs (default 4): a gpu GRES whose device
# files are plain files under DIR, so `--gres=gpu:1` allocates and sets CUDA_VISIBLE_DEVICES as
# on a GPU node. No accounting, no cgroups (task/none, proctrack/linuxproc): it runs as root in a
# container; it runs as the current user (root in CI: slurmd runs jobs as their user). The
# daemons talk over 127.0.0.1, so the host name need not resolve. Ports: SLURM_TEST_PORT (slurmctld; slurmd the next one), default the first free
# pair from 16817. Needs slurmctld, slurmd, munged (Debian: slurm-wlm, munge).
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

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2; shift 2
  local i
  for ((i = 0; i < limit * 10; ++i)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "slurm-cluster: $what did not happen within ${limit}s" >&2
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

node_state() { SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o '%T' 2>/dev/null | head -n1; }
node_idle() { [ "$(node_state)" = idle ]; }

start() {
  for p in slurmctld slurmd munged sinfo; do
    command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || { echo "slurm-cluster: $p not found (install slurm-wlm and munge)" >&2; exit 1; }
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
  if [ -z "$port" ]; then
    port=16817
    while port_in_use "$port" || port_in_use $((port + 1)); do port=$((port + 2)); done
  fi
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
    # Character devices (slurmd wants them; /dev/null's numbers): then a step's CUDA_VISIBLE_DEVICES
    # is set as on a GPU node. Where mknod is not allowed, a count alone (no CUDA_VISIBLE_DEVICES).
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
  export SLURM_CONF="$dir/slurm.conf"
  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" ||
    { echo "slurm-cluster: munged did not start: $(tail -n 3 "$dir/munge/munged.log" 2>/dev/null)" >&2; exit 1; }
  wait_for 10 "munged's socket" test -S "$dir/munge/munge.socket"
  slurmctld -f "$dir/slurm.conf" -i ||
    { echo "slurm-cluster: slurmctld did not start: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null)" >&2; exit 1; }
  slurmd -f "$dir/slurm.conf" ||
    { echo "slurm-cluster: slurmd did not start: $(tail -n 3 "$dir/slurmd.log" 2>/dev/null)" >&2; exit 1; }
  if ! wait_for 60 "node $host idle" node_idle; then
    echo "slurm-cluster: node state '$(node_state)'; slurmctld: $(tail -n 3 "$dir/slurmctld.log" 2>/dev/null)" >&2
    stop; exit 1
  fi
  echo "SLURM_CONF=$dir/slurm.conf"
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
