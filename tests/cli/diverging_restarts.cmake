# A diverging run keeps good restart files (issue 20): with a restart file every step and the
# default rotation (restart.keep), the files left after the divergence are all of steps before
# the step the guard refused, every one of them loads, and the run exits 3 naming the step.
# cmake -DMPI=<mpiexec|-n> -DRANKS=<n> -DUNDERTOW=... -DCAVITY=... -DWORK=... -P diverging_restarts.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
string(REPLACE "|" ";" mpi "${MPI}")
set(common ${CAVITY} --set domain.cells=16,16 --set fluid.nu=1e-5 --set time.dt=2)
execute_process(COMMAND ${mpi} ${RANKS} ${UNDERTOW} run ${common} --set time.t_end=200
                        --set restart.every=1 --output ${WORK}/run
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 120)
if(NOT rc EQUAL 3 OR NOT out MATCHES "diverged at step ([0-9]+)")
  message(FATAL_ERROR "expected a divergence (exit 3), got ${rc}:\n${out}")
endif()
set(diverged ${CMAKE_MATCH_1})
file(GLOB files ${WORK}/run/restart/restart_*.h5)
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "no restart file was kept:\n${out}")
endif()
foreach(f IN LISTS files)
  string(REGEX MATCH "restart_0*([0-9]+)\\.h5$" _ "${f}")
  if(NOT CMAKE_MATCH_1 LESS diverged)
    message(FATAL_ERROR "${f} is of step ${CMAKE_MATCH_1}, not before the divergence at step ${diverged}")
  endif()
  # It loads and passes every check (then refuses: t_end is before its time).
  execute_process(COMMAND ${mpi} ${RANKS} ${UNDERTOW} run ${common} --set time.t_end=1e-3
                          --restart ${f} --output ${WORK}/loads
                  RESULT_VARIABLE rc OUTPUT_VARIABLE load_out ERROR_VARIABLE load_out TIMEOUT 120)
  if(NOT load_out MATCHES "nothing to run")
    message(FATAL_ERROR "${f} does not load:\n${load_out}")
  endif()
endforeach()
message(STATUS "diverged at step ${diverged}; ${count} restart file(s) kept, all before it, all load")
