# Restart tests, run as one CTest each:
#   MODE=exact: run A (N steps) and B (stopped early, writing a restart at step K) on RANKS_A
#     ranks, then C from B's restart into B's folder on RANKS_C ranks. A and C must end in the
#     same state: bitwise (equal state checksums) when RANKS_C == RANKS_A, to 1e-12 relative
#     otherwise; C's diagnostics.csv must be A's (B's rows to step K, then C's).
#   MODE=kill: a run writing a restart file every step is killed (SIGKILL) while it runs; every
#     restart file left behind must load.
# cmake -DMODE=... -DMPI=<mpiexec|-n|...> -DUNDERTOW=... -DCASE=... -DWORK=... -DRANKS_A=.. -DRANKS_C=..
#       [-DEXTRA=--set|key=value|...] [-DCELLS=none] -P restart.cmake
string(REPLACE "|" ";" mpi "${MPI}")
set(common --set time.dt=0.004)
if(NOT CELLS STREQUAL "none") # CELLS=none: a stretched case, whose cells follow from domain.box
  list(APPEND common --set "domain.cells=110 21")
endif()
if(EXTRA) # more options for every run, '|'-separated
  string(REPLACE "|" ";" extra "${EXTRA}")
  list(APPEND common ${extra})
endif()

function(run ranks)
  execute_process(COMMAND ${mpi} ${ranks} ${UNDERTOW} run ${CASE} ${common} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "undertow ${ARGN} on ${ranks} ranks failed (${rc}):\n${out}")
  endif()
endfunction()

# A restart file loads and passes every check: a run from it with t_end before its time reads
# and verifies it all, then refuses with "nothing to run" (exit 2), which it says only then.
function(loads ranks file)
  execute_process(COMMAND ${mpi} ${ranks} ${UNDERTOW} run ${CASE} ${common} --restart ${file}
                          --set time.t_end=0.001 --output ${WORK}/loads
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 300)
  if(NOT rc EQUAL 2 OR NOT out MATCHES "not before time.t_end = .*nothing to run")
    message(FATAL_ERROR "${file} did not load (${rc}):\n${out}")
  endif()
endfunction()

function(figure dir key out)
  file(READ ${dir}/report.json json)
  string(JSON value GET "${json}" figures ${key})
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
if(MODE STREQUAL "exact")
  # C continues into B's folder, as a requeued job does: its diagnostics.csv must go on from B's
  # rows up to the restart step, so that it ends as A's (bitwise on the same rank count).
  run(${RANKS_A} --set time.t_end=0.08 --set diagnostics.every=1 --output ${WORK}/a)
  run(${RANKS_A} --set time.t_end=0.06 --set diagnostics.every=1 --set restart.at_step=10
      --output ${WORK}/b)
  run(${RANKS_C} --set time.t_end=0.08 --set diagnostics.every=1
      --restart ${WORK}/b/restart/restart_000000010.h5 --output ${WORK}/b)
  figure(${WORK}/a state_checksum sum_a)
  figure(${WORK}/b state_checksum sum_c)
  figure(${WORK}/a kinetic_energy ke_a)
  figure(${WORK}/b kinetic_energy ke_c)
  file(STRINGS ${WORK}/a/diagnostics.csv diagnostics_a)
  file(STRINGS ${WORK}/b/diagnostics.csv diagnostics_c)
  list(LENGTH diagnostics_a rows_a)
  list(LENGTH diagnostics_c rows_c)
  message(STATUS "diagnostics.csv: ${rows_a} lines uninterrupted, ${rows_c} continued")
  if(NOT rows_a EQUAL rows_c OR rows_a LESS 20)
    message(FATAL_ERROR "the continued run's diagnostics.csv has ${rows_c} lines, the "
                        "uninterrupted run's ${rows_a}")
  endif()
  if(RANKS_A EQUAL RANKS_C AND NOT diagnostics_a STREQUAL diagnostics_c)
    message(FATAL_ERROR "the continued run's diagnostics.csv differs from the uninterrupted one's")
  endif()
  if(NOT EXISTS ${WORK}/b/run.log.1)
    message(FATAL_ERROR "the first part's run.log was not kept as run.log.1")
  endif()
  message(STATUS "uninterrupted: ${sum_a} KE ${ke_a}")
  message(STATUS "restarted:     ${sum_c} KE ${ke_c}")
  if(RANKS_A EQUAL RANKS_C)
    if(NOT sum_a STREQUAL sum_c)
      message(FATAL_ERROR "restart on the same rank count is not bitwise identical")
    endif()
  else()
    # CMake has no floating point. Equal to about 1e-12 relative: the first 12 significant
    # digits agree (the numbers are of order 1e-2, written with 17 digits).
    set(a "${ke_a}")
    set(c "${ke_c}")
    string(REGEX REPLACE "^0\\.0*" "" a_digits "${a}")
    string(REGEX REPLACE "^0\\.0*" "" c_digits "${c}")
    string(SUBSTRING "${a_digits}" 0 12 a12)
    string(SUBSTRING "${c_digits}" 0 12 c12)
    if(NOT a12 STREQUAL c12)
      message(FATAL_ERROR "restart ${RANKS_A} -> ${RANKS_C} ranks differs beyond 1e-12: ${a} vs ${c}")
    endif()
  endif()
