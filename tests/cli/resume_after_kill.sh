#!/bin/bash
# A gradient job killed with SIGKILL (its whole session: mpirun and every rank, as a batch
# system's time limit does) during its forward or its reverse sweep, then continued with
# `undertow gradient --resume DIR`, gives bitwise the gradient of an uninterrupted run.
#
# usage: resume_after_kill.sh UNDERTOW CASE WORK RANKS PHASE MPIEXEC...
#   PHASE: forward (killed once the forward sweep has saved checkpoints on disk) or reverse
#   (killed in the middle of the reverse sweep).
set -u
. "$(dirname "$0")/kill_job.sh"
undertow=$1 case=$2 work=$3 ranks=$4 phase=$5
shift 5
mpi=("$@")
# 100 steps (t_end = 0.5; the case has 150): killed at 40% of the forward sweep or in the middle
# of the reverse sweep.
settings=(--set time.t_end=0.5 --set checkpoint.schedule=multistage --set checkpoint.ram_slots=2
          --set checkpoint.disk_slots=4 --set checkpoint.resume_every=0
          --set adjoint.fields=false --set output.progress_every=5)
if [ "$phase" = forward ]; then
  marker='step +40 .*forward'
else
  marker='reverse, step 51 of'
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED: $*"; exit 1; }

"${mpi[@]}" "$ranks" "$undertow" gradient "$case" "${settings[@]}" --output "$work/reference" \
  --report "$work/reference.json" > "$work/reference.log" 2>&1 || fail "the reference run"

# The run to kill.
kill_job_at "$work/killed.log" "$marker" "${mpi[@]}" "$ranks" "$undertow" gradient "$case" \
  "${settings[@]}" --output "$work/killed" --report "$work/killed.json" \
  || fail "processes of the killed run are still alive"
[ -f "$work/killed.json" ] && fail "the run finished before it was killed; make it longer"
grep -Eq "$marker" "$work/killed.log" || fail "the run stopped before '$marker': $(tail -3 "$work/killed.log")"
[ -f "$work/killed/gradient_checkpoints.h5" ] || fail "no checkpoint file was left to resume from"
echo "killed with SIGKILL after: $(grep -E "$marker" "$work/killed.log" | tail -1)"

"${mpi[@]}" "$ranks" "$undertow" gradient "$case" "${settings[@]}" --output "$work/killed" \
  --resume "$work/killed" --report "$work/resumed.json" > "$work/resumed.log" 2>&1 \
  || fail "the resumed run: $(tail -5 "$work/resumed.log")"
grep "resumed after action" "$work/resumed.log" || fail "the run did not say where it resumed"
[ -f "$work/killed/gradient_checkpoints.h5" ] && fail "the checkpoint file was not removed after success"

# J and every derivative, printed to 17 significant digits, must be identical.
results() { sed -n '/"gradient": {/,/}/p;/"objective":/p' "$1"; }
[ -n "$(results "$work/reference.json")" ] || fail "no results in the reference report"
if ! diff <(results "$work/reference.json") <(results "$work/resumed.json"); then
  fail "the resumed gradient differs from the uninterrupted one"
fi
echo "resumed gradient identical to the uninterrupted run ($(results "$work/resumed.json" | wc -l) lines)"
