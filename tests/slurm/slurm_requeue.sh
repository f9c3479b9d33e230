#!/bin/bash
# On a real Slurm (slurm_cluster.sh): `undertow submit` a 2-rank job, send its batch shell the
# warning signal in the middle of the run (scancel --signal=USR1 --batch, as --signal=B:USR1@T
# does before the time limit), and check that the job saved its state, requeued itself, went on
# from that state and finished with bitwise the result of an uninterrupted run on 2 ranks.
#
# usage: slurm_requeue.sh UNDERTOW COMMAND CASE WORK MPIEXEC...
#   COMMAND: run (a long flow), gradient (multistage, checkpoints on disk) or optimize
# SLURM_CONF names the cluster.
set -u
undertow=$1 command=$2 case=$3 work=$4
shift 4
mpi=("$@")
. "$(dirname "$0")/slurm_wait.sh"
rm -rf "$work" && mkdir -p "$work" || exit 1

case "$command" in
run)
  settings=(--set "domain.cells=110 21" --set time.dt=0.004 --set time.t_end=4
            --set output.progress_every=100)
  report=report.json
  result() { grep -o '"state_checksum": "[^"]*"' "$1"; }
  under_way='^step +[1-9][0-9]{2,} ' ;; # 100 steps taken
gradient)
  # 100 steps (t_end = 0.5; the case has 150).
  settings=(--set time.t_end=0.5 --set checkpoint.schedule=multistage --set checkpoint.ram_slots=2
            --set checkpoint.disk_slots=4 --set adjoint.fields=false --set output.progress_every=10)
  report=gradient.json
  result() { sed -n '/"gradient": {/,/}/p;/"objective":/p' "$1"; }
  under_way='reverse, step' ;; # in the reverse sweep
optimize)
  settings=(--set domain.cells=48,24 --set time.t_end=4 --set objective.window=2,4
            --set optimize.max_iterations=8)
  report=optimize.json
  result() { sed -n '/"design_final": {/,/}/p;/"objective_final":/p' "$1"; }
  under_way='^ +1 +[0-9]' ;; # the first design iteration done
*) fail "unknown command $command" ;;
esac

"${mpi[@]}" 2 "$undertow" "$command" "$case" "${settings[@]}" --output "$work/reference" \
  > "$work/reference.log" 2>&1 || fail "the uninterrupted run: $(tail -3 "$work/reference.log")"
result "$work/reference/$report" > "$work/reference.result"
[ -s "$work/reference.result" ] || fail "no result in $work/reference/$report"

job=$(submit "$work/submit.log" "$undertow" submit "$case" "$command" --walltime 10:00 \
  --tasks-per-node 2 --output "$work/job" "${settings[@]}") || exit 1
echo "submitted job $job"
log="$work/job/$command.log"
wait_for "the run to get under way" 120 grep -Eq "$under_way" "$log"
scancel --signal=USR1 --batch "$job" || fail "scancel --signal=USR1 --batch $job"
echo "USR1 sent to the batch shell of job $job at: $(grep -E "$under_way" "$log" | tail -1)"
wait_for "the job to requeue" 120 grep -q "requeued (1 of 5)" "$work/job/job.log"
release_requeued "$job"
wait_for_end "$job" 300
state=$(job_field "$job" JobState) code=$(job_field "$job" ExitCode) restarts=$(job_field "$job" Restarts)
echo "job $job: $state, exit $code, restarts $restarts"
cat "$work/job/job.log"
[ "$state" = COMPLETED ] && [ "$code" = 0:0 ] || fail "job $job ended $state with exit $code"
[ "$restarts" = 1 ] || fail "job $job restarted $restarts times, not once"
grep -q "part 1: warning signal" "$work/job/job.log" || fail "the batch shell did not log the signal"
grep -q "part 2: starting: .*--\(resume\|restart\) " "$work/job/job.log" ||
  fail "the second part did not go on from the saved state"
grep -q "part 2: finished" "$work/job/job.log" || fail "the second part did not finish"
grep -q "stopped by SIGTERM" "$work/job/$command.log"* || fail "undertow did not report the stop"
check_node
result "$work/job/$report" > "$work/job.result"
cmp -s "$work/job.result" "$work/reference.result" ||
  fail "the requeued job's result differs from the uninterrupted run: $(diff "$work/job.result" "$work/reference.result")"
echo "the requeued job's result is bitwise that of the uninterrupted run ($(wc -l < "$work/job.result") lines)"
