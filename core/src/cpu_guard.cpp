/// \file
/// The check that this CPU runs what the build was compiled for, made before anything else of
/// the program runs. A build for AVX2 (UNDERTOW_AVX2=ON) has AVX instructions everywhere: in
/// static initialisers, in main() before its first line, and in the C++ library templates it
/// instantiates, which the shared libraries it loads (Trilinos, through PETSc) then call from
/// their own initialisers, the executable's copy taking precedence over theirs. A check made in
/// main() is too late: on a CPU without AVX2 the program died of SIGILL with no word of why. The
/// check's files are compiled without AVX (core/CMakeLists.txt), and run
/// - in an executable, from its .preinit_array (cpu_guard_preinit.cpp): before every shared
///   library's initialiser;
/// - in a module (the Python package, the Catalyst adaptor), from a constructor that runs before
///   the module's own static initialisers; such modules keep their symbols to themselves
///   (--exclude-libs), so that the libraries they load cannot call into them earlier.

#include "cpu_guard.hpp"

#include <cstring>
#include <unistd.h>

namespace undertow {

const char* missing_cpu_feature() {
#if defined(UNDERTOW_BUILT_FOR_AVX2) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init(); // may run before libgcc's own constructor
  if (!__builtin_cpu_supports("avx2"))
    return "this undertow was compiled for CPUs with AVX2 (UNDERTOW_AVX2=ON) and this CPU has "
           "none: rebuild with cmake -DUNDERTOW_AVX2=OFF (jobs/quickstart.sh: UNDERTOW_AVX2=OFF)";
#endif
  return nullptr;
}

void refuse_a_cpu_without_the_build_features() {
  if (const char* missing = missing_cpu_feature()) {
    // Every process says it (MPI is not started yet) and ends with status 2, the status of a
    // refused input; write(2) and _exit because nothing built for AVX2 may run.
    const char prefix[] = "undertow: ";
    ssize_t ignored = write(STDERR_FILENO, prefix, sizeof prefix - 1);
    ignored = write(STDERR_FILENO, missing, std::strlen(missing));
    ignored = write(STDERR_FILENO, "\n", 1);
    (void)ignored;
    _exit(2);
  }
}

namespace {

// Priority 101: before the module's ordinary static initialisers.
__attribute__((constructor(101))) void check_when_loaded() {
  refuse_a_cpu_without_the_build_features();
}

} // namespace
} // namespace undertow

/// What the linker is told to keep in modules (core/CMakeLists.txt: --undefined), so that every
/// module that links the static undertow_core has the constructor above.
extern "C" void undertow_cpu_guard() {}
