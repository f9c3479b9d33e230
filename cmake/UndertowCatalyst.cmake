# Finds ParaView's legacy Catalyst API (ParaView 5.11). Debian's exported VTK targets name external
# targets that its own config never finds, so those are found first (see docs/building.md).
# MPI, HDF5 (C, HL) and Boost are found before this (UndertowDependencies.cmake). The adaptor is
# the plugin io/catalyst (undertow_catalyst.so), loaded by runs that have a [catalyst] section.
function(undertow_find_catalyst out_var)
  set(${out_var} FALSE PARENT_SCOPE)
  find_package(Freetype QUIET)
  find_package(GLEW QUIET)
  find_package(LibXml2 QUIET)
  find_package(X11 QUIET)
  find_package(netCDF CONFIG QUIET)
  if(TARGET netCDF::netcdf AND NOT TARGET NetCDF::NetCDF)
    add_library(NetCDF::NetCDF INTERFACE IMPORTED)
    target_link_libraries(NetCDF::NetCDF INTERFACE netCDF::netcdf)
  endif()
  find_package(ParaView 5.11 QUIET CONFIG COMPONENTS Catalyst PythonCatalyst)
  if(NOT ParaView_FOUND)
    return()
  endif()
  set(UNDERTOW_PARAVIEW_VERSION "${ParaView_VERSION}" CACHE INTERNAL "")
  set(${out_var} TRUE PARENT_SCOPE)
endfunction()
