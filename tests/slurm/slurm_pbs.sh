#!/bin/bash
# PBS: the script `undertow submit --scheduler pbs` writes goes through qsub (slurm-wlm-torque's,
# in front of the real Slurm of slurm_cluster.sh: Debian has no PBS server), parses and runs.
# qsub passes no environment (as under PBS): the set-up line exports what mpiexec needs as root.
# Its batch shell is sent the warning signal in the middle of the run: it stops undertow with
# its state saved (exit 75) and requeues by a chained qsub, whose job goes on from the restart
# file and ends with bitwise the result of an uninterrupted run on 2 ranks.
#
# usage: slurm_pbs.sh UNDERTOW CASE WORK MPIEXEC...     (SLURM_CONF names the cluster)
set -u
undertow=$1 case=$2 work=$3
shift 3
mpi=("$@")
. "$(dirname "$0")/slurm_wait.sh"
rm -rf "$work" && mkdir -p "$work" || exit 1
command -v qsub > /dev/null || fail "qsub is missing: install slurm-wlm-torque (bash jobs/quickstart.sh test does)"
settings=(--set "domain.cells=110 21" --set time.dt=0.004 --set time.t_end=4
          --set output.progress_every=100)
sum() { grep -o '"state_checksum": "[^"]*"' "$1"; }

"${mpi[@]}" 2 "$undertow" run "$case" "${settings[@]}" --output "$work/reference" \
  > "$work/reference.log" 2>&1 || fail "the uninterrupted run: $(tail -3 "$work/reference.log")"

cd "$work" || exit 1 # qsub's wrapper writes the job's output (job.pbs.oN) here, not to #PBS -o
job=$(submit "$work/submit.log" "$undertow" submit "$case" run --scheduler pbs --walltime 10:00 \
  --tasks-per-node 2 --output "$work/job" "${settings[@]}" \
  --setup "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1") || exit 1
echo "qsub gave job $job: $(head -1 "$work/submit.log")"
grep -q '^#PBS -l nodes=1:ppn=2' "$work/job/job.pbs" || fail "no PBS resource line in job.pbs"
wait_for "the run to get under way" 60 grep -Eq '^step +[1-9][0-9]{2,} ' "$work/job/run.log"
scancel --signal=USR1 --batch "$job" || fail "scancel --signal=USR1 --batch $job"
wait_for "the job to requeue" 120 grep -q "requeued (1 of 5)" "$work/job/job.log"
wait_for "the chained job" 120 grep -q "part 2: starting" "$work/job/job.log"
next=$(sed -n 's/.* job \([0-9][0-9]*\)[^ ]* part 2: starting.*/\1/p' "$work/job/job.log" | head -1)
[ -n "$next" ] && [ "$next" != "$job" ] || fail "no second job in job.log"
wait_for_end "$next" 300
cat "$work/job/job.log"
for id in "$job" "$next"; do
  echo "job $id: $(job_field "$id" JobState), exit $(job_field "$id" ExitCode)"
done
[ "$(job_field "$job" ExitCode)" = 75:0 ] || fail "the first job did not end with exit 75"
[ "$(job_field "$next" JobState)" = COMPLETED ] || fail "the chained job did not complete"
grep -q "part 2: starting: .*--restart " "$work/job/job.log" || fail "part 2 did not go on from a restart file"
grep -q "part 2: finished" "$work/job/job.log" || fail "part 2 did not finish"
grep -q "stopped by SIGUSR2" "$work/job/run.log"* || fail "undertow did not report the stop (SIGUSR2 through mpiexec)"
check_node
[ -n "$(sum "$work/reference/report.json")" ] || fail "no state checksum in the reference report"
[ "$(sum "$work/reference/report.json")" = "$(sum "$work/job/report.json")" ] ||
  fail "the requeued PBS job ends in another state than the uninterrupted run"
echo "the PBS script ran through qsub, requeued by a chained qsub, and ends in the uninterrupted run's state"
