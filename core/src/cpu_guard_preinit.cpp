/// \file
/// The executables' CPU check (cpu_guard.cpp): an entry of .preinit_array, which the dynamic
/// loader runs before the initialisers of every shared library, so before anything compiled for
/// AVX2 can run. Executables only (the linker refuses .preinit_array in a shared object); kept
/// by core/CMakeLists.txt's --undefined=undertow_cpu_guard_preinit.

#include "cpu_guard.hpp"

namespace {

void check_before_the_libraries(int, char**, char**) {
  undertow::refuse_a_cpu_without_the_build_features();
}

} // namespace

__attribute__((section(".preinit_array"),
               used)) static void (*const preinit_entry)(int, char**,
                                                         char**) = &check_before_the_libraries;

extern "C" void undertow_cpu_guard_preinit() {}
