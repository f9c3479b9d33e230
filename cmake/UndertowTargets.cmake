# Helpers that give every undertow target the same flags, layout and export name.

# undertow_add_library(<component> SOURCES ... DEPENDS ...)
# Creates undertow_<component>, aliased undertow::<component>, with public headers in
# <component>/include and installed under include/undertow/<component>.
function(undertow_add_library component)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  set(target undertow_${component})
  add_library(${target} ${ARG_SOURCES})
  add_library(undertow::${component} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${component} OUTPUT_NAME undertow_${component})
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${target} PUBLIC cxx_std_17)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_DEPENDS} PRIVATE ${ARG_PRIVATE_DEPENDS})
  undertow_set_warnings(${target})
  set_property(GLOBAL APPEND PROPERTY UNDERTOW_LIBRARIES ${target})
endfunction()

# Warnings for undertow's own code only: dependency headers come in as system includes.
function(undertow_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra)
    if(UNDERTOW_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
  # Device code that calls a host function (a std::array's operator[], say) compiles under nvcc
  # with a warning and computes garbage on the GPU: always an error here. 20011/20014: a
  # __host__ function called from __host__ __device__ code; 20013/20015: a constexpr one.
  if(Kokkos_ENABLE_CUDA AND Kokkos_CXX_COMPILER_ID STREQUAL "NVIDIA")
    foreach(diag 20011 20013 20014 20015)
      target_compile_options(${target} PRIVATE "SHELL:-Xcudafe --diag_error=${diag}")
    endforeach()
  endif()
endfunction()
