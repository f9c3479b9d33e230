# The batch scripts of `undertow submit --dry-run` against the reviewed ones in tests/cli/data/,
# with the machine's paths replaced by @SOURCE@, @UNDERTOW@ and @WORK@.
#   cmake -DUNDERTOW=<exe> -DSOURCE=<source dir> -DWORK=<dir> -DSCHEDULER=slurm|pbs
#         -DGOLDEN=<file> -P submit_golden.cmake
cmake_policy(VERSION 3.16) # "@WORD@" is text, not a variable (CMP0053)
execute_process(COMMAND ${UNDERTOW} submit ${SOURCE}/cases/cylinder/gradient_re100.ini gradient
                        --scheduler ${SCHEDULER} --walltime 1-12:00:00 --nodes 2
                        --tasks-per-node 4 --cpus-per-task 2 --partition compute --account proj42
                        --directive --mail-type=END --setup "module load petsc hdf5"
                        --set "time.t_end=1" --set "domain.cells=352 66" --output ${WORK}/job
                        --dry-run
                RESULT_VARIABLE rc OUTPUT_VARIABLE script ERROR_VARIABLE errors)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "undertow submit --dry-run failed (${rc}): ${errors}")
endif()
get_filename_component(exe "${UNDERTOW}" REALPATH)
# The longest first: the executable and the work folder may lie in the source tree.
string(REPLACE "${exe}" "@UNDERTOW@" script "${script}")
string(REPLACE "${WORK}" "@WORK@" script "${script}")
string(REPLACE "${SOURCE}" "@SOURCE@" script "${script}")
file(READ ${GOLDEN} golden)
if(NOT script STREQUAL golden)
  file(WRITE ${WORK}/${SCHEDULER}.script "${script}")
  message(FATAL_ERROR "the ${SCHEDULER} script differs from ${GOLDEN}; see the new one in "
                      "${WORK}/${SCHEDULER}.script (diff them; if the change is meant, copy it)")
endif()
message(STATUS "the ${SCHEDULER} script is the reviewed one (${GOLDEN})")
