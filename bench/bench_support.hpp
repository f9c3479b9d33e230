#pragma once
// Shared by the benchmarks: the STREAM-like triad that every bandwidth figure is compared with,
// the process's peak memory, and the cylinder-in-a-channel flow of the gradient benchmarks.

#include "undertow/core/communicator.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/mpi_start.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <mpi.h>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace undertow {
namespace bench {

/// The widest host vector instructions this build was compiled for: "AVX2" (UNDERTOW_AVX2) or
/// "SSE2" (x86-64's baseline), for the benchmarks' headers.
inline const char* host_vector_isa() {
#if defined(__AVX2__)
  return "AVX2";
#elif defined(__SSE2__)
  return "SSE2";
#else
  return "default";
#endif
}

/// Elements per array for triad_bandwidth: 2^24 (3 x 128 MiB) on host backends; 2^27 (3 x 1 GiB)
/// on a device, where 128 MiB arrays take 0.1 ms and launch overhead lowers the figure.
inline long triad_elements() {
  return Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible ? 1L << 24
                                                                                   : 1L << 27;
}

/// One pass of the triad a = b + 3 c, fenced. Not collective.
inline void triad_pass(const Kokkos::View<double*, MemorySpace>& a,
                       const Kokkos::View<double*, MemorySpace>& b,
                       const Kokkos::View<double*, MemorySpace>& c) {
  Kokkos::parallel_for(
      "bench::triad", Kokkos::RangePolicy<ExecutionSpace>(0, long(a.extent(0))),
      KOKKOS_LAMBDA(long i) { a(i) = b(i) + 3.0 * c(i); });
  Kokkos::fence();
}

/// Best-of-`reps` bandwidth [GB/s] of a = b + s c over all ranks at once (3 x 8 bytes per element,
/// counted as STREAM does), timed after passes that run for at least `warm_up_s` seconds: a GPU
/// idle before the benchmark starts at a low clock (345 MHz seen on an H200) and a CPU core may
/// too, while the kernels compared with the triad are timed after many steps. Collective.
inline double triad_bandwidth(const Communicator& comm, long n, int reps, double warm_up_s = 0.3) {
  Kokkos::View<double*, MemorySpace> a("triad::a", n), b("triad::b", n), c("triad::c", n);
  Kokkos::deep_copy(b, 1.0);
  Kokkos::deep_copy(c, 2.0);
  const auto warm_up_start = std::chrono::steady_clock::now();
  bool warm = false;
  while (!warm) { // every rank decides together, so the passes overlap on all of them
    triad_pass(a, b, c);
    warm = comm.min(std::chrono::duration<double>(std::chrono::steady_clock::now() - warm_up_start)
                        .count()) >= warm_up_s;
  }
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    comm.barrier();
    const auto t0 = std::chrono::steady_clock::now();
    triad_pass(a, b, c);
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

/// This process's heap as glibc's allocator sees it now [MiB]: what it holds in its main heap
/// (`arena`, resident once touched), in separate mappings (`mapped`, blocks above the mmap
/// threshold) and what of both is in use. A heap that grows while `in_use` does not is
/// fragmentation. All zero where the C library is not glibc 2.33 or later. Not collective.
struct HeapFigures {
  double arena = 0, mapped = 0, in_use = 0;
};
inline HeapFigures heap_figures() {
  HeapFigures h;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  h.arena = double(m.arena) / 1048576.0;
  h.mapped = double(m.hblkhd) / 1048576.0;
  h.in_use = double(m.uordblks + m.hblkhd) / 1048576.0;
#endif
  return h;
}

/// MPI, Kokkos and PETSc for the lifetime of a benchmark (in this order, ended in reverse), and
/// its command-line arguments. Collective.
class Session {
 public:
  Session(int& argc, char**& argv)
      : m_mpi(argc, argv), m_kokkos(MPI_COMM_WORLD, argc, argv), m_petsc(MPI_COMM_WORLD),
        m_comm(MPI_COMM_WORLD), m_argc(argc), m_argv(argv) {}
  const Communicator& comm() const { return m_comm; }
  /// Argument i (1-based) as a number or text, or `fallback` if absent.
  double number(int i, double fallback) const {
    return i < m_argc ? std::atof(m_argv[i]) : fallback;
  }
  std::string text(int i, const std::string& fallback) const {
    return i < m_argc ? m_argv[i] : fallback;
  }
  /// Runs the benchmark's body and gives main()'s exit status: 0, or 1 with the error named on
  /// stderr if it throws (a diverged flow, a full disk) instead of an uncaught exception's
  /// abort. An error raised on every rank (CollectiveError) is printed once and the ranks end
  /// together; one raised on a single rank aborts them all, since the others would wait for it.
  /// Collective.
  int run(const std::string& name, const std::function<void()>& body) const {
    try {
      body();
      return 0;
    } catch (const CollectiveError& e) {
      if (m_comm.is_root())
        std::fprintf(stderr, "%s: error: %s\n", name.c_str(), e.what());
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: error on rank %d: %s\n%s: aborting all ranks\n", name.c_str(),
                   m_comm.rank(), e.what(), name.c_str());
      std::fflush(stdout);
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
      return 1;
    }
  }

 private:
  struct Mpi {
    Mpi(int& argc, char**& argv) { mpi_init(argc, argv); }
    ~Mpi() { MPI_Finalize(); }
  } m_mpi;
  KokkosSession m_kokkos;
  linear::PetscSession m_petsc;
  Communicator m_comm;
  int m_argc;
  char** m_argv;
};

/// A cylinder of `radius` centred at (cx, cy) in a channel: parabolic inflow of peak `u_max` at
/// x-, outflow at x+, no-slip walls; viscosity `nu` [m^2/s]; pressure tolerance `rtol`.
inline navier_stokes::NavierStokesParams
cylinder_in_channel(double nu, double u_max, double cx, double cy, double radius, double rtol) {
  navier_stokes::NavierStokesParams p;
  p.nu = nu;
  auto& f = p.boundaries.face;
  f[0].kind = navier_stokes::BoundaryKind::Inflow;
  f[0].velocity[0] = u_max;
  f[0].profile = navier_stokes::InflowProfile::Parabolic;
  f[1].kind = navier_stokes::BoundaryKind::Outflow;
  navier_stokes::Shape body;
  body.centre[0] = cx;
  body.centre[1] = cy;
  body.radius = radius;
  p.obstacles.shapes = {body};
  p.pressure.rtol = rtol;
  return p;
}

/// Wall-clock seconds since t0. Not collective.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace bench
} // namespace undertow
