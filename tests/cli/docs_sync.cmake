# Checks that docs/configuration.md holds exactly what `undertow keys --markdown` prints between
# its markers, so the documented keys, defaults and meanings cannot drift from the code.
#   cmake -DUNDERTOW=<exe> -DDOC=<docs/configuration.md> -P docs_sync.cmake
execute_process(COMMAND ${UNDERTOW} keys --markdown RESULT_VARIABLE rc OUTPUT_VARIABLE generated)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "undertow keys --markdown failed: ${rc}")
endif()
file(READ "${DOC}" doc)
set(begin "<!-- BEGIN GENERATED KEYS -->\n")
set(end "<!-- END GENERATED KEYS -->")
string(FIND "${doc}" "${begin}" b)
string(FIND "${doc}" "${end}" e)
if(b EQUAL -1 OR e EQUAL -1)
  message(FATAL_ERROR "${DOC} lacks the generated-keys markers")
endif()
string(LENGTH "${begin}" begin_length)
math(EXPR start "${b} + ${begin_length}")
math(EXPR length "${e} - ${start}")
string(SUBSTRING "${doc}" ${start} ${length} documented)
if(NOT documented STREQUAL generated)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/configuration.generated.md" "${generated}")
  message(FATAL_ERROR "docs/configuration.md is out of date with the code. Regenerate the part "
                      "between the markers from `build/bin/undertow keys --markdown` "
                      "(written to ${CMAKE_CURRENT_BINARY_DIR}/configuration.generated.md).")
endif()
