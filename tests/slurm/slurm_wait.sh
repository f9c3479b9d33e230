# Helpers of the Slurm job tests (sourced): submitting, waiting, reading a job's state.
fail() { echo "FAILED: $*"; exit 1; }

# submit LOG COMMAND...: runs `undertow submit ...`, prints the job id it reports.
submit() {
  local log=$1
  shift
  "$@" > "$log" 2>&1 || fail "submit: $(cat "$log")"
  sed -n 's/.* as job \([0-9][0-9]*\) .*/\1/p' "$log" | head -1 | grep . || fail "no job id in: $(cat "$log")"
}

# wait_for WHAT SECONDS COMMAND...: until COMMAND succeeds.
wait_for() {
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq $((seconds * 5))); do
    "$@" 2> /dev/null && return 0
    sleep 0.2
  done
  fail "waited $seconds s for $what"
}

# job_field ID KEY: a field of `scontrol show job` (Slurm has no accounting here).
job_field() { scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

job_ended() {
  case "$(job_field "$1" JobState)" in
  COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED) return 0 ;;
  esac
  return 1
}
wait_for_end() { wait_for "job $1 to end" "$2" job_ended "$1"; }

# Slurm holds a requeued job for about two minutes (Reason=BeginTime) before it may start
# again; the tests wait 3 s. (Started within the second of the requeue, the job is refused by
# slurmd, "Job credential revoked": the hold is there for that.) Best effort: if the job is not
# seen pending in time (a loaded machine), Slurm's own hold runs out instead.
release_requeued() {
  local state
  for _ in $(seq 600); do
    state=$(job_field "$1" JobState)
    if [ "$state" = PENDING ] && [ "$(job_field "$1" Restarts)" -ge 1 ] 2> /dev/null; then
      sleep 3
      scontrol update JobId="$1" StartTime=now && return 0
    fi
    case "$state" in RUNNING | COMPLETED | FAILED | CANCELLED) [ "$(job_field "$1" Restarts)" -ge 1 ] 2> /dev/null && return 0 ;; esac
    sleep 0.25
  done
  echo "job $1 was not seen pending after its requeue (state '$state'): Slurm's hold will end"
}

# The node must not have been drained by a failed job start.
check_node() {
  local state
  state=$(sinfo -h -N -o %T)
  case "$state" in drain* | down*) fail "the node is $state: $(sinfo -h -N -o %E)" ;; esac
}
