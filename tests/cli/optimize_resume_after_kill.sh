#!/bin/bash
# An optimisation killed with SIGKILL (its whole session, as a batch system's time limit does)
# after a few design iterations, then continued with `undertow optimize --resume DIR`, replays
# its journal and ends at the design of an uninterrupted run, bit for bit. The flow outputs of
# the killed run's evaluations (evaluations/<n>/) are kept: the resumed run numbers its own
# after them. The finished run, resumed with a larger optimize.max_iterations, continues to the
# design of an uninterrupted run of that many iterations; the same value spelt otherwise is
# accepted, a resume with another physical setting is refused.
#
# usage: optimize_resume_after_kill.sh UNDERTOW CASE WORK RANKS MPIEXEC...
set -u
. "$(dirname "$0")/kill_job.sh"
undertow=$1 case=$2 work=$3 ranks=$4
shift 4
mpi=("$@")
settings=(--set domain.cells=48,24 --set time.t_end=4 --set objective.window=2,4
          --set optimize.max_iterations=6 --set diagnostics.every=10)
marker='^ +3   [0-9]'
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED: $*"; exit 1; }

"${mpi[@]}" "$ranks" "$undertow" optimize "$case" "${settings[@]}" --output "$work/reference" \
  > "$work/reference.log" 2>&1 || fail "the reference run"

kill_job_at "$work/killed.log" "$marker" "${mpi[@]}" "$ranks" "$undertow" optimize "$case" \
  "${settings[@]}" --output "$work/killed" || fail "processes of the killed run are still alive"
grep -q "^final design:" "$work/killed.log" && fail "the run finished before it was killed"
grep -Eq "$marker" "$work/killed.log" || fail "the run stopped before iteration 3: $(tail -3 "$work/killed.log")"
[ -f "$work/killed/evaluations.journal" ] || fail "no evaluation journal was left to resume from"
echo "killed with SIGKILL after: $(grep -E "$marker" "$work/killed.log" | tail -1)"
sums() { (cd "$work/killed" && md5sum evaluations/*/diagnostics.csv); }
before=$(sums) || fail "the killed run wrote no evaluations/<n>/diagnostics.csv"
last=$(ls "$work/killed/evaluations" | sort -n | tail -1)

"${mpi[@]}" "$ranks" "$undertow" optimize "$case" "${settings[@]}" --resume "$work/killed" \
  > "$work/resumed.log" 2>&1 || fail "the resumed run: $(tail -5 "$work/resumed.log")"
grep -E "resuming: [1-9][0-9]* recorded evaluations" "$work/resumed.log" \
  || fail "the run did not say what it replays"
grep -E "replayed from the journal" "$work/resumed.log" || fail "nothing was replayed"
grep -E "new flow solves write evaluations/$(printf %04d $((10#$last + 1))) on" "$work/resumed.log" \
  || fail "the resumed run does not number its evaluations after evaluations/$last"
after=$(sums)
diff <(echo "$before") <(echo "$after" | head -n "$(echo "$before" | wc -l)") \
  || fail "the resumed run changed the killed run's evaluations/<n>/diagnostics.csv"
[ "$(echo "$after" | wc -l)" -gt "$(echo "$before" | wc -l)" ] \
  || fail "the resumed run wrote no evaluations/<n>/ of its own"
echo "the killed run's $(echo "$before" | wc -l) evaluation folders are unchanged;" \
  "the resumed run added $(( $(echo "$after" | wc -l) - $(echo "$before" | wc -l) ))"

final() { grep -E "^final design:|^objective: " "$1"; }
[ -n "$(final "$work/reference.log")" ] || fail "no final design in the reference run"
diff <(final "$work/reference.log") <(final "$work/resumed.log") \
  || fail "the resumed optimisation ends at another design"
echo "resumed optimisation ends at the uninterrupted run's design: $(final "$work/resumed.log" | tail -1)"

# Continuing a finished run for more iterations: only the stopping test differs, so the journal
# is accepted, replayed to its end, and TAO goes on as an uninterrupted 8-iteration run does.
more=(--set optimize.max_iterations=8)
"${mpi[@]}" "$ranks" "$undertow" optimize "$case" "${settings[@]}" "${more[@]}" \
  --output "$work/reference8" > "$work/reference8.log" 2>&1 || fail "the 8-iteration reference run"
"${mpi[@]}" "$ranks" "$undertow" optimize "$case" "${settings[@]}" "${more[@]}" \
  --resume "$work/killed" > "$work/continued.log" 2>&1 \
  || fail "resuming with optimize.max_iterations=8: $(tail -5 "$work/continued.log")"
replayed=$(grep -Eo "resuming: [0-9]+ recorded evaluations" "$work/continued.log" | grep -Eo "[0-9]+")
solves=$(grep -Eo "after 6 design iterations, [0-9]+ flow solves" "$work/resumed.log" | grep -Eo "[0-9]+ flow" | grep -Eo "[0-9]+")
[ -n "$replayed" ] && [ "$replayed" = "$solves" ] \
  || fail "the continued run replays '$replayed' evaluations, not the 6-iteration run's '$solves'"
grep -Eq "^ +8   [0-9]" "$work/continued.log" || fail "the continued run did not reach iteration 8"
diff <(final "$work/reference8.log") <(final "$work/continued.log") \
  || fail "the continued optimisation ends at another design than the 8-iteration run"
echo "resumed with optimize.max_iterations=8: $replayed evaluations replayed, ends at the" \
  "8-iteration run's design"

# A physical setting changes the evaluations: refused, naming the fix.
"${mpi[@]}" "$ranks" "$undertow" optimize "$case" "${settings[@]}" --set fluid.nu=0.06 \
  --resume "$work/killed" > "$work/refused.log" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "a resume with another fluid.nu exited $rc, not 2"
grep -q "fluid.nu = 0.05 there, 0.06 here.*resume with the run's values" "$work/refused.log" \
  || fail "a resume with another fluid.nu is not refused by name: $(tail -3 "$work/refused.log")"
echo "a resume with another fluid.nu is refused"

# The same value spelt otherwise (fluid.nu = 0.05 in the case file) is the same setting: the
# journal is replayed to its end.
"${mpi[@]}" "$ranks" "$undertow" optimize "$case" "${settings[@]}" "${more[@]}" \
  --set fluid.nu=5e-2 --resume "$work/killed" > "$work/respelt.log" 2>&1 \
  || fail "resuming with fluid.nu=5e-2 (0.05 in the run): $(tail -3 "$work/respelt.log")"
counts=$(grep -Eo "after 8 design iterations, [0-9]+ flow solves, [0-9]+ replayed" "$work/respelt.log" \
  | grep -Eo "[0-9]+ (flow|replayed)" | grep -Eo "[0-9]+" | sort -u)
[ -n "$counts" ] && [ "$(echo "$counts" | wc -l)" = 1 ] \
  || fail "the resume with fluid.nu=5e-2 did not replay the whole 8-iteration journal: $counts"
diff <(final "$work/reference8.log") <(final "$work/respelt.log") \
  || fail "the resume with fluid.nu=5e-2 ends at another design"
echo "fluid.nu=5e-2 for the run's 0.05: accepted, replayed"
