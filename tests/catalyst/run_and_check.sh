#!/bin/sh
# Runs an in-situ case under a virtual X server, then checks its output with pvpython.
#   run_and_check.sh SERVER OUT CHECK_SCRIPT "CHECK ARGS" COMMAND...
# SERVER: the first X display number to try (each test starts at its own, so that tests running
# at the same time do not race for one); OUT: the run's output folder (--output of COMMAND).
set -u
set -f # the check arguments hold glob patterns for the checker itself
server=$1 out=$2 check=$3 check_args=$4
shift 4
for tool in xvfb-run pvpython; do
  command -v "$tool" >/dev/null || { echo "$tool not found: apt-get install xvfb xauth paraview python3-paraview (jobs/quickstart.sh test installs them)"; exit 1; }
done
rm -rf "$out"
mkdir -p "$(dirname "$out")"
if ! xvfb-run -a -n "$server" "$@" > "$out.log" 2>&1; then
  cat "$out.log"
  echo "the in-situ run failed"
  exit 1
fi
grep -E "^in situ|^undertow|warning|Warning|ERR" "$out.log"
# shellcheck disable=SC2086
pvpython "$check" "$out" $check_args
