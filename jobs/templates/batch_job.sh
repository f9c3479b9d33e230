#!/bin/bash
# An undertow batch job, written by `undertow submit` from jobs/templates/batch_job.sh. Copy it
# and adapt it as you like: the lines between @...@ markers in the template are what submit
# fills in (scheduler directives, the set-up lines, how ranks are launched, how a job requeues).
#
# The walltime protocol (docs/clusters.md): undertow gets a --walltime budget a little shorter
# than the job's time limit and, under Slurm, the batch shell gets USR1 before the limit and
# passes it on as TERM. Either way undertow saves its state (restart file, resume record,
# evaluation journal) and exits 75; the job then requeues itself, and the next part continues
# from that state (--restart, --resume), up to max_requeues times. Any other exit is final.
@DIRECTIVES@

# --- the run (filled in by undertow submit) ---
undertow=@UNDERTOW@
command=@COMMAND@
case_file=@CASE@
output=@OUTPUT@
budget=@BUDGET@ # seconds for undertow: the time limit less a margin for start-up and the end
max_requeues=@MAX_REQUEUES@
arguments=(@ARGUMENTS@)
@SWEEP@

# --- set-up (modules, environment) ---
@SETUP@

set -u
@REQUEUE_COUNT@
mkdir -p "$output"
log="$output/job.log"
say() { echo "$(date '+%F %T') job $job_id part $((requeues + 1)): $*" | tee -a "$log"; }

# Continue from the saved state of an earlier part, if there is one.
resume=()
case "$command" in
run)
  newest=$(ls "$output"/restart/restart_*.h5 2>/dev/null | tail -1)
  [ -n "$newest" ] && resume=(--restart "$newest") ;;
gradient) [ -f "$output/gradient_checkpoints.h5" ] && resume=(--resume "$output") ;;
optimize) [ -f "$output/evaluations.journal" ] && resume=(--resume "$output") ;;
esac
say "starting: undertow $command $case_file ${arguments[*]} ${resume[*]}"

# The ranks' error output also goes to $output/errors.log (this part's), for the reason of a failure.
@LAUNCHER@ "$undertow" "$command" "$case_file" "${arguments[@]}" --output "$output" \
  --walltime "$budget" "${resume[@]}" 2> >(tee "$output/errors.log" >&2) &
pid=$!
# The scheduler's warning (USR1, to this shell) asks the ranks to save and stop (TERM, or USR2
# through mpirun, which ends the job on TERM).
trap 'say "warning signal: asking undertow to save its state and stop"; @STOP_RANKS@' USR1
# `wait` returns early (above 128) when the trap runs; wait again until the launcher has ended.
while :; do
  wait "$pid"
  code=$?
  [ "$code" -gt 128 ] && kill -0 "$pid" 2> /dev/null && continue
  if [ "$code" -gt 128 ]; then # ended while the trap ran: its own status
    wait "$pid"
    again=$?
    [ "$again" != 127 ] && code=$again
  fi
  break
done

if [ "$code" = 0 ]; then
  say "finished"
elif [ "$code" = 75 ] && [ "$requeues" -lt "$max_requeues" ]; then
  say "stopped with its state saved (exit 75): requeued ($((requeues + 1)) of $max_requeues)"
@REQUEUE@
elif [ "$code" = 75 ]; then
  say "stopped with its state saved, but max_requeues = $max_requeues is reached: continue by hand (docs/clusters.md)"
else
  sleep 1 # tee's last lines
  reason=$(grep -h "undertow" "$output/errors.log" 2> /dev/null | tail -1)
  [ -z "$reason" ] && reason=$(grep -hv '^[- ]*$' "$output/errors.log" 2> /dev/null | head -1)
  say "failed with exit $code, not requeued: ${reason:-see $output/errors.log and $output/$command.log}"
fi
exit "$code"
