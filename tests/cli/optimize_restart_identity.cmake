# An optimisation's evaluation journal is tied to its start: `optimize --resume` with the
# --restart file the run started from replays its evaluations, and with another restart file is
# refused (exit 2, naming --restart) instead of replaying evaluations of the other start.
# cmake -DMPI=<mpiexec|-n|2> -DUNDERTOW=... -DCASE=<rabault.ini> -DWORK=... -P optimize_restart_identity.cmake
file(REMOVE_RECURSE ${WORK})
string(REPLACE "|" ";" mpi "${MPI}")
set(common --set "domain.cells=110 21" --set obstacle1.jet_width=60 --set time.dt=0.004)
set(design --set time.t_end=0.04 --set obstacle1.jet_signal_interval=0,0.04
           --set optimize.max_iterations=1)

function(undertow expect_rc expect)
  execute_process(COMMAND ${mpi} ${UNDERTOW} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out TIMEOUT 300)
  if(NOT rc EQUAL expect_rc OR NOT out MATCHES "${expect}")
    message(FATAL_ERROR "undertow ${ARGN}: exit ${rc} (expected ${expect_rc}), output not "
                        "matching '${expect}':\n${out}")
  endif()
  message(STATUS "undertow ${ARGN}: exit ${rc}, as expected")
endfunction()

# Two starts: restart files at steps 5 and 10 of one run.
undertow(0 "restart file for step 10" run ${CASE} ${common} --set time.t_end=0.04
         --set restart.every=5 --set restart.keep=2 --output ${WORK}/street)
set(first ${WORK}/street/restart/restart_000000005.h5)
set(second ${WORK}/street/restart/restart_000000010.h5)
undertow(0 "objective: " optimize ${CASE} ${common} ${design} --restart ${first}
         --output ${WORK}/opt)
undertow(0 "resuming: [1-9][0-9]* recorded evaluations" optimize ${CASE} ${common} ${design}
         --restart ${first} --resume ${WORK}/opt)
undertow(2 "belongs to another optimisation .*--restart start.*-start[0-9a-f]+.*resume with the same .*--restart file"
         optimize ${CASE} ${common} ${design} --restart ${second} --resume ${WORK}/opt)
undertow(2 "belongs to another optimisation" optimize ${CASE} ${common} ${design}
         --resume ${WORK}/opt)
