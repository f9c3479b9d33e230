#!/bin/bash
# The batch script of `undertow submit` (PBS flavour, launched with mpiexec), run here without a
# scheduler: a stand-in `qsub` on the PATH runs each resubmission at once. With a budget of a
# third of the run, the job stops with its state saved (exit 75), requeues itself, continues from
# its newest restart file, and ends with bitwise the state of an uninterrupted run. A job that
# fails for real (a diverging dt) is not requeued, and its log says why.
#
# usage: submit_local.sh UNDERTOW CASE WORK MPIEXEC NP_FLAG
set -u
undertow=$1 case=$2 work=$3
mpi=("$4" "$5")
rm -rf "$work" && mkdir -p "$work/bin" || exit 1
fail() { echo "FAILED: $*"; exit 1; }
settings=(--set "domain.cells=110 21" --set time.dt=0.004 --set time.t_end=3
          --set output.progress_every=250)

start=$(date +%s.%N)
"${mpi[@]}" 2 "$undertow" run "$case" "${settings[@]}" --output "$work/reference" \
  > "$work/reference.log" 2>&1 || fail "the reference run: $(tail -3 "$work/reference.log")"
budget=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { x = (b - a) / 3; if (x < 1) x = 1; printf "%.2f", x }')

# qsub: runs the script at once, with the -v variables, and logs the call.
cat > "$work/bin/qsub" <<'QSUB'
#!/bin/bash
echo "qsub $*" >> "$(dirname "$0")/qsub.calls"
vars=()
while [ $# -gt 1 ]; do
  case "$1" in -v) vars+=("$2"); shift 2 ;; *) shift ;; esac
done
env "${vars[@]}" bash "$1" > /dev/null 2>&1
echo "local.$RANDOM"
QSUB
chmod +x "$work/bin/qsub"

job() { # job NAME SETTINGS...: the script of `undertow submit`, its budget shortened
  local name=$1
  shift
  "$undertow" submit "$case" run --scheduler pbs --walltime 10:00 --tasks-per-node 2 "$@" \
    --output "$work/$name" --dry-run > "$work/$name.pbs" || fail "submit --dry-run: $(cat "$work/$name.pbs")"
  grep -q '^budget=' "$work/$name.pbs" || fail "no budget line in the script"
  mkdir -p "$work/$name"
  sed "s/^budget=[0-9]*/budget=$budget/" "$work/$name.pbs" > "$work/$name/job.pbs"
  PATH="$work/bin:$PATH" bash "$work/$name/job.pbs" > "$work/$name.out" 2>&1
}

for attempt in 1 2 3; do
  rm -rf "$work/parted"
  job parted "${settings[@]}" --max-requeues 40
  code=$?
  [ "$code" = 75 ] && break
  [ "$code" = 0 ] || fail "the first part ended with exit $code (expected 75): $(tail -5 "$work/parted.out")"
  [ "$attempt" = 3 ] && fail "the budget never stopped the job"
  budget=$(awk -v b="$budget" 'BEGIN { printf "%.2f", b / 2 }') # a faster machine now
done
cat "$work/parted/job.log"
parts=$(grep -c "starting:" "$work/parted/job.log")
[ "$parts" -ge 2 ] || fail "the job did not requeue"
grep -q "finished" "$work/parted/job.log" || fail "the last part did not finish"
grep -q "part $parts: starting: .*--restart" "$work/parted/job.log" || fail "the last part did not continue from a restart file"
sum() { grep -o '"state_checksum": "[^"]*"' "$1"; }
[ -n "$(sum "$work/reference/report.json")" ] || fail "no state checksum in the reference report"
[ "$(sum "$work/reference/report.json")" = "$(sum "$work/parted/report.json")" ] \
  || fail "the job in $parts parts ends in another state than the uninterrupted run"
echo "the job in $parts parts (budget $budget s each) ends in the uninterrupted run's state"

calls=$(wc -l < "$work/bin/qsub.calls")
job failing "${settings[@]}" --set time.dt=1 --set time.scheme=explicit
code=$?
[ "$code" = 3 ] || fail "a diverging job ended with exit $code (expected 3)"
grep -q "failed with exit 3, not requeued: undertow: error: the Navier-Stokes run diverged" \
  "$work/failing/job.log" || fail "the failed job's log does not say why"
[ "$(wc -l < "$work/bin/qsub.calls")" = "$calls" ] || fail "the failed job was requeued"
echo "a failing job is not requeued: $(tail -1 "$work/failing/job.log")"
