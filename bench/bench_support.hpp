#pragma once
// Shared by the benchmarks: the STREAM-like triad that every bandwidth figure is compared with,
// the process's peak memory, and the cylinder-in-a-channel flow of the gradient benchmarks.

#include "undertow/core/communicator.hpp"
#include "undertow/core/field.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

namespace undertow {
namespace bench {

/// Best-of-`reps` bandwidth [GB/s] of a = b + s c over all ranks at once (3 x 8 bytes per element,
/// counted as STREAM does). Collective.
inline double triad_bandwidth(const Communicator& comm, long n, int reps) {
  Kokkos::View<double*, MemorySpace> a("triad::a", n), b("triad::b", n), c("triad::c", n);
  Kokkos::deep_copy(b, 1.0);
  Kokkos::deep_copy(c, 2.0);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    Kokkos::parallel_for(
        "bench::triad", Kokkos::RangePolicy<ExecutionSpace>(0, n),
        KOKKOS_LAMBDA(long i) { a(i) = b(i) + 3.0 * c(i); });
    Kokkos::fence();
    const double t =
        comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    best = std::min(best, t);
  }
  return 3.0 * 8.0 * double(n) * comm.size() / best / 1e9;
}

/// Peak resident memory of this process so far [MiB] (VmHWM), 0 where /proc is missing. Not
/// collective.
inline double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      in >> kib;
      return kib / 1024.0;
    }
    in.ignore(1 << 12, '\n');
  }
  return 0;
}

/// Wall-clock seconds since t0. Not collective.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace bench
} // namespace undertow
