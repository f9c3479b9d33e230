#!/bin/bash
# On a real Slurm (slurm_cluster.sh), the two ways a job can be wrong:
# - a case-file error is caught by `undertow submit` before anything is queued (exit 2, no job,
#   no script written);
# - a job that fails for real (its case file broken after it was submitted; a diverging run) is
#   not requeued, and its job.log says why.
#
# usage: slurm_failure.sh UNDERTOW CASE WORK     (SLURM_CONF names the cluster)
set -u
undertow=$1 case=$2 work=$3
. "$(dirname "$0")/slurm_wait.sh"
rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$case" "$work/case.ini" || exit 1
jobs_before=$(squeue -h | wc -l)

# A bad case: refused by submit, nothing queued or written.
"$undertow" submit "$work/case.ini" run --walltime 5:00 --output "$work/refused" \
  --set fluid.viscosity=3 > "$work/refused.log" 2>&1
code=$?
cat "$work/refused.log"
[ "$code" = 2 ] || fail "submit of a bad case exited $code (expected 2)"
grep -q "unknown key 'fluid.viscosity'" "$work/refused.log" || fail "the refusal does not name the key"
[ "$(squeue -h | wc -l)" = "$jobs_before" ] || fail "a job was queued for a bad case"
[ ! -e "$work/refused/job.slurm" ] || fail "a batch script was written for a bad case"

# Jobs that fail for real: not requeued, and job.log says why. The first is held (sbatch --hold)
# while its case file is broken, then released.
settings=(--walltime 5:00 --tasks-per-node 2 --set "domain.cells=110 21" --set time.t_end=1)
broken=$(submit "$work/broken.log" "$undertow" submit "$work/case.ini" run --output "$work/broken" \
  "${settings[@]}" --directive=--hold) || exit 1
printf '[fluid]\nviscosity = 3\n' >> "$work/case.ini"
scontrol release "$broken" || fail "scontrol release $broken"
diverging=$(submit "$work/diverging.log" "$undertow" submit "$case" run \
  --output "$work/diverging" "${settings[@]}" --set time.dt=1 --set time.scheme=explicit) || exit 1
expect_failure() { # ID DIR EXIT REASON
  wait_for_end "$1" 120
  local state code restarts
  state=$(job_field "$1" JobState) code=$(job_field "$1" ExitCode) restarts=$(job_field "$1" Restarts)
  echo "job $1: $state, exit $code, restarts $restarts"
  cat "$2/job.log"
  [ "$state" = FAILED ] && [ "$code" = "$3:0" ] || fail "job $1 ended $state with exit $code (expected FAILED, $3)"
  [ "$restarts" = 0 ] || fail "job $1 was requeued"
  grep -q "failed with exit $3, not requeued: undertow: error: .*$4" "$2/job.log" ||
    fail "job.log of job $1 does not say why it failed"
  [ "$(grep -c starting: "$2/job.log")" = 1 ] || fail "job $1 ran more than once"
}
expect_failure "$broken" "$work/broken" 2 "unknown key 'fluid.viscosity'"
expect_failure "$diverging" "$work/diverging" 3 "the Navier-Stokes run diverged"
check_node
echo "a bad case is refused before queueing; failing jobs are not requeued and say why"
