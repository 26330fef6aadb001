#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the sweep's Slurm test (scripts/slurm-test.sh)
# and for trying `gpusched sweep slurm --submit` without a cluster.
# usage: scripts/slurm-local.sh start|stop|env     (state under $GPUSCHED_SLURM_DIR, default
#        /tmp/gpusched-slurm; `eval "$(scripts/slurm-local.sh env)"` points sbatch/squeue at it)
# Installs Debian's slurm-wlm and munge if missing (needs root or sudo and apt-get).
set -euo pipefail
dir=${GPUSCHED_SLURM_DIR:-/tmp/gpusched-slurm}
conf=$dir/slurm.conf
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
case "${1:-}" in
  env)
    echo "export SLURM_CONF=$conf"
    ;;
  start)
    if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
      echo "installing: slurm-wlm munge" >&2
      $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
      $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
    fi
    mkdir -p "$dir/state" "$dir/spool"
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
    cat > "$conf" <<CONF
ClusterName=gpusched
SlurmctldHost=$host
SlurmUser=$(id -un)
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
AuthType=auth/munge
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    # munge: its own key (created by the package) and socket.
    if ! pgrep -x munged >/dev/null; then
      $SUDO mkdir -p /run/munge
      $SUDO chown munge:munge /run/munge 2>/dev/null || true
      $SUDO munged --force 2>/dev/null
    fi
    "$0" stop >/dev/null 2>&1 || true
    slurmctld -f "$conf"
    slurmd -f "$conf"
    export SLURM_CONF=$conf
    for _ in $(seq 1 30); do
      if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
        echo "slurm: one node ($host, $cpus CPUs) up; SLURM_CONF=$conf" >&2
        exit 0
      fi
      sleep 1
    done
    echo "slurm did not come up; logs: $dir/slurmctld.log $dir/slurmd.log" >&2
    tail -20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    exit 1
    ;;
  stop)
    for p in slurmd slurmctld; do
      if [ -f "$dir/$p.pid" ]; then kill "$(cat "$dir/$p.pid")" 2>/dev/null || true; fi
    done
    sleep 1
    ;;
  *)
    echo "usage: $0 start|stop|env" >&2
    exit 2
    ;;
esac
