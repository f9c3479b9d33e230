// Benchmark of the pressure Poisson solve: CG with our geometric multigrid, as PETSc's KSPCG on
// host vectors and as our Kokkos CG on the fields' memory (pressure.krylov = petsc / kokkos),
// against CG with hypre BoomerAMG, on the lid-driven cavity's operator (Neumann on every wall), 2D
// 64^2 to 2048^2 and 3D 32^3 and 64^3, on the DFG channel's (outflow p = 0) at D/20 to D/80, and on
// prime counts. For each grid it prints the iterations and time of one solve from a zero initial
// guess to a relative tolerance of 1e-10, the cost of one V-cycle and of one stencil application
// (-L x) in the same run, and the V-cycle's cost in stencil applications; the hierarchy's grids,
// and the time per V-cycle of its coarse part (the levels agglomerated onto fewer ranks and the
// coarsest solve), each hierarchy then printed in full. MG/KCG is the PETSc CG's time over the
// Kokkos CG's (both with the multigrid; the Kokkos CG's coarsest grid is solved on the device, so
// its hierarchy can have more grids).
//
//   mpiexec -n R build/bin/bench_pressure_poisson [repetitions] [mg|amg] [grid name]
//
// A grid name (cavity, channel, stretch, duct, coarsest, prime) runs those grids alone;
// "coarsest" is the uniform channel at D/8 to D/40 with the coarsest grid limited to 8192, 1024
// and 64 cells (pressure.coarsest_cells), rows "c<=N". Stretched grids
// ("stretch": the DFG channel with cells of D/20 to D/80 around the cylinder, growing by 5% away
// from it; "duct": the 3D duct with the box of cases/cylinder/duct3d_re20_stretched.ini's first
// version, [0.4, 0.8] x [0.13, 0.27] x [0.1, 0.31], at D/10 to D/20, growing by 10%) are solved by
// both CGs with the multigrid's line smoother (pressure.smoother = auto there), as a run on a GPU
// solves them. With `mg`, BoomerAMG is left out (its columns show -): for many oversubscribed
// ranks, where the multigrid's iterations and levels are what is measured.

#include "bench_support.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/core/stretching.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"
#include "undertow/solvers/linear/pressure_poisson.hpp"

#include <array>
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

/// A grid of the benchmark: the cavity's (Neumann on every wall) or the DFG channel's
/// (2.2 x 0.41 m, p = 0 at the outflow x = 2.2).
struct Grid {
  std::string name;
  int dim;
  std::array<long, 3> cells;
  bool channel = false;
  /// A stretched channel: cells of this width in the box [0.1, 0.7] x [0.1, 0.3] around the
  /// cylinder and its near wake, growing by at most 5% per cell outside it (cells derived); in
  /// 3D the duct 2.5 x 0.41 x 0.41 with the box [0.4, 0.8] x [0.13, 0.27] x [0.1, 0.31] and 10%.
  double box_spacing = 0.0;
  /// pressure.coarsest_cells: the multigrid's largest coarsest grid.
  long coarsest_cells = MultigridSpec::kDefaultMaxCoarsestCells;
  /// The row's name: the grid's, or for the "coarsest" rows the limit, as "c<=64".
  std::string label() const {
    return name == "coarsest" ? "c<=" + std::to_string(coarsest_cells) : name;
  }
};

/// The domain of `grid` (its cell counts filled in for a stretched one).
DomainSpec grid_spec(Grid& grid) {
  DomainSpec spec;
  spec.dim = grid.dim;
  spec.cells = grid.cells;
  const bool duct = grid.dim == 3;
  if (grid.channel)
    spec.length =
        duct ? std::array<double, 3>{2.5, 0.41, 0.41} : std::array<double, 3>{2.2, 0.41, 1.0};
  if (grid.box_spacing > 0.0) {
    const double box[3][2] = {
        {duct ? 0.4 : 0.1, duct ? 0.8 : 0.7}, {duct ? 0.13 : 0.1, duct ? 0.27 : 0.3}, {0.1, 0.31}};
    for (int a = 0; a < grid.dim; ++a) {
      AxisClustering c;
      c.box_lo = box[a][0];
      c.box_hi = box[a][1];
      c.spacing = grid.box_spacing;
      c.growth = duct ? 1.1 : 1.05;
      spec.faces[std::size_t(a)] = clustered_faces(0.0, spec.length[a], c, "bench grid");
      spec.cells[a] = grid.cells[a] = long(spec.faces[std::size_t(a)].size()) - 1;
    }
  }
  return spec;
}

