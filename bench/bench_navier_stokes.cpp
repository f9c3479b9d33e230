// Benchmark of the Navier-Stokes step on lid-driven cavities (2D 256^2 and 512^2, 3D 64^3): time
// per step split by phase, cell updates per second, pressure iterations per step against the
// grid, and the explicit kernels' effective bandwidth against a triad measured in the same run.
// Each grid runs with both pressure CGs (column cg): PETSc's KSPCG on host vectors and the
// Kokkos CG on the fields' memory (pressure.krylov = petsc / kokkos).
//
//   mpiexec -n R build/bin/bench_navier_stokes [steps] [large | weak]
//
// `large` runs larger grids instead (2D 1024^2 to 4096^2, 3D 128^3 and 256^3), with the Kokkos CG
// only: the sizes that fill a GPU, where the kernels' bandwidth is measured (minutes on a CPU).
// `weak` measures weak scaling in one run: 512^2 (2D) and 64^3 (3D) cells per rank, first on
// rank 0 alone, then on all R ranks (the grid R times larger, split as MPI_Dims_create splits
// R), and prints the efficiency t(1 rank) / t(R ranks) per step. The pressure CG is
// pressure.krylov = auto's choice.
//
// Effective bandwidth of the momentum kernel counts its minimum traffic per stage: for each of
// the dim components, read dim velocity fields (the stencil's values, if caches hold them) and
// u0, write the result: (dim + 2) * 8 bytes per face per component.

#include "bench_support.hpp"

#include "undertow/solvers/linear/petsc_session.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <string>
#include <thread>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;

/// Times `steps` steps of the cavity on `cells` and prints its row (rank 0). Returns the time
/// per step [s]. Collective over `comm`.
double measure(const Communicator& comm, int dim, std::array<long, 3> cells, long steps,
               double triad, linear::PressureKrylov krylov) {
  DomainSpec spec;
  spec.dim = dim;
  spec.cells = cells;
  const Domain domain(comm, spec);
  NavierStokesParams p;
  p.nu = 0.01;
  p.boundaries.face[3].velocity[0] = 1.0; // lid
  p.pressure.krylov = krylov;
  NavierStokes ns(domain, p);
  const double dt = ns.stable_dt(0.5) * 0.5; // a fixed dt well inside the limits
  for (int warm = 0; warm < 3; ++warm)
    ns.step(dt); // warm-up: first touch, AMG set-up, a flow to solve for
  ns.timers() = Timers();
  long iterations = 0;
  comm.barrier();
  const auto t0 = std::chrono::steady_clock::now();
  for (long s = 0; s < steps; ++s) {
    ns.step(dt);
    iterations += ns.poisson_iterations();
  }
  Kokkos::fence();
  const double total =
      comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const Timers& t = ns.timers();
  const double momentum = comm.max(t.seconds("momentum")) / steps;
  const double poisson = comm.max(t.seconds("poisson")) / steps;
  const double halo = comm.max(t.seconds("boundary+halo")) / steps;
  const double projection = comm.max(t.seconds("projection")) / steps;
  const double step = total / steps;
  const double count = double(cells[0]) * cells[1] * cells[2];
  const double bytes = 3.0 * dim * (dim + 2) * 8.0 * count;
  const std::string grid = std::to_string(cells[0]) + "x" + std::to_string(cells[1]) +
                           (dim == 3 ? "x" + std::to_string(cells[2]) : "");
  if (comm.is_root())
    std::printf("%4d %12s %7s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %12.2f %8.1f %9.2f "
                "%6.0f%%\n",
                dim, grid.c_str(),
                krylov == linear::PressureKrylov::Kokkos  ? "kokkos"
                : krylov == linear::PressureKrylov::Petsc ? "petsc"
                                                          : "auto",
                1e3 * step, 1e3 * momentum, 1e3 * poisson, 1e3 * halo, 1e3 * projection,
                1e3 * std::max(0.0, step - momentum - poisson - halo - projection),
                count / step / 1e6, double(iterations) / steps, bytes / momentum / 1e9,
                100.0 * bytes / momentum / 1e9 / triad);
  return step;
}

