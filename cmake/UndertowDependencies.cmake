# Finds undertow's dependencies the standard way. Every one can be pointed at a cluster install
# with <Package>_ROOT (MPI_HOME, Kokkos_ROOT, HDF5_ROOT, BOOST_ROOT, GTest_ROOT) or, for PETSc,
# PKG_CONFIG_PATH=$PETSC_DIR/$PETSC_ARCH/lib/pkgconfig.

# --- MPI -------------------------------------------------------------------------------------
find_package(MPI 3.0 REQUIRED COMPONENTS C CXX)

# --- Kokkos (any version >= 3.4, any backend) --------------------------------------------------
find_package(Kokkos REQUIRED)
if(Kokkos_VERSION VERSION_LESS 3.4)
  message(FATAL_ERROR "undertow needs Kokkos >= 3.4, found ${Kokkos_VERSION} in ${Kokkos_DIR}. "
                      "Set Kokkos_ROOT to a newer installation.")
endif()
include(UndertowKokkosRepair)
undertow_repair_kokkos_includes()
# A Kokkos linked statically stays private to each executable and module: its symbols are not
# exported. Otherwise a PETSc that loads a Kokkos of its own (Debian's, through Trilinos' ML)
# binds to ours, and both copies' static objects become one, built and destroyed twice ("double
# free or corruption" at exit, seen on an H200 with a static CUDA Kokkos).
undertow_hide_static_kokkos()

# --- PETSc (pkg-config) ------------------------------------------------------------------------
find_package(PkgConfig REQUIRED)
pkg_check_modules(PETSc REQUIRED IMPORTED_TARGET GLOBAL PETSc>=3.18)

# --- HDF5: parallel only -----------------------------------------------------------------------
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 1.10 REQUIRED COMPONENTS C HL)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR
    "The HDF5 found (${HDF5_VERSION}, include ${HDF5_INCLUDE_DIRS}) is a serial build. undertow "
    "writes its fields collectively and needs a parallel (MPI) HDF5. On Debian/Ubuntu install "
    "libhdf5-openmpi-dev; on a cluster load the parallel HDF5 module or set HDF5_ROOT to it.")
endif()
if(NOT TARGET hdf5::hdf5)
  add_library(hdf5::hdf5 INTERFACE IMPORTED)
  target_include_directories(hdf5::hdf5 INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
  target_link_libraries(hdf5::hdf5 INTERFACE ${HDF5_C_LIBRARIES})
  target_compile_definitions(hdf5::hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})
endif()

# --- Boost.Program_options ---------------------------------------------------------------------
find_package(Boost 1.66 REQUIRED COMPONENTS program_options)

# --- GoogleTest --------------------------------------------------------------------------------
if(UNDERTOW_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# --- ParaView Catalyst (legacy API), optional ----------------------------------------------------
set(UNDERTOW_HAVE_CATALYST OFF)
string(TOUPPER "${UNDERTOW_ENABLE_CATALYST}" _catalyst_mode)
if(NOT _catalyst_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "UNDERTOW_ENABLE_CATALYST must be AUTO, ON or OFF (got '${UNDERTOW_ENABLE_CATALYST}')")
endif()
if(NOT _catalyst_mode STREQUAL "OFF")
  include(UndertowCatalyst)
  undertow_find_catalyst(_catalyst_found)
  if(_catalyst_found)
    set(UNDERTOW_HAVE_CATALYST ON)
  elseif(_catalyst_mode STREQUAL "ON")
    message(FATAL_ERROR "UNDERTOW_ENABLE_CATALYST=ON but ParaView 5.11 with Catalyst was not found. "
                        "Install paraview-dev (see docs/building.md) or set ParaView_DIR, "
                        "or configure with -DUNDERTOW_ENABLE_CATALYST=OFF.")
  endif()
endif()
