# Sourced by the resume tests. A job runs in a session of its own, as a batch system's job step
# does, so that all of its processes (mpirun and every rank) can be signalled together:
#   start_job LOG COMMAND...   starts COMMAND with its output in LOG (sets JOB_LEADER)
#   wait_for LOG MARKER        waits until LOG matches the extended regex MARKER or the job ends
#   signal_ranks SIGNAL        sends SIGNAL to every undertow process of the job, as
#                              `scancel --signal` does to every task
#   wait_job                   waits for the job and returns its exit code
#   kill_job_at LOG MARKER COMMAND...   starts COMMAND, waits for MARKER, then kills the whole
#                              session with SIGKILL, as a batch system's time limit does, and
#                              waits until none is left. Returns 1 if a process survives.
#
# Open MPI puts each rank in a process group of its own, so killing mpirun's group would leave
# the ranks running (and writing their files) for a moment: the session is what must go.
start_job() {
  local log=$1
  shift
  setsid "$@" > "$log" 2>&1 &
  JOB_LEADER=$!
}

wait_for() {
  local log=$1 marker=$2
  for _ in $(seq 1 2400); do
    grep -Eq "$marker" "$log" 2>/dev/null && return 0
    kill -0 "$JOB_LEADER" 2>/dev/null || break
    sleep 0.05
  done
  grep -Eq "$marker" "$log" 2>/dev/null
}

signal_ranks() {
  pkill "-$1" -s "$JOB_LEADER" -x undertow
}

wait_job() {
  wait "$JOB_LEADER"
}

kill_job_at() {
  local log=$1 marker=$2
  shift 2
  start_job "$log" "$@"
  wait_for "$log" "$marker"
  pkill -KILL -s "$JOB_LEADER" 2>/dev/null
  wait "$JOB_LEADER" 2>/dev/null
  for _ in $(seq 1 200); do
    pgrep -s "$JOB_LEADER" > /dev/null || break
    pkill -KILL -s "$JOB_LEADER" 2>/dev/null
    sleep 0.05
  done
  ! pgrep -s "$JOB_LEADER" > /dev/null
}
