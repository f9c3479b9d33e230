# A refused command changes nothing (issue 20): a finished run's folder keeps every file byte for
# byte, and a refused command aimed at a new folder does not create it. KIND picks the refusal:
#   restart: `run --restart` of a file that does not exist, into the finished run's folder;
#   resume:  `optimize --resume` of the finished run's folder, which holds no optimisation.
# cmake -DKIND=... -DMPI=<mpiexec|-n> -DRANKS=<n> -DUNDERTOW=... -DCAVITY=... -DSHAPE=... -DWORK=...
#       -P refused_changes_nothing.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
string(REPLACE "|" ";" mpi "${MPI}")
set(good ${WORK}/good_run)
execute_process(COMMAND ${mpi} ${RANKS} ${UNDERTOW} run ${CAVITY} --set domain.cells=16,16
                        --set time.t_end=0.05 --output ${good}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the good run failed (${rc}):\n${out}")
endif()

# Every file and folder below `dir` with the SHA-256 of each file.
function(digest dir result)
  file(GLOB_RECURSE entries LIST_DIRECTORIES true RELATIVE ${dir} ${dir}/*)
  list(SORT entries)
  set(lines "")
  foreach(entry IN LISTS entries)
    if(IS_DIRECTORY ${dir}/${entry})
      string(APPEND lines "${entry}/\n")
    else()
      file(SHA256 ${dir}/${entry} hash)
      string(APPEND lines "${entry} ${hash}\n")
    endif()
  endforeach()
  set(${result} "${lines}" PARENT_SCOPE)
endfunction()
digest(${good} before)

if(KIND STREQUAL "restart")
  set(into_good run ${CAVITY} --output ${good} --restart ${WORK}/no_such_restart.h5)
  set(into_new run ${CAVITY} --output ${WORK}/new_run --restart ${WORK}/no_such_restart.h5)
  set(expect "no such file")
elseif(KIND STREQUAL "resume")
  set(into_good optimize ${SHAPE} --resume ${good})
  set(into_new optimize ${SHAPE} --resume ${WORK}/new_run)
  set(expect "cannot read the evaluation journal")
else()
  message(FATAL_ERROR "unknown KIND ${KIND}")
endif()

foreach(command into_good into_new)
  execute_process(COMMAND ${mpi} ${RANKS} ${UNDERTOW} ${${command}}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out TIMEOUT 120)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${command}: expected exit 2, got ${rc}:\n${out}")
  endif()
  if(NOT out MATCHES "${expect}")
    message(FATAL_ERROR "${command}: message does not match '${expect}':\n${out}")
  endif()
endforeach()

digest(${good} after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "the refused command changed the run's folder:\nbefore:\n${before}after:\n${after}")
endif()
if(EXISTS ${WORK}/new_run)
  message(FATAL_ERROR "the refused command created ${WORK}/new_run")
endif()
message(STATUS "refused, and nothing changed:\n${before}")
