#pragma once
/// \file
/// The check that this CPU runs what the build was compiled for (cpu_guard.cpp): private to
/// undertow_core, called only from cpu_guard.cpp and cpu_guard_preinit.cpp, which are compiled
/// without AVX. Nothing here may include a header with inline code that an AVX2 build would
/// compile with AVX.

namespace undertow {

/// What the CPU lacks that this build was compiled for (UNDERTOW_AVX2=ON on a CPU without
/// AVX2), as a message naming the fix; nullptr if nothing. Not collective.
const char* missing_cpu_feature();

/// Says missing_cpu_feature() on stderr and ends the process with status 2 if the CPU lacks
/// anything. Every executable and module that links undertow_core calls it before anything else
/// of it runs; not collective.
void refuse_a_cpu_without_the_build_features();

} // namespace undertow
