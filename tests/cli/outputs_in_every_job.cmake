# Any output in any job (issue 18): the same case asks for diagnostics rows, field snapshots and
# restart files, and gets them from `undertow run` and from the forward sweep of
# `undertow gradient`. Both take the same steps, so their diagnostics.csv must be byte for byte
# the same; the gradient's snapshots must be listed in its fields.xmf; and a run restarted from
# the gradient's restart file must end in the state of the uninterrupted run (state checksums).
#   cmake -DRUN=<mpiexec ... undertow> -DCASE=<ini> -DWORK=<dir> -P outputs_in_every_job.cmake
# RUN's words are separated by '|'.
string(REPLACE "|" ";" undertow "${RUN}")
set(sets --set time.t_end=0.25 --set diagnostics.every=5 --set fields.every=25
         --set restart.every=25 --set restart.keep=3)
file(REMOVE_RECURSE "${WORK}")
function(run_undertow what)
  execute_process(COMMAND ${undertow} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}${err}")
  endif()
  message("${what}: ok")
endfunction()
run_undertow("run" run ${CASE} ${sets} --output ${WORK}/run)
run_undertow("gradient" gradient ${CASE} ${sets} --output ${WORK}/gradient)

file(SHA256 ${WORK}/run/diagnostics.csv run_rows)
file(SHA256 ${WORK}/gradient/diagnostics.csv gradient_rows)
if(NOT run_rows STREQUAL gradient_rows)
  message(FATAL_ERROR "the gradient's diagnostics.csv differs from the run's")
endif()
file(READ ${WORK}/gradient/diagnostics.csv rows)
if(NOT rows MATCHES "\n50,0\\.25")
  message(FATAL_ERROR "the gradient's diagnostics.csv has no row for step 50:\n${rows}")
endif()
file(READ ${WORK}/gradient/fields.xmf series)
foreach(step 000000000 000000025 000000050)
  if(NOT series MATCHES "fields/fields_${step}\\.h5:/velocity_x")
    message(FATAL_ERROR "the gradient's fields.xmf does not list step ${step}")
  endif()
endforeach()

run_undertow("restart from the gradient's file" run ${CASE} ${sets}
             --restart ${WORK}/gradient/restart/restart_000000025.h5 --output ${WORK}/restarted)
file(READ ${WORK}/run/report.json whole)
file(READ ${WORK}/restarted/report.json restarted)
string(JSON whole_sums GET "${whole}" figures state_checksum)
string(JSON restarted_sums GET "${restarted}" figures state_checksum)
if(NOT whole_sums STREQUAL restarted_sums)
  message(FATAL_ERROR "restarted from the gradient's restart file: ${restarted_sums}, "
                      "uninterrupted run: ${whole_sums}")
endif()
message("run and gradient write the same diagnostics; the gradient's restart file continues "
        "to the uninterrupted state (${whole_sums})")
