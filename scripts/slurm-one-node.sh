#!/usr/bin/env bash
# Starts a one-node Slurm (munged, slurmctld, slurmd as root) with its
# config and state in DIR, for the srun tests (integration/ranks_test.go),
# and prints the SLURM_CONF to export. Usage: scripts/slurm-one-node.sh DIR
set -euo pipefail
dir=$(realpath -m "${1:?usage: $0 DIR}")
mkdir -p "$dir/state" "$dir/spool" "$dir/log"
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
SlurmctldPort=16817
SlurmdPort=16818
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
