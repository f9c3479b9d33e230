# Installs the libraries, every public header, the executable and a CMake package so that a
# downstream project can write find_package(undertow) and link undertow::core, undertow::io,
# undertow::solvers, undertow::adjoint_core, undertow::adjoint and undertow::optimisation.
include(CMakePackageConfigHelpers)

get_property(_libs GLOBAL PROPERTY UNDERTOW_LIBRARIES)
install(TARGETS ${_libs} undertow
  EXPORT undertowTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(_component core io solvers adjoint adjoint/optimisation)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_component}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

set(UNDERTOW_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/undertow)
install(EXPORT undertowTargets NAMESPACE undertow:: DESTINATION ${UNDERTOW_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/undertowConfig.cmake.in
  ${PROJECT_BINARY_DIR}/undertowConfig.cmake INSTALL_DESTINATION ${UNDERTOW_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/undertowConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/undertowConfig.cmake ${PROJECT_BINARY_DIR}/undertowConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/UndertowKokkosRepair.cmake DESTINATION ${UNDERTOW_CMAKE_DIR})
