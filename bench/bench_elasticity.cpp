// Benchmark of the elasticity solver and of topology optimisation.
//
// 1. A clamped cantilever with an end shear traction (2D plane stress, L/H = 4, and 3D, L x 1 x
//    1) at three sizes each: assembly and solve throughput in displacement unknowns (DOFs) per
//    second, CG + GAMG iterations against size (they should stay roughly flat), and the same
//    solve by MUMPS LU in the same run, for the ratio of the two (the peer).
// 2. The same cantilever on a stretched grid (the same cells, 0.6 to 1.4 times the mean width
//    along every axis), against the uniform one in the same run: assembly time (each element's
//    matrix formed from its size), CG + GAMG iterations and solve time.
// 3. The MBB beam's topology optimisation at three sizes: the time split of an iteration between
//    the solve, the sensitivities (adjoint and filter transpose) and the OC update.
//
//   mpiexec -n R build/bin/bench_elasticity [topology iterations, default 5]

#include "bench_support.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/optimisation/topology_optimisation.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <vector>

namespace {

using namespace undertow;
using namespace undertow::elasticity;

DomainSpec beam(int dim, long n) {
  DomainSpec d;
  d.dim = dim;
  d.cells = dim == 2 ? std::array<long, 3>{4 * n, n, 1} : std::array<long, 3>{4 * n, n, n};
  d.length = {4.0, 1.0, 1.0};
  return d;
}

ElasticitySpec cantilever(int dim, LinearSolver solver) {
  ElasticitySpec spec;
  spec.simp.E0 = 1.0;
  spec.poisson = 0.3;
  Support clamp;
  clamp.box.lo = {0, 0, 0};
  clamp.box.hi = {0, 1, dim == 3 ? 1.0 : 0.0};
  spec.supports = {clamp};
  Load end;
  end.kind = LoadKind::Traction;
  end.box.lo = {4, 0, 0};
  end.box.hi = {4, 1, dim == 3 ? 1.0 : 0.0};
  end.value = {0, -1, 0};
  spec.loads = {end};
  spec.solver = solver;
  spec.rtol = 1e-8;
  return spec;
}

void measure_solve(const Communicator& comm, int dim, long n) {
  const Domain domain(comm, beam(dim, n));
  double assembly = 0, seconds[2] = {0, 0};
  long iterations = 0, dofs = 0;
  double compliance[2] = {0, 0};
  for (int which = 0; which < 2; ++which) {
    LinearElasticity s(domain,
                       cantilever(dim, which == 0 ? LinearSolver::CgGamg : LinearSolver::Direct));
    const SolveInfo info = s.solve();
    dofs = s.global_dofs();
    seconds[which] = comm.max(info.seconds_solve);
    compliance[which] = s.compliance();
    if (which == 0) {
      assembly = comm.max(info.seconds_assembly);
      iterations = info.iterations;
    }
  }
  if (comm.is_root())
    std::printf("%3dD %5ld %9ld | %8.4f %9.3e | %5ld %8.3f %9.3e | %8.3f %6.2f | %8.1e\n", dim, n,
                dofs, assembly, double(dofs) / assembly, iterations, seconds[0],
                double(dofs) / seconds[0], seconds[1], seconds[1] / seconds[0],
                std::abs(compliance[0] - compliance[1]) / compliance[1]);
}

/// The cantilever's grid with every axis stretched smoothly: faces at L (xi + 0.4 sin(2 pi xi) /
/// (2 pi)), xi = i / n, cells 1.4 times the mean width in the middle and 0.6 at both ends.
DomainSpec stretched(DomainSpec d) {
  const double two_pi = 8.0 * std::atan(1.0);
  for (int a = 0; a < d.dim; ++a) {
    std::vector<double>& f = d.faces[std::size_t(a)];
    for (long i = 0; i <= d.cells[a]; ++i) {
      const double xi = double(i) / double(d.cells[a]);
      f.push_back(i == d.cells[a] ? d.length[a]
                                  : d.length[a] * (xi + 0.4 * std::sin(two_pi * xi) / two_pi));
    }
  }
  return d;
}

/// Assembly and CG + GAMG solve of the cantilever on the uniform and the stretched grid.
void measure_stretched(const Communicator& comm, int dim, long n) {
  double assembly[2] = {0, 0}, solve[2] = {0, 0};
  long iterations[2] = {0, 0}, dofs = 0;
  for (int which = 0; which < 2; ++which) {
    const Domain domain(comm, which == 0 ? beam(dim, n) : stretched(beam(dim, n)));
    LinearElasticity s(domain, cantilever(dim, LinearSolver::CgGamg));
    const SolveInfo info = s.solve();
    dofs = s.global_dofs();
    assembly[which] = comm.max(info.seconds_assembly);
    solve[which] = comm.max(info.seconds_solve);
    iterations[which] = info.iterations;
  }
  if (comm.is_root())
    std::printf("%3dD %5ld %9ld | %8.4f %8.4f %6.2f | %5ld %5ld | %8.3f %8.3f %6.2f\n", dim, n,
                dofs, assembly[0], assembly[1], assembly[1] / assembly[0], iterations[0],
                iterations[1], solve[0], solve[1], solve[1] / solve[0]);
}

void measure_topology(const Communicator& comm, long nx, long ny, int iterations) {
  DomainSpec d;
  d.dim = 2;
  d.cells = {nx, ny, 1};
  d.length = {60, 20, 1}; // the MBB beam of cases/mbb_beam at nx / 60 times the resolution
  const Domain domain(comm, d);
  ElasticitySpec spec;
  spec.poisson = 0.3;
  Support symmetry, roller;
  symmetry.box.hi = {0, 20, 0};
  symmetry.fixed = {true, false, false};
  roller.box.lo = roller.box.hi = {60, 0, 0};
  roller.fixed = {false, true, false};
  spec.supports = {symmetry, roller};
  Load load;
  load.box.lo = load.box.hi = {0, 20, 0};
  load.value = {0, -1, 0};
  spec.loads = {load};
  spec.rtol = 1e-8;
  LinearElasticity solver(domain, spec);
  optimisation::TopologyOptimisation opt(solver, optimisation::TopologySettings{});
  double t[3] = {0, 0, 0};
  long its = 0;
  for (int i = 0; i < iterations; ++i) {
    const optimisation::TopologyIteration it = opt.step();
    t[0] += comm.max(it.seconds_solve);
    t[1] += comm.max(it.seconds_sensitivity);
    t[2] += comm.max(it.seconds_update);
    its += it.solver_iterations;
  }
  const double total = t[0] + t[1] + t[2];
  if (comm.is_root())
    std::printf("%5ldx%-4ld %9ld | %8.4f | %5.1f %% %5.1f %% %5.1f %% | %6.1f\n", nx, ny,
                solver.global_dofs(), total / iterations, 100 * t[0] / total, 100 * t[1] / total,
                100 * t[2] / total, double(its) / iterations);
}

} // namespace

