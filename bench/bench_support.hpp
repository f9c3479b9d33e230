#pragma once
// Shared by the benchmarks: the STREAM-like triad that every bandwidth figure is compared with,
// the process's peak memory, and the cylinder-in-a-channel flow of the gradient benchmarks.

#include "undertow/core/communicator.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mpi.h>
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

 private:
  struct Mpi {
    Mpi(int& argc, char**& argv) { MPI_Init(&argc, &argv); }
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
