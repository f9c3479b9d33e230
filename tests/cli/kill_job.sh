# Sourced by the resume tests: kill_job_at LOG MARKER COMMAND... starts COMMAND in a session of
# its own with its output in LOG, waits until LOG matches the extended regex MARKER (or the job
# ends), then kills the whole session with SIGKILL, as a batch system's time limit kills a job's
# every process, and waits until none is left. Returns 1 if a process survives.
#
# Open MPI puts each rank in a process group of its own, so killing mpirun's group would leave
# the ranks running (and writing their files) for a moment: the session is what must go.
kill_job_at() {
  local log=$1 marker=$2
  shift 2
  setsid "$@" > "$log" 2>&1 &
  local leader=$!
  for _ in $(seq 1 1200); do
    grep -Eq "$marker" "$log" 2>/dev/null && break
    kill -0 "$leader" 2>/dev/null || break
    sleep 0.05
  done
  pkill -KILL -s "$leader" 2>/dev/null
  wait "$leader" 2>/dev/null
  for _ in $(seq 1 200); do
    pgrep -s "$leader" > /dev/null || break
    pkill -KILL -s "$leader" 2>/dev/null
    sleep 0.05
  done
  ! pgrep -s "$leader" > /dev/null
}