int main(int argc, char** argv) {
  const bench::Session session(argc, argv);
  return session.run("bench_elasticity", [&] {
    const Communicator& comm = session.comm();
    const int iterations = static_cast<int>(session.number(1, 5));
    if (comm.is_root()) {
      std::printf("Elasticity benchmark: %d rank(s), Kokkos %s\n\n", comm.size(),
                  ExecutionSpace::name());
      std::printf("Cantilever (clamped, end shear), CG + GAMG to rtol 1e-8 from zero; MUMPS LU "
                  "on the same system\n");
      std::printf("%4s %5s %9s | %8s %9s | %5s %8s %9s | %8s %6s | %8s\n", "", "n", "DOFs",
                  "asm [s]", "asm DOF/s", "its", "CG [s]", "CG DOF/s", "LU [s]", "LU/CG", "|dc|/c");
    }
    for (long n : {32L, 64L, 128L})
      measure_solve(comm, 2, n);
    for (long n : {6L, 10L, 16L})
      measure_solve(comm, 3, n);
    if (comm.is_root()) {
      std::printf("\nThe same cantilever on a stretched grid (same cells, 0.6-1.4 times the mean "
                  "width per axis), CG + GAMG\n");
      std::printf("%4s %5s %9s | %8s %8s %6s | %5s %5s | %8s %8s %6s\n", "", "n", "DOFs", "asm uni",
                  "asm str", "ratio", "its u", "its s", "CG uni", "CG str", "ratio");
    }
    measure_stretched(comm, 2, 128);
    measure_stretched(comm, 3, 16);
    if (comm.is_root()) {
      std::printf("\nMBB topology optimisation, CG + GAMG, mean of the first %d iterations\n",
                  iterations);
      std::printf("%10s %9s | %8s | %7s %7s %7s | %6s\n", "grid", "DOFs", "s/iter", "solve",
                  "sens.", "update", "CG its");
    }
    for (long m : {2L, 4L, 8L})
      measure_topology(comm, 60 * m, 20 * m, iterations);
  });
}
