#!/bin/bash
# The walltime protocol of a batch job: a command given --walltime stops before the budget is
# spent, with its state saved (restart file, resume record, journal), exit 75, and the command
# that continues it. Continued the way a requeued job is (the printed command, again while it
# exits 75, each time with the same budget), it ends with bitwise the result of an
# uninterrupted run on the same ranks.
#
# usage: [WALLTIME_RESUME_SETTINGS='--set k=v ...'] walltime_resume.sh UNDERTOW COMMAND CASE WORK RANKS MPIEXEC...
#   COMMAND: run (a flow), gradient (multistage, checkpoints on disk) or optimize
# The budget is a fraction of the uninterrupted run's time; should a loaded machine become faster,
# so that the budget does not stop the run, the job is run again with half of it.
set -u
undertow=$1 command=$2 case=$3 work=$4 ranks=$5
shift 5
mpi=("$@")
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED: $*"; exit 1; }

case "$command" in
run)
  settings=(--set "domain.cells=110 21" --set time.dt=0.004 --set time.t_end=4
            --set output.progress_every=250 --set fields.every=200)
  grep -q '^model *= *advection_diffusion' "$case" &&
    settings=(--set "domain.cells=128 128" --set time.t_end=8 --set output.progress_every=500)
  # Newmark: the state, and what the run accumulates (work balance, probe history: frequency).
  # CG + GAMG, not the case's MUMPS LU: on several ranks MUMPS schedules its factorisation
  # dynamically by load, so two uninterrupted runs already differ at round-off (seen on 2 ranks
  # under CI's load); CG + GAMG repeats bitwise, so the test sees the restart alone.
  grep -q '^model *= *elasticity' "$case" &&
    settings=(--set time.t_end=0.3 --set fields.every=125 --set output.progress_every=150
              --set elasticity.linear_solver=cg_gamg)
  # Topology optimisation: the design, its displacement, and the iteration it converged at.
  grep -q '^\[topology\]' "$case" &&
    settings=(--set output.png=false --set output.snapshot_every=40 --set output.progress_every=100)
  result() {
    grep -o '"state_checksum": "[^"]*"' "$1"
    grep -E '"(frequency|work|dissipated|energy_balance_max_relative|solver_iterations_per_step)"' "$1"
    grep -E '"(compliance|compliance_final_design|iterations|volume|change|solver_iterations_total)"' "$1"
  }
  parts=3 ;;
gradient)
  # Checkpoints on disk and a resume record after every adjoint step: a part that starts does
  # not first rebuild its checkpoints from x_0, so every part gets on. 60 steps (the case
  # has 150): the parts still stop inside the reverse sweep and resume from checkpoints on
  # disk.
  settings=(--set time.t_end=0.3 --set checkpoint.schedule=multistage --set checkpoint.ram_slots=2
            --set checkpoint.disk_slots=4 --set checkpoint.resume_every=0
            --set adjoint.fields=false --set output.progress_every=25)
  result() { sed -n '/"gradient": {/,/}/p;/"objective":/p' "$1"; }
  parts=3 ;;
optimize)
  settings=(--set domain.cells=48,24 --set time.t_end=4 --set objective.window=2,4
            --set optimize.max_iterations=4)
  result() { sed -n '/"design_final": {/,/}/p;/"objective_final":/p' "$1"; }
  parts=2 ;;
*) fail "unknown command $command" ;;
esac
# More settings for a variant of a case (e.g. another linear solver), word-split.
settings+=(${WALLTIME_RESUME_SETTINGS:-})
report=(--report "$work/reference.json")

start=$(date +%s.%N)
"${mpi[@]}" "$ranks" "$undertow" "$command" "$case" "${settings[@]}" --output "$work/reference" \
  "${report[@]}" > "$work/reference.log" 2>&1 || fail "the reference run: $(tail -3 "$work/reference.log")"
seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
# A budget of a fraction of the uninterrupted run: two or more parts.
budget=$(awk -v s="$seconds" -v n="$parts" 'BEGIN { b = s / n; if (b < 1) b = 1; printf "%.2f", b }')
echo "uninterrupted: $seconds s; budget of each part: $budget s"

# One job in parts: the first part, then the printed command, with the same budget, until it
# finishes (at most 40 parts). Returns 0 when it finished in 2 parts or more, 1 if the budget
# did not stop it (the machine got faster: try a smaller one); fails on anything else.
parted() {
  rm -rf "$work/parted" "$work/parted.json" "$work"/part*.log
  "${mpi[@]}" "$ranks" "$undertow" "$command" "$case" "${settings[@]}" --output "$work/parted" \
    --report "$work/parted.json" --walltime "$budget" > "$work/part1.log" 2>&1
  code=$?
  [ "$code" = 0 ] && return 1
  [ "$code" = 75 ] || fail "exit $code with --walltime $budget (expected 75): $(tail -3 "$work/part1.log")"
  grep -E "stopped by the --walltime budget of" "$work/part1.log" || fail "no walltime message"
  part=1
  while [ "$code" = 75 ]; do
    printed=$(sed -n 's/.*continue with: //p' "$work/part$part.log" | head -1)
    [ -n "$printed" ] || fail "part $part printed no continue command"
    [ "$part" -le 40 ] || fail "more than 40 parts"
    eval "set -- $printed"
    [ "$1" = undertow ] || fail "the continue command does not start with undertow: $printed"
    shift
    part=$((part + 1))
    "${mpi[@]}" "$ranks" "$undertow" "$@" --walltime "$budget" > "$work/part$part.log" 2>&1
    code=$?
  done
  [ "$code" = 0 ] || fail "part $part ended with exit $code: $(tail -5 "$work/part$part.log")"
  echo "finished in $part parts of $budget s"
}
for attempt in 1 2 3; do
  parted && break
  [ "$attempt" = 3 ] && fail "the budget never stopped the run"
  budget=$(awk -v b="$budget" 'BEGIN { printf "%.2f", b / 2 }')
  echo "finished within the budget: again with $budget s"
done

[ -n "$(result "$work/reference.json")" ] || fail "no results in the reference report"
# `run` continues without --report: its report is the output folder's.
outcome="$work/parted.json"
[ "$command" = run ] && outcome="$work/parted/report.json"
diff <(result "$work/reference.json") <(result "$outcome") \
  || fail "the run in $part parts differs from the uninterrupted one"
echo "the run in $part parts gives the uninterrupted result ($(result "$outcome" | wc -l) lines)"
# Its snapshot series (fields.xmf, density.xmf) list every snapshot of every part, as the
# uninterrupted run's do: the times and the files.
if [ "$command" = run ] && ls "$work/reference"/*.xmf > /dev/null 2>&1; then
  listing() { grep -ho 'Time Value="[^"]*"\|[a-z]*/[a-z]*_[0-9]*\.h5' "$1"/*.xmf | sort -u; }
  diff <(listing "$work/reference") <(listing "$work/parted") \
    || fail "the snapshot series of the run in parts differ from the uninterrupted one's"
  echo "its snapshot series list the uninterrupted run's $(listing "$work/parted" | grep -c h5) files"
fi
