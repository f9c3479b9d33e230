#!/bin/bash
# On a real Slurm (slurm_cluster.sh): `undertow submit --sweep` of 3 points becomes a job array,
# one folder per point, and a collect job that runs when they have ended; the collected CSV
# holds 3 rows, each point done, with its swept value, and the middle point's state is bitwise
# that of a direct run with the same value. A bad value in a sweep is refused before queueing.
#
# usage: slurm_sweep.sh UNDERTOW CASE WORK MPIEXEC...     (SLURM_CONF names the cluster)
set -u
undertow=$1 case=$2 work=$3
shift 3
mpi=("$@")
. "$(dirname "$0")/slurm_wait.sh"
rm -rf "$work" && mkdir -p "$work" || exit 1
settings=(--set "domain.cells=110 21" --set time.t_end=1)
jobs_before=$(squeue -h | wc -l)

"$undertow" submit "$case" run --walltime 5:00 --output "$work/refused" "${settings[@]}" \
  --sweep fluid.nu=0.001,-1 > "$work/refused.log" 2>&1
code=$?
cat "$work/refused.log"
[ "$code" = 2 ] || fail "a sweep with a bad value was submitted (exit $code)"
grep -q "point 1" "$work/refused.log" || fail "the refusal does not name the point"
[ "$(squeue -h | wc -l)" = "$jobs_before" ] || fail "a job was queued for a bad sweep"

"$undertow" submit "$case" run --walltime 5:00 --output "$work/sweep" "${settings[@]}" \
  --sweep fluid.nu=0.001,0.0015,0.002 > "$work/submit.log" 2>&1 || fail "submit: $(cat "$work/submit.log")"
cat "$work/submit.log"
array=$(sed -n 's/.* as job \([0-9][0-9]*\) .*/\1/p' "$work/submit.log")
collector=$(sed -n 's/^job \([0-9][0-9]*\) collects.*/\1/p' "$work/submit.log")
[ -n "$array" ] && [ -n "$collector" ] || fail "no array or collect job id in the submit output"
grep -q '^#SBATCH --array=0-2$' "$work/sweep/job.slurm" || fail "no --array=0-2 in job.slurm"
wait_for_end "$collector" 300
echo "collect job $collector: $(job_field "$collector" JobState), exit $(job_field "$collector" ExitCode)"
cat "$work/sweep/collect-$collector.out"
[ "$(job_field "$collector" JobState)" = COMPLETED ] || fail "the collect job did not complete"
csv="$work/sweep/sweep.csv"
[ -f "$csv" ] || fail "no $csv"
cut -d, -f1-3 "$csv"
[ "$(wc -l < "$csv")" = 4 ] || fail "$csv has $(($(wc -l < "$csv") - 1)) rows, not 3"
head -1 "$csv" | grep -q '^point,fluid.nu,status,' || fail "the header does not start with point,fluid.nu,status"
[ "$(grep -c '^[0-2],0\.00[0-9]*,done,' "$csv")" = 3 ] || fail "not every point is done"
for p in 0 1 2; do
  grep -q "finished" "$work/sweep/point_00$p/job.log" || fail "point $p did not finish"
done
column=$(head -1 "$csv" | tr ',' '\n' | grep -n '^figures.state_checksum$' | head -1 | cut -d: -f1)
[ -n "$column" ] || fail "no figures.state_checksum column"
[ "$(cut -d, -f"$column" "$csv" | tail -3 | sort -u | wc -l)" = 3 ] || fail "the points' states are not all different"

"${mpi[@]}" 1 "$undertow" run "$case" "${settings[@]}" --set fluid.nu=0.0015 \
  --output "$work/direct" > "$work/direct.log" 2>&1 || fail "the direct run: $(tail -3 "$work/direct.log")"
sum() { grep -o '"state_checksum": "[^"]*"' "$1"; }
[ -n "$(sum "$work/direct/report.json")" ] && [ "$(sum "$work/direct/report.json")" = "$(sum "$work/sweep/point_001/report.json")" ] ||
  fail "point 1 (nu = 0.0015) differs from a direct run with that value"
check_node
echo "the sweep ran its 3 points as a job array; sweep.csv holds 3 rows; point 1 equals a direct run"
