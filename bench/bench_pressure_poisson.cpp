// Benchmark of the pressure Poisson solve: CG with our geometric multigrid against CG with hypre
// BoomerAMG, on the lid-driven cavity's operator (Neumann on every wall), 2D 64^2 to 2048^2 and
// 3D 32^3 and 64^3. For each grid it prints the iterations and time of one solve from a zero
// initial guess to a relative tolerance of 1e-10, the cost of one V-cycle and of one stencil
// application (-L x) in the same run, and the V-cycle's cost in stencil applications; the
// hierarchy's grids, and the time per V-cycle of its coarse part (the levels agglomerated onto
// fewer ranks and the coarsest solve), each hierarchy then printed in full.
//
//   mpiexec -n R build/bin/bench_pressure_poisson [repetitions] [mg]
//
// With `mg`, BoomerAMG is left out (its columns show -): for many oversubscribed ranks, where
// the multigrid's iterations and levels are what is measured.

#include "undertow/core/reductions.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"
#include "undertow/solvers/linear/pressure_poisson.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <string>
#include <vector>

namespace {

using namespace undertow;
using namespace undertow::linear;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A smooth mean-zero right-hand side with all scales present: a product of cosines plus noise.
void make_rhs(Field& b) {
  const FieldView v = b.view();
  const GridGeometry g = b.geometry();
  for_each(
      "bench::rhs", b.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const double x = g.coordinate(0, i), y = g.coordinate(1, j), z = g.coordinate(2, k);
        const long gi = i + g.global_offset[0], gj = j + g.global_offset[1];
        v(i, j, k) = std::cos(3.0 * M_PI * x) * std::cos(2.0 * M_PI * y) * std::cos(M_PI * z) +
                     0.1 * double(((gi * 7919 + gj * 104729) % 17) - 8) / 8.0;
      });
}

/// Prints one row; returns the hierarchy's description.
std::string measure(const Communicator& comm, int dim, long n, int reps, bool with_amg) {
  DomainSpec spec;
  spec.dim = dim;
  spec.cells = {n, n, dim == 3 ? n : 1};
  const Domain domain(comm, spec);
  Field b(domain, Location::Cell, 1, "b"), p(domain, Location::Cell, 1, "p"),
      out(domain, Location::Cell, 1, "out");
  make_rhs(b);
  const double mean = global_sum(comm, b) / double(n * n * (dim == 3 ? n : 1));
  const FieldView bv = b.view();
  for_each(
      "bench::mean", b.owned(), KOKKOS_LAMBDA(long i, long j, long k) { bv(i, j, k) -= mean; });

  double solve_time[2] = {0, 0};
  int iterations[2] = {0, 0};
  double vcycle = 0, stencil = 0, coarse = 0;
  int grids = 0;
  std::string hierarchy;
  for (int which = 0; which < (with_amg ? 2 : 1); ++which) {
    PoissonSpec ps;
    ps.preconditioner =
        which == 0 ? PressurePreconditioner::Multigrid : PressurePreconditioner::Hypre;
    PressurePoisson poisson(domain, ps);
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      fill_value(p, p.ghosted(), 0.0);
      comm.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      iterations[which] = poisson.solve(b, p).iterations;
      best = std::min(best, comm.max(seconds_since(t0)));
    }
    solve_time[which] = best;
    if (which == 0) {
      GeometricMultigrid& mg = const_cast<GeometricMultigrid&>(*poisson.multigrid());
      double t_v = 1e30, t_s = 1e30, t_c = 1e30;
      for (int r = 0; r < reps; ++r) {
        comm.barrier();
        auto t0 = std::chrono::steady_clock::now();
        const double coarse_before = mg.coarse_seconds();
        mg.apply(b, p);
        Kokkos::fence();
        t_v = std::min(t_v, comm.max(seconds_since(t0)));
        t_c = std::min(t_c, comm.max(mg.coarse_seconds() - coarse_before));
        comm.barrier();
        t0 = std::chrono::steady_clock::now();
        for (int s = 0; s < 10; ++s)
          mg.apply_operator(p, out);
        Kokkos::fence();
        t_s = std::min(t_s, comm.max(seconds_since(t0)) / 10);
      }
      vcycle = t_v;
      stencil = t_s;
      coarse = t_c;
      hierarchy = mg.plan().describe();
      for (const auto& level : mg.plan().levels)
        grids += level.agglomerated ? 0 : 1;
    }
  }
  const double cells = double(n) * n * (dim == 3 ? n : 1);
  if (comm.is_root()) {
    std::printf("%4d %6ld %10.0f | %5d %10.2f | ", dim, n, cells, iterations[0],
                1e3 * solve_time[0]);
    if (with_amg)
      std::printf("%5d %10.2f | %8.2f | ", iterations[1], 1e3 * solve_time[1],
                  solve_time[1] / solve_time[0]);
    else
      std::printf("%5s %10s | %8s | ", "-", "-", "-");
    std::printf("%9.3f %9.3f %8.1f | %6d %9.3f\n", 1e3 * vcycle, 1e3 * stencil, vcycle / stencil,
                grids, 1e3 * coarse);
  }
  return hierarchy;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const PetscSession petsc(MPI_COMM_WORLD);
    const Communicator comm(MPI_COMM_WORLD);
    const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
    const bool with_amg = !(argc > 2 && std::string(argv[2]) == "mg");
    if (comm.is_root()) {
      std::printf("Pressure Poisson benchmark (cavity operator, rtol 1e-10 from zero): %d rank(s), "
                  "Kokkos %s, best of %d\n\n",
                  comm.size(), ExecutionSpace::name(), reps);
      std::printf("%4s %6s %10s | %5s %10s | %5s %10s | %8s | %9s %9s %8s | %6s %9s\n", "dim", "n",
                  "cells", "MG its", "MG ms", "AMG its", "AMG ms", "AMG/MG", "V-cycle", "stencil",
                  "V/stencil", "grids", "coarse ms");
    }
    std::vector<std::string> hierarchies;
    for (long n : {64L, 128L, 256L, 512L, 1024L, 2048L})
      hierarchies.push_back(measure(comm, 2, n, reps, with_amg));
    for (long n : {32L, 64L})
      hierarchies.push_back(measure(comm, 3, n, reps, with_amg));
    if (comm.is_root()) {
      std::printf(
          "\nhierarchies (coarse ms: per V-cycle, the levels on fewer ranks than the finest "
          "and the coarsest solve):\n");
      for (const std::string& h : hierarchies)
        std::printf("  %s\n", h.c_str());
    }
  }
  MPI_Finalize();
  return 0;
}