elseif(MODE STREQUAL "signal")
  # SIGUSR1: a restart file, and the run goes on; SIGTERM: a restart file, and the run stops
  # with exit code 75 (a requeue) and the command that continues it. Then that command works.
  execute_process(COMMAND sh -c "\"$0\" run \"$1\" --set 'domain.cells=110 21' --set time.dt=0.004 \
      --set time.t_end=8 --output \"$2\" > \"$2.log\" 2>&1 & pid=$!; sleep 2; kill -USR1 $pid; \
      sleep 1; kill -TERM $pid; wait $pid; echo exit=$?"
      ${UNDERTOW} ${CASE} ${WORK}/s OUTPUT_VARIABLE result TIMEOUT 120)
  file(READ ${WORK}/s.log log)
  if(NOT result MATCHES "exit=75")
    message(FATAL_ERROR "expected exit 75 after SIGTERM, got ${result}:\n${log}")
  endif()
  if(NOT log MATCHES "stopped by SIGTERM at step [0-9]+ .*continue with: undertow run .*--restart ")
    message(FATAL_ERROR "no SIGTERM message:\n${log}")
  endif()
  file(GLOB files ${WORK}/s/restart/restart_*.h5)
  list(LENGTH files count)
  if(count LESS 2)
    message(FATAL_ERROR "expected a restart file for SIGUSR1 and one for SIGTERM, found ${count}")
  endif()
  list(GET files -1 newest)
  loads(1 ${newest})
  # The printed command works as printed: the case file, the run's --set values, --restart
  # and --output (here with a t_end before the file's time, so that it loads and stops).
  if(NOT log MATCHES "continue with: undertow run ([^\n]+)")
    message(FATAL_ERROR "no continue command:\n${log}")
  endif()
  separate_arguments(printed UNIX_COMMAND "${CMAKE_MATCH_1}")
  execute_process(COMMAND ${mpi} 1 ${UNDERTOW} run ${printed} --set time.t_end=0.001
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 120)
  if(NOT out MATCHES "nothing to run")
    message(FATAL_ERROR "the printed continue command does not load its restart file:\n${out}")
  endif()
  message(STATUS "SIGUSR1 and SIGTERM each wrote a restart file; the newest loads")
elseif(MODE STREQUAL "kill")
  execute_process(COMMAND ${UNDERTOW} run ${CASE} ${common} --set time.t_end=8 --set restart.every=1
                          --set restart.keep=3 --output ${WORK}/k
                  RESULT_VARIABLE rc TIMEOUT 4 OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    message(FATAL_ERROR "the run finished before it could be killed; make it longer")
  endif()
  file(GLOB files ${WORK}/k/restart/restart_*.h5)
  list(LENGTH files count)
  if(count EQUAL 0)
    message(FATAL_ERROR "no restart file was written before the kill")
  endif()
  foreach(f ${files})
    loads(1 ${f})
    math(EXPR count "${count} - 1")
  endforeach()
  list(LENGTH files left)
  message(STATUS "killed with ${left} restart files left; each of them loads")
endif()