/// Prints one row; returns the hierarchy's description.
std::string measure(const Communicator& comm, Grid grid, int reps, bool with_amg) {
  const Domain domain(comm, grid_spec(grid));
  const int dim = grid.dim;
  const double total = double(grid.cells[0]) * double(grid.cells[1]) * double(grid.cells[2]);
  Field b(domain, Location::Cell, 1, "b"), p(domain, Location::Cell, 1, "p"),
      out(domain, Location::Cell, 1, "out");
  make_rhs(b);
  const double mean = global_sum(comm, b) / total;
  const FieldView bv = b.view();
  for_each(
      "bench::mean", b.owned(), KOKKOS_LAMBDA(long i, long j, long k) { bv(i, j, k) -= mean; });

  // 0: PETSc CG + multigrid, 1: Kokkos CG + multigrid, 2: PETSc CG + BoomerAMG.
  const char* names[3] = {"multigrid", "Kokkos CG", "BoomerAMG"};
  double solve_time[3] = {0, 0, 0};
  int iterations[3] = {0, 0, 0};
  double vcycle = 0, stencil = 0, coarse = 0;
  int grids = 0;
  std::string hierarchy;
  for (int which = 0; which < (with_amg ? 3 : 2); ++which) {
    PoissonSpec ps;
    ps.coarsest_cells = grid.coarsest_cells;
    if (grid.channel)
      ps.faces[1] = PressureBoundary::Dirichlet;
    ps.preconditioner =
        which < 2 ? PressurePreconditioner::Multigrid : PressurePreconditioner::Hypre;
    ps.krylov = which == 1 ? PressureKrylov::Kokkos : PressureKrylov::Petsc;
    PressurePoisson poisson(domain, ps);
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      fill_value(p, p.ghosted(), 0.0);
      comm.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      try {
        iterations[which] = poisson.solve(b, p).iterations;
      } catch (const CollectiveError& e) { // reported in the row, and the run goes on
        if (comm.is_root())
          std::printf("  (%s on %s: %s)\n", names[which], grid.name.c_str(), e.what());
        iterations[which] = -1;
        break;
      }
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
  if (comm.is_root()) {
    if (iterations[0] < 0) // its message is above the row
      solve_time[0] = 0;
    std::printf("%-8s %10s %10.0f | %5d %10.2f | ", grid.label().c_str(),
                (std::to_string(grid.cells[0]) + "x" + std::to_string(grid.cells[1]) +
                 (dim == 3 ? "x" + std::to_string(grid.cells[2]) : std::string()))
                    .c_str(),
                total, iterations[0], 1e3 * solve_time[0]);
    if (iterations[1] >= 0)
      std::printf("%5d %10.2f %8.2f | ", iterations[1], 1e3 * solve_time[1],
                  solve_time[0] / solve_time[1]);
    else if (iterations[1] == -2)
      std::printf("%5s %10s %8s | ", "-", "-", "-");
    else
      std::printf("%5s %10s %8s | ", "fail", "-", "-");
    if (with_amg && iterations[2] >= 0)
      std::printf("%5d %10.2f | %8.2f | ", iterations[2], 1e3 * solve_time[2],
                  solve_time[2] / solve_time[0]);
    else if (with_amg)
      std::printf("%5s %10s | %8s | ", "fail", "-", "-"); // its message is above the row
    else
      std::printf("%5s %10s | %8s | ", "-", "-", "-");
    std::printf("%9.3f %9.3f %8.1f | %6d %9.3f\n", 1e3 * vcycle, 1e3 * stencil, vcycle / stencil,
                grids, 1e3 * coarse);
  }
  return hierarchy;
}

} // namespace

int main(int argc, char** argv) {
  const bench::Session session(argc, argv);
  return session.run("bench_pressure_poisson", [&] {
    const Communicator& comm = session.comm();
    const int reps = static_cast<int>(session.number(1, 3));
    const bool with_amg = session.text(2, "") != "mg";
    const std::string only = session.text(3, "");
    if (comm.is_root()) {
      std::printf("Pressure Poisson benchmark (rtol 1e-10 from zero): %d rank(s), "
                  "Kokkos %s, best of %d\n\n",
                  comm.size(), ExecutionSpace::name(), reps);
      std::printf("%-8s %10s %10s | %5s %10s | %5s %10s %8s | %5s %10s | %8s | %9s %9s %8s | %6s "
                  "%9s\n",
                  "grid", "cells", "total", "MG its", "MG ms", "KCG its", "KCG ms", "MG/KCG",
                  "AMG its", "AMG ms", "AMG/MG", "V-cycle", "stencil", "V/stencil", "grids",
                  "coarse ms");
    }
    // The cavity from 64^2 to 2048^2 and in 3D; the DFG channel at D/20, D/40 and D/80 (odd
    // counts across), uniform and stretched around the cylinder; the 3D duct stretched around
    // the cylinder at D/10, D/14 and D/20; prime counts.
    std::vector<Grid> grids;
    for (long n : {64L, 128L, 256L, 512L, 1024L, 2048L})
      grids.push_back({"cavity", 2, {n, n, 1}});
    for (long n : {32L, 64L})
      grids.push_back({"cavity", 3, {n, n, n}});
    for (long d : {20L, 40L, 80L})
      grids.push_back({"channel", 2, {22 * d, (41 * d + 5) / 10, 1}, true});
    for (long d : {20L, 40L, 80L})
      grids.push_back({"stretch", 2, {0, 0, 1}, true, 0.1 / double(d)});
    for (long d : {10L, 14L, 20L})
      grids.push_back({"duct", 3, {0, 0, 0}, true, 0.1 / double(d)});
    // The uniform channel at D/8 to D/40 (its odd 33 to 164 cells across) with the coarsest grid
    // limited to 8192 (the default: halving stops at the first odd count that fits), 1024 and
    // 64 cells (pressure.coarsest_cells).
    for (long d : {8L, 10L, 20L, 40L})
      for (long limit : {MultigridSpec::kDefaultMaxCoarsestCells, 1024L, 64L})
        grids.push_back({"coarsest", 2, {22 * d, (41 * d + 5) / 10, 1}, true, 0.0, limit});
    grids.push_back({"prime", 2, {1009, 1009, 1}});
    grids.push_back({"prime", 3, {67, 67, 67}});
    std::vector<std::string> hierarchies;
    for (const Grid& g : grids)
      if (only.empty() || g.name == only)
        hierarchies.push_back(measure(comm, g, reps, with_amg));
    if (comm.is_root()) {
      std::printf(
          "\nhierarchies (coarse ms: per V-cycle, the levels on fewer ranks than the finest "
          "and the coarsest solve):\n");
      for (const std::string& h : hierarchies)
        std::printf("  %s\n", h.c_str());
    }
  });
}
