#!/usr/bin/env bash
# Starts a one-node Slurm (munged, slurmctld, slurmd as root) with its
# config and state in DIR, for the srun tests (integration/ranks_test.go),
# and prints the SLURM_CONF to export; `scripts/slurm-one-node.sh --stop
# DIR` stops it. Usage: scripts/slurm-one-node.sh [--stop] DIR
#
# A one-node Slurm this script started before and nobody stopped (a run
# killed before its trap) still holds the ports and answers sinfo, but
# srun's PMI-2 steps then fail ("failed to send temp kvs to compute
# nodes"): it is stopped first, and the ports are ones nothing listens on.
set -euo pipefail
stop() { # the daemons whose config is $1
  for pid in $(pgrep -f -- "^slurm(ctld|d) -f $1\$" || true); do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do pgrep -f -- "^slurm(ctld|d) -f $1\$" >/dev/null || return 0; sleep 0.1; done
  pkill -9 -f -- "^slurm(ctld|d) -f $1\$" || true
}
if [ "${1:-}" = --stop ]; then
  stop "$(realpath -m "${2:?usage: $0 --stop DIR}")/slurm.conf"
  exit 0
fi
dir=$(realpath -m "${1:?usage: $0 DIR}")
mkdir -p "$dir/state" "$dir/spool" "$dir/log"
# Earlier one-node Slurms of this script: their config names this cluster.
for conf in $(pgrep -a -f -- '^slurm(ctld|d) -f ' | awk '{print $4}' | sort -u); do
  if grep -qx 'ClusterName=clyde' "$conf" 2>/dev/null; then
    echo "stopping the one-node Slurm left running with $conf" >&2
    stop "$conf"
  fi
done
# free TCP ports for the two daemons
read -r ctldport slurmdport < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
node=$(slurmd -C | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p')
cpus=$(slurmd -C | sed -n 's/.* CPUs=\([0-9]*\) .*/\1/p')
cat > "$dir/slurm.conf" <<CONF
ClusterName=clyde
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmctldPort=$ctldport
SlurmdPort=$slurmdport
NodeName=$node CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
if ! pgrep -x munged >/dev/null; then
  [ -s /etc/munge/munge.key ] || mungekey --create >/dev/null 2>&1 || /usr/sbin/create-munge-key -f >/dev/null
  mkdir -p /run/munge
  munged --force >/dev/null 2>&1
fi
slurmctld -f "$dir/slurm.conf"
slurmd -f "$dir/slurm.conf"
for _ in $(seq 50); do
  if SLURM_CONF="$dir/slurm.conf" sinfo -h -o %t 2>/dev/null | grep -q idle; then
    echo "$dir/slurm.conf"
    exit 0
  fi
  sleep 0.2
done
echo "slurm did not come up; see $dir/log" >&2
exit 1
