#!/bin/bash
# A gradient or an optimisation signalled by a batch system: SIGUSR1 while it runs (it writes its
# resumable state and goes on), then SIGTERM (it writes it, stops with exit 75 and prints the
# command that continues it). Run as printed, that command ends with bitwise the result of an
# uninterrupted run. The signals go to every rank, as `scancel --signal` sends them.
#
# usage: signal_resume.sh UNDERTOW COMMAND CASE WORK RANKS MODE MPIEXEC...
#   gradient revolve:    every checkpoint in memory (the signal makes the record file);
#                        SIGUSR1 in the forward sweep, SIGTERM in the reverse sweep
#   gradient multistage: checkpoints on disk; SIGUSR1, then SIGTERM, in the forward sweep
#   gradient all:        store-all cannot resume: SIGTERM fails the run (exit 3) and says so
#   optimize journal:    SIGUSR1, then SIGTERM, after two design iterations
set -u
. "$(dirname "$0")/kill_job.sh"
undertow=$1 command=$2 case=$3 work=$4 ranks=$5 mode=$6
shift 6
mpi=("$@")
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED: $*"; exit 1; }

case "$command/$mode" in
gradient/revolve)
  settings=(--set checkpoint.schedule=revolve --set checkpoint.ram_slots=4)
  first='step +20 .*forward' second='reverse, step 66 of' ;;
gradient/multistage)
  settings=(--set checkpoint.schedule=multistage --set checkpoint.ram_slots=2
            --set checkpoint.disk_slots=3)
  first='step +20 .*forward' second='step +45 .*forward' ;;
gradient/all)
  settings=(--set checkpoint.schedule=all)
  first='step +20 .*forward' second='step +35 .*forward' ;;
optimize/journal)
  settings=(--set domain.cells=48,24 --set time.t_end=4 --set objective.window=2,4
            --set optimize.max_iterations=5)
  first='^ +1   [0-9]' second='^ +2   [0-9]' ;;
*) fail "unknown mode $command/$mode" ;;
esac
if [ "$command" = gradient ]; then
  # 100 steps (t_end = 0.5; the case has 150).
  settings+=(--set time.t_end=0.5 --set adjoint.fields=false --set output.progress_every=5)
  result() { sed -n '/"gradient": {/,/}/p;/"objective":/p' "$1"; }
  reference=(--report "$work/reference.json") stopped=(--report "$work/stopped.json")
  outcome=("$work/reference.json" "$work/stopped.json")
else
  result() { grep -E "^final design:|^objective: " "$1"; }
  reference=() stopped=()
  outcome=("$work/reference.log" "$work/resumed.log")
fi

if [ "$mode" != all ]; then
  "${mpi[@]}" "$ranks" "$undertow" "$command" "$case" "${settings[@]}" --output "$work/reference" \
    "${reference[@]}" > "$work/reference.log" 2>&1 || fail "the reference run: $(tail -3 "$work/reference.log")"
fi

start_job "$work/stopped.log" "${mpi[@]}" "$ranks" "$undertow" "$command" "$case" \
  "${settings[@]}" --output "$work/stopped" "${stopped[@]}"
wait_for "$work/stopped.log" "$first" || fail "the run ended before '$first': $(tail -3 "$work/stopped.log")"
signal_ranks USR1
wait_for "$work/stopped.log" "$second" || fail "the run ended after SIGUSR1: $(tail -3 "$work/stopped.log")"
signal_ranks TERM
wait_job
code=$?
grep "SIGUSR1 in" "$work/stopped.log" || fail "no line tells what SIGUSR1 did"
# 75: stopped with its state saved (a batch script requeues); store-all has no state: 3, failed.
expected=75
[ "$mode" = all ] && expected=3
[ "$code" = "$expected" ] || fail "exit $code after SIGTERM (expected $expected): $(tail -3 "$work/stopped.log")"
grep -E "stopped by SIGTERM" "$work/stopped.log" || fail "no SIGTERM message"

if [ "$mode" = all ]; then
  grep -q "cannot be resumed" "$work/stopped.log" || fail "a store-all run does not say it cannot resume"
  grep -q "continue with" "$work/stopped.log" && fail "a store-all run prints a continue command"
  echo "store-all: stopped with exit 3, and says that it cannot resume"
  exit 0
fi

# The printed command, run as printed (a POSIX shell splits its words).
printed=$(sed -n 's/.*continue with: //p' "$work/stopped.log" | head -1)
[ -n "$printed" ] || fail "no continue command"
eval "set -- $printed"
[ "$1" = undertow ] || fail "the continue command does not start with undertow: $printed"
shift
"${mpi[@]}" "$ranks" "$undertow" "$@" > "$work/resumed.log" 2>&1 \
  || fail "the printed command failed: $printed: $(tail -5 "$work/resumed.log")"
if [ "$command" = gradient ]; then
  grep "resumed after action" "$work/resumed.log" || fail "the run did not say where it resumed"
  [ -f "$work/stopped/gradient_checkpoints.h5" ] && fail "the checkpoint file was not removed after success"
else
  grep -E "resuming: [1-9][0-9]* recorded evaluations" "$work/resumed.log" || fail "nothing replayed"
fi
[ -n "$(result "${outcome[0]}")" ] || fail "no results in the reference run"
diff <(result "${outcome[0]}") <(result "${outcome[1]}") \
  || fail "the continued run differs from the uninterrupted one"
echo "continued after SIGTERM to the uninterrupted run's result ($(result "${outcome[1]}" | wc -l) lines)"
