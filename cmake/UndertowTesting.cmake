# Test registration: every MPI test is written once and registered at several rank counts.

# Environment for mpiexec in tests: OpenMPI refuses root and more ranks than cores unless told.
# The tests run on one node: the ob1 PML over shared memory (vader) starts a job in 0.1 s, where
# the default UCX PML spends 0.2 s more probing its transports at every start (measured with an
# empty MPI_Init/MPI_Finalize program: 0.31 s against 0.11 s). Thousands of CI tests and fuzz
# commands start an MPI job; the numbers they compute do not depend on the PML.
# After a job's rank exits non-zero, mpirun waits 1 s between SIGTERM and SIGKILL to the others,
# twice: 2 s of every refused command (over a hundred tests expect one). The ranks of undertow
# leave together after their collective error or resume record, so that wait changes nothing a
# test sees (odls_base_sigkill_timeout = 0; the signal tests signal the ranks, not mpirun).
set(UNDERTOW_TEST_ENVIRONMENT
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp
    OMPI_MCA_odls_base_sigkill_timeout=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
    OMPI_MCA_hwloc_base_binding_policy=none)

# Ranks are not bound to cores (hwloc_base_binding_policy=none). OpenMPI binds the ranks of each
# small job to the first cores, counting from core 0 in every job: two 1-rank tests that ctest
# runs side by side were both bound to core 0 and shared it while core 1 idled. A rank that polls
# (MUMPS probing for messages, yielding when idle) then ran a 2 s test in 200 s.
#
# A threaded Kokkos (OpenMP): each rank's thread count is undertow's default
# (core/include/undertow/core/threads.hpp), which splits the CPUs a rank may run on between the
# ranks sharing them; unbound, a 1-rank test runs on all the machine's cores and a 2-rank test
# splits them. OMP_PROC_BIND stays false so that the threads are not pinned either.
if("OPENMP" IN_LIST Kokkos_DEVICES)
  list(APPEND UNDERTOW_TEST_ENVIRONMENT OMP_PROC_BIND=false)
endif()

# undertow_mpi_command(<out> <ranks> <command...>): the mpiexec command line for <ranks> ranks.
function(undertow_mpi_command out ranks)
  set(${out} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} ${MPIEXEC_PREFLAGS} ${ARGN}
      ${MPIEXEC_POSTFLAGS} PARENT_SCOPE)
endfunction()

