#!/bin/bash
# A real single-node Slurm for the job tests (docs/clusters.md, "Tested on a real Slurm"):
# munge, slurmctld and slurmd on this machine, configured and kept under DIR (its own ports,
# state, spool and logs; nothing under /etc is changed), started and stopped by PID only.
#
# usage: slurm_cluster.sh start DIR   writes DIR/slurm.conf, starts the daemons, waits for the node
#        slurm_cluster.sh stop DIR    cancels the remaining jobs, stops what `start` started
# Commands and jobs find this cluster through SLURM_CONF=DIR/slurm.conf. Needs root (slurmd
# launches jobs) and the Debian packages slurmctld slurmd slurm-client munge (jobs/quickstart.sh
# installs them for the tests).
set -u
action=${1:-} dir=${2:-}
fail() { echo "slurm_cluster.sh: $*" >&2; exit 1; }
[ -n "$dir" ] || fail "usage: slurm_cluster.sh start|stop DIR"
export SLURM_CONF="$dir/slurm.conf"

stop_pid_file() { # TERM to the PID a daemon wrote, then wait for it to end (5 s at most)
  local file=$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  if [ -n "$pid" ] && kill -0 "$pid" 2> /dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  fi
  rm -f "$file"
}

case "$action" in
start)
  [ "$(id -u)" = 0 ] || fail "the Slurm tests need root (slurmd starts the jobs); run them as root, as CI does, or leave them out with ctest -LE slurm"
  for program in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged /usr/bin/sbatch; do
    [ -x "$program" ] || fail "$program is missing: install slurmctld slurmd slurm-client munge (bash jobs/quickstart.sh test does)"
  done
  "$0" stop "$dir" > /dev/null 2>&1 # a fixture left by a killed test run
  rm -rf "$dir" && mkdir -p "$dir/state" "$dir/spool" || fail "cannot create $dir"
  host=$(hostname -s)
  cpus=$(nproc)
  memory=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  cat > "$SLURM_CONF" << CONF
ClusterName=undertow-tests
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MailProg=/bin/true
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=10
MinJobAge=3600
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  # munge: one per machine; started here (and stopped by `stop`) only if none runs.
  if ! munge -n 2> /dev/null | unmunge > /dev/null 2>&1; then
    mkdir -p /run/munge && chown munge: /run/munge
    runuser -u munge -- /usr/sbin/munged || fail "munged did not start"
    echo started > "$dir/munge.started"
    for _ in $(seq 50); do munge -n 2> /dev/null | unmunge > /dev/null 2>&1 && break; sleep 0.1; done
    munge -n | unmunge > /dev/null || fail "munge does not answer"
  fi
  setsid /usr/sbin/slurmctld -D -i -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 < /dev/null &
  for _ in $(seq 100); do scontrol ping 2> /dev/null | grep -q UP && break; sleep 0.1; done
  scontrol ping | grep -q UP || fail "slurmctld did not start: $(tail -5 "$dir/slurmctld.log" "$dir/slurmctld.out")"
  setsid /usr/sbin/slurmd -D -f "$SLURM_CONF" > "$dir/slurmd.out" 2>&1 < /dev/null &
  for _ in $(seq 150); do [ "$(sinfo -h -N -o %T 2> /dev/null)" = idle ] && break; sleep 0.2; done
  state=$(sinfo -h -N -o %T)
  [ "$state" = idle ] || fail "the node is '$state', not idle: $(tail -5 "$dir/slurmd.log" "$dir/slurmd.out")"
  echo "Slurm is up: SLURM_CONF=$SLURM_CONF, node $host with $cpus CPUs"
  ;;
stop)
  if [ -f "$dir/slurmctld.pid" ]; then
    scancel --full --quiet --partition=debug 2> /dev/null
    for _ in $(seq 50); do [ -z "$(squeue -h 2> /dev/null)" ] && break; sleep 0.2; done
  fi
  stop_pid_file "$dir/slurmd.pid"
  stop_pid_file "$dir/slurmctld.pid"
  if [ -f "$dir/munge.started" ]; then
    stop_pid_file /run/munge/munged.pid
    rm -f "$dir/munge.started"
  fi
  echo "Slurm stopped"
  ;;
*) fail "usage: slurm_cluster.sh start|stop DIR" ;;
esac
