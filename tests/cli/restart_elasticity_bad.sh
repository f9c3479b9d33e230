#!/bin/bash
# Elasticity restart files refused for what does not match, with exit 2 and a message naming
# the file and the cause. A dynamic run's: a damaged probe history (its checksum), another
# material (the case), another time step (the clock), and a restart at the end (nothing to run);
# a good restart file is written first, at step 10 of the cantilever. A topology optimisation's:
# a design that has converged (nothing to run).
#
# usage: restart_elasticity_bad.sh UNDERTOW H5EDIT DYNAMIC_CASE TOPOLOGY_CASE WORK RANKS MPIEXEC...
set -u
undertow=$1 h5edit=$2 case=$3 topology=$4 work=$5 ranks=$6
shift 6
mpi=("$@" "$ranks")
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED: $*"; exit 1; }
short=(--set time.t_end=0.006 --set fields.every=0 --set check.frequency_after=0)
"${mpi[@]}" "$undertow" run "$case" "${short[@]}" --set restart.at_step=10 --output "$work/good" \
  > "$work/good.log" 2>&1 || fail "the run that writes the restart file: $(tail -3 "$work/good.log")"
good=$work/good/restart/restart_000000010.h5
[ -f "$good" ] || fail "no restart file $good"

# refused NAME PATTERN FILE [ARGS...]: the continued run exits 2 with PATTERN in its message.
refused() {
  local name=$1 pattern=$2 file=$3
  shift 3
  "${mpi[@]}" "$undertow" run "$case" "${short[@]}" --restart "$file" --output "$work/$name" "$@" \
    > "$work/$name.log" 2>&1
  local code=$?
  [ "$code" = 2 ] || fail "$name: exit $code, expected 2: $(tail -3 "$work/$name.log")"
  grep -Eq -- "$pattern" "$work/$name.log" || fail "$name: no '$pattern' in: $(tail -3 "$work/$name.log")"
  [ -e "$work/$name/diagnostics.csv" ] && fail "$name: the refused run wrote diagnostics.csv"
  echo "$name: refused as expected"
}

cp "$good" "$work/history.h5" && "$h5edit" "$work/history.h5" poke probe_uy 0.5 || fail "poke"
refused history "dataset 'probe_uy' in .*history.h5 does not match its checksum" "$work/history.h5"
refused material "material.youngs_modulus = 200e9 in the file, 7e10 here" \
  "$good" --set material.youngs_modulus=7e10
refused dt "is at step 10, t = .*but this run's step is dt = 2.000000000e-04" "$good" \
  --set time.dt=2e-4
refused end "is at step 10, not before the last step 10: there is nothing to run" "$good" \
  --set time.t_end=0.003
# The good file itself continues (the checks above refuse what they should, not everything).
"${mpi[@]}" "$undertow" run "$case" "${short[@]}" --restart "$good" --output "$work/good" \
  > "$work/continued.log" 2>&1 || fail "the good restart file: $(tail -3 "$work/continued.log")"
grep -q "restarted from .* at step 10" "$work/continued.log" || fail "no restart message"
echo "the good restart file continues"

# A topology optimisation that converged (a loose tolerance: in some 20 iterations), continued
# from its restart file at the converged iteration (restart.every = 1 keeps the newest).
loose=(--set topology.change_tolerance=0.2 --set output.png=false)
"${mpi[@]}" "$undertow" run "$topology" "${loose[@]}" --set restart.every=1 --set restart.keep=1 \
  --output "$work/converged" > "$work/converged.log" 2>&1 || fail "the topology run: $(tail -3 "$work/converged.log")"
n=$(sed -n 's/.*converged after \([0-9]*\) iterations.*/\1/p' "$work/converged.log")
[ -n "$n" ] || fail "the topology run did not converge"
last=$(printf '%s/converged/restart/restart_%09d.h5' "$work" "$n")
[ -f "$last" ] || fail "no restart file $last"
"${mpi[@]}" "$undertow" run "$topology" "${loose[@]}" --output "$work/converged_again" \
  --restart "$last" > "$work/converged_again.log" 2>&1
code=$?
[ "$code" = 2 ] || fail "converged: exit $code, expected 2"
grep -q "its design converged at iteration $n (change 0\.[0-9]*, topology.change_tolerance 0.2): there is nothing to run" \
  "$work/converged_again.log" || fail "converged: $(grep error "$work/converged_again.log")"
echo "converged at $n: refused as expected"