# undertow_add_test(<name> SOURCES ... LIBS ... RANKS 1 2 4 LABELS ... [SLOW_RANKS 4]
#                   [RANKS_IN_SLOW 2] [SLOW_AT 4 SLOW_CASES Suite.Case:...] [PETSC])
# Builds test_<name> with the MPI-aware GoogleTest main and registers <name>_np<N> per rank count.
# Test cases whose suite name ends in "Slow" run only in <name>_slow_np<N> (label slow), registered
# for SLOW_RANKS. RANKS_IN_SLOW: rank counts at which <name>_np<N> (all but the Slow suites) is
# registered with the label slow, for tests whose minutes at one rank count are what CI can afford
# (their rank invariance shown by a cheaper test). SLOW_AT / SLOW_CASES: at the rank counts
# SLOW_AT, the cases matching SLOW_CASES (a GoogleTest pattern list, ':'-separated) leave
# <name>_np<N> for <name>_slow_cases_np<N> (label slow): studies that CI runs at the other rank
# counts and whose 4 oversubscribed ranks cost more than they show (the decomposition's own
# tests stay in CI). PETSC: the main also initialises PETSc.
function(undertow_add_test name)
  cmake_parse_arguments(ARG "PETSC" "TIMEOUT;SLOW_CASES"
                        "SOURCES;LIBS;RANKS;LABELS;SLOW_RANKS;RANKS_IN_SLOW;SLOW_AT" ${ARGN})
  if(NOT ARG_RANKS)
    set(ARG_RANKS 1)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set(main undertow_test_main)
  if(ARG_PETSC)
    set(main undertow_test_main_petsc)
  endif()
  add_executable(test_${name} ${ARG_SOURCES} $<TARGET_OBJECTS:${main}>)
  target_link_libraries(test_${name} PRIVATE ${ARG_LIBS} GTest::gtest)
  target_include_directories(test_${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  undertow_set_warnings(test_${name})
  foreach(ranks IN LISTS ARG_RANKS ARG_RANKS_IN_SLOW)
    set(labels ${ARG_LABELS})
    if(ranks IN_LIST ARG_RANKS_IN_SLOW)
      list(APPEND labels slow)
    endif()
    set(excluded "*Slow.*")
    if(ranks IN_LIST ARG_SLOW_AT)
      set(excluded "${excluded}:${ARG_SLOW_CASES}")
      undertow_mpi_command(cmd ${ranks} $<TARGET_FILE:test_${name}>
                           "--gtest_filter=${ARG_SLOW_CASES}")
      add_test(NAME ${name}_slow_cases_np${ranks} COMMAND ${cmd})
      # A pattern that no longer names a case (renamed) would run nothing: that fails.
      set_tests_properties(${name}_slow_cases_np${ranks} PROPERTIES
        PROCESSORS ${ranks} LABELS "${ARG_LABELS};slow" TIMEOUT 1200
        FAIL_REGULAR_EXPRESSION "Running 0 tests" ENVIRONMENT "${UNDERTOW_TEST_ENVIRONMENT}")
    endif()
    undertow_mpi_command(cmd ${ranks} $<TARGET_FILE:test_${name}> "--gtest_filter=-${excluded}")
    add_test(NAME ${name}_np${ranks} COMMAND ${cmd})
    set_tests_properties(${name}_np${ranks} PROPERTIES
      PROCESSORS ${ranks} LABELS "${labels}" TIMEOUT ${ARG_TIMEOUT}
      ENVIRONMENT "${UNDERTOW_TEST_ENVIRONMENT}")
  endforeach()
  foreach(ranks IN LISTS ARG_SLOW_RANKS)
    undertow_mpi_command(cmd ${ranks} $<TARGET_FILE:test_${name}> --gtest_filter=*Slow.*)
    add_test(NAME ${name}_slow_np${ranks} COMMAND ${cmd})
    set_tests_properties(${name}_slow_np${ranks} PROPERTIES
      PROCESSORS ${ranks} LABELS "${ARG_LABELS};slow" TIMEOUT 1200
      ENVIRONMENT "${UNDERTOW_TEST_ENVIRONMENT}")
  endforeach()
endfunction()

# undertow_private_mpi_session_dirs(): gives every test registered so far in the calling directory
# its own OpenMPI session-directory base (OMPI_MCA_orte_tmpdir_base). OpenMPI creates
# /tmp/ompi.<host>.<uid> when a job starts and removes it when the job ends, so two tests that
# start mpiexec at the same moment can race on it ("mkdir /tmp/ompi.vm.0: File exists"). The base
# is short because OpenMPI's sockets live below it (108 characters at most); OpenMPI creates it.
# Call it at the end of each CMakeLists.txt that registers tests.
function(undertow_private_mpi_session_dirs)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    string(MD5 hash "${CMAKE_CURRENT_BINARY_DIR}/${test}")
    string(SUBSTRING "${hash}" 0 12 hash)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT "OMPI_MCA_orte_tmpdir_base=/tmp/undertow-mpi-${hash}")
  endforeach()
endfunction()

# undertow_labels_slow_at(<out> <ranks> <slow ranks> <labels...>): <labels...>, with slow added
# when <ranks> equals <slow ranks>: for a test registered at several rank counts whose run at one
# of them (typically 4 ranks, oversubscribed on 2 cores) goes to the slow label.
function(undertow_labels_slow_at out ranks slow_ranks)
  set(labels ${ARGN})
  if(ranks EQUAL slow_ranks)
    list(APPEND labels slow)
  endif()
  set(${out} "${labels}" PARENT_SCOPE)
endfunction()