/// The cube (square in 2D) of n cells a side.
std::array<long, 3> cube(int dim, long n) {
  return {n, n, dim == 3 ? n : 1};
}

/// A barrier at which the waiting ranks sleep (1 ms between tests) instead of spinning: Open MPI's
/// blocking barrier polls at full speed, and the idle ranks' polling took cores (hyperthread
/// siblings) and memory bandwidth from rank 0's solo reference run, which on the 16-core GPU
/// machine came out 1 to 4 times slower from run to run. Collective.
void quiet_barrier(const Communicator& comm) {
  MPI_Request request;
  MPI_Ibarrier(comm.raw(), &request);
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  while (!done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
}

/// Weak scaling: `per_rank` cells a side on rank 0 alone, then the grid of R such tiles on all R
/// ranks; prints the efficiency. Collective.
void weak_scaling(const Communicator& comm, int dim, long per_rank, long steps, double triad,
                  linear::PressureKrylov krylov) {
  const Communicator alone = comm.split(comm.is_root() ? 0 : 1, comm.rank());
  double one = 0;
  if (comm.is_root())
    one = measure(alone, dim, cube(dim, per_rank), steps, triad, krylov);
  quiet_barrier(comm);
  int tiles[3] = {0, 0, dim == 3 ? 0 : 1};
  MPI_Dims_create(comm.size(), dim, tiles);
  const double all = measure(
      comm, dim, {per_rank * tiles[0], per_rank * tiles[1], dim == 3 ? per_rank * tiles[2] : 1},
      steps, triad, krylov);
  if (comm.is_root())
    std::printf("     weak scaling %dD, %ld^%d cells a rank: %d rank(s) %.2f ms a step, 1 rank "
                "%.2f ms: efficiency %.2f\n",
                dim, per_rank, dim, comm.size(), 1e3 * all, 1e3 * one, one / all);
}

} // namespace

int main(int argc, char** argv) {
  const bench::Session session(argc, argv);
  return session.run("bench_navier_stokes", [&] {
    const Communicator& comm = session.comm();
    const long steps = static_cast<long>(session.number(1, 20));
    const double triad = bench::triad_bandwidth(comm, bench::triad_elements(), 10);
    if (comm.is_root()) {
      std::printf("Navier-Stokes step benchmark (lid-driven cavity, Re = 100): %d rank(s), Kokkos "
                  "%s, %ld steps\n",
                  comm.size(), ExecutionSpace::name(), steps);
      std::printf("triad bandwidth (same run, all ranks): %.2f GB/s; host code compiled for %s\n",
                  triad, bench::host_vector_isa());
      std::printf("times in ms per step; Poisson its summed over the 3 stages\n\n");
      std::printf("%4s %12s %7s %10s %10s %10s %10s %10s %10s %12s %8s %9s %7s\n", "dim", "grid",
                  "cg", "step", "momentum", "poisson", "bc+halo", "projection", "other",
                  "Mcell-upd/s", "its/step", "mom GB/s", "triad");
    }
    const std::string mode = session.text(2, "");
    if (mode == "large") {
      for (const long n : {1024L, 2048L, 4096L})
        measure(comm, 2, cube(2, n), steps, triad, linear::PressureKrylov::Kokkos);
      for (const long n : {128L, 256L})
        measure(comm, 3, cube(3, n), steps, triad, linear::PressureKrylov::Kokkos);
      return;
    }
    if (mode == "weak") {
      weak_scaling(comm, 2, 512, steps, triad, linear::PressureKrylov::Auto);
      weak_scaling(comm, 3, 64, steps, triad, linear::PressureKrylov::Auto);
      return;
    }
    for (const auto krylov : {linear::PressureKrylov::Petsc, linear::PressureKrylov::Kokkos}) {
      measure(comm, 2, cube(2, 64), steps, triad, krylov);
      measure(comm, 2, cube(2, 128), steps, triad, krylov);
      measure(comm, 2, cube(2, 256), steps, triad, krylov);
      measure(comm, 2, cube(2, 512), std::max(2L, steps / 2), triad, krylov);
      measure(comm, 3, cube(3, 32), steps, triad, krylov);
      measure(comm, 3, cube(3, 64), std::max(2L, steps / 2), triad, krylov);
    }
  });
}
