# Installs undertow from the build tree into a scratch prefix, then configures, builds and runs
# the downstream project against it.
#   cmake -DBUILD=<undertow build> -DSOURCE=<tests/downstream> -DWORK=<scratch> -P check.cmake
file(REMOVE_RECURSE "${WORK}")
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD};--prefix;${WORK}/prefix"
    "${CMAKE_COMMAND};-S;${SOURCE};-B;${WORK}/build;-DCMAKE_PREFIX_PATH=${WORK}/prefix"
    "${CMAKE_COMMAND};--build;${WORK}/build"
    "${WORK}/build/downstream")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${step}")
  endif()
endforeach()
