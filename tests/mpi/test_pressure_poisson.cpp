// Pressure Poisson on a DMDA matching the decomposition: the assembled operator is the MAC
// Laplacian, solutions converge at second order for walls (Neumann), periodic axes and outflow
// (Dirichlet) faces, iteration counts stay flat under refinement, results agree across rank
// counts, options from the case file reach PETSc, and a failed solve is a clear error. The
// Kokkos CG (pressure.krylov = kokkos) gives PETSc's solutions with PETSc's iteration counts.

#include "test_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/math.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/solvers/linear/pressure_poisson.hpp"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using namespace undertow::linear;
using undertow::testing::world;

const double pi = math::pi;

/// A smooth solution for each boundary set-up, with its Laplacian.
struct Problem {
  std::string name;
  int dim;
  std::array<bool, 3> periodic;
  PressureFaces faces;
  double (*p)(double, double, double);
  double (*laplacian)(double, double, double);
};

Problem walls_2d() {
  return {"2D walls",
          2,
          {false, false, false},
          {},
          [](double x, double y, double) { return std::cos(pi * x) * std::cos(pi * y); },
          [](double x, double y, double) {
            return -2 * pi * pi * std::cos(pi * x) * std::cos(pi * y);
          }};
}
Problem periodic_2d() {
  return {"2D periodic",
          2,
          {true, true, false},
          {},
          [](double x, double y, double) { return std::sin(2 * pi * x) * std::cos(4 * pi * y); },
          [](double x, double y, double) {
            return -20 * pi * pi * std::sin(2 * pi * x) * std::cos(4 * pi * y);
          }};
}
Problem outflow_2d() {
  Problem p{"2D outflow at x = 1",
            2,
            {false, false, false},
            {},
            [](double x, double y, double) { return std::cos(0.5 * pi * x) * std::cos(pi * y); },
            [](double x, double y, double) {
              return -1.25 * pi * pi * std::cos(0.5 * pi * x) * std::cos(pi * y);
            }};
  p.faces[1] = PressureBoundary::Dirichlet;
  return p;
}
Problem mixed_3d() {
  return {"3D periodic x, walls y z",
          3,
          {true, false, false},
          {},
          [](double x, double y, double z) {
            return std::sin(2 * pi * x) * std::cos(pi * y) * std::cos(pi * z);
          },
          [](double x, double y, double z) {
            return -6 * pi * pi * std::sin(2 * pi * x) * std::cos(pi * y) * std::cos(pi * z);
          }};
}

/// `stretched`: the non-periodic axes get the smooth stretching x = xi + 0.6 sin(2 pi xi) / (2 pi)
/// of the uniform xi = i / n: cells 4 times wider in the middle than at the ends.
DomainSpec spec_for(const Problem& pb, long n, bool stretched = false) {
  DomainSpec s;
  s.dim = pb.dim;
  s.cells = {n, n, pb.dim == 3 ? n : 1};
  s.periodic = pb.periodic;
  for (int a = 0; stretched && a < pb.dim; ++a) {
    if (pb.periodic[a])
      continue;
    std::vector<double>& f = s.faces[std::size_t(a)];
    for (long i = 0; i <= n; ++i) {
      const double xi = double(i) / double(n);
      f.push_back(i == n ? 1.0 : xi + 0.6 * std::sin(2 * pi * xi) / (2 * pi));
    }
  }
  return s;
}

/// Sets the owned values of `f` to fn at cell centres.
void set(Field& f, double (*fn)(double, double, double)) {
  auto host = Kokkos::create_mirror_view(f.view());
  const GridGeometry g = f.geometry();
  const IndexSpace& o = f.owned();
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        host(i, j, k) = fn(g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k));
  Kokkos::deep_copy(f.view(), host);
}

/// max |a - b - mean(a - b)| over owned cells (the mean is kept unless `remove_mean`).
double max_difference(const Communicator& comm, const Field& a, const Field& b, bool remove_mean) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.view());
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.view());
  const IndexSpace& o = a.owned();
  double sum = 0, count = 0;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i) {
        sum += ha(i, j, k) - hb(i, j, k);
        count += 1;
      }
  const double mean = remove_mean ? comm.sum(sum) / comm.sum(count) : 0.0;
  double worst = 0;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        worst = std::max(worst, std::abs(ha(i, j, k) - hb(i, j, k) - mean));
  return comm.max(worst);
}

struct Result {
  double error;
  int iterations;
};

Result solve(const Communicator& comm, const Problem& pb, long n, double rtol = 1e-10,
             PressureKrylov krylov = PressureKrylov::Auto, bool stretched = false,
             PressurePreconditioner pc = PressurePreconditioner::Auto) {
  const Domain d(comm, spec_for(pb, n, stretched));
  PoissonSpec spec;
  spec.preconditioner = pc;
  spec.faces = pb.faces;
  spec.rtol = rtol;
  spec.krylov = krylov;
  PressurePoisson poisson(d, spec);
  Field rhs(d, Location::Cell, 1, "rhs"), p(d, Location::Cell, 1, "p"),
      exact(d, Location::Cell, 1, "exact");
  set(rhs, pb.laplacian);
  set(exact, pb.p);
  const SolveStats stats = poisson.solve(rhs, p);
  return {max_difference(comm, p, exact, poisson.singular()), stats.iterations};
}

TEST(PressurePoisson, OperatorIsTheMacLaplacian) {
  // Applying the matrix to a smooth field gives its Laplacian to second order in h, including
  // at the boundary faces where the field satisfies the boundary condition.
  const auto& comm = world();
  for (const Problem& pb : {walls_2d(), periodic_2d(), outflow_2d(), mixed_3d()}) {
    std::vector<double> errors;
    for (long n : {32, 64}) {
      const Domain d(comm, spec_for(pb, n));
      PoissonSpec spec;
      spec.faces = pb.faces;
      PressurePoisson poisson(d, spec);
      Field p(d, Location::Cell, 1, "p"), lp(d, Location::Cell, 1, "Lp"),
          exact(d, Location::Cell, 1, "exact");
      set(p, pb.p);
      set(exact, pb.laplacian);
      poisson.apply(p, lp);
      errors.push_back(max_difference(comm, lp, exact, false));
    }
    // These solutions meet the boundary conditions with zero third derivative at the faces, so
    // the boundary rows are second-order accurate too.
    EXPECT_GT(std::log2(errors[0] / errors[1]), 1.9) << pb.name;
    if (comm.is_root())
      std::printf("%-26s truncation error of L: %.3e %.3e\n", pb.name.c_str(), errors[0],
                  errors[1]);
  }
}

TEST(PressurePoisson, SecondOrderSolutionsAndFlatIterationCounts) {
  const auto& comm = world();
  for (const Problem& pb : {walls_2d(), periodic_2d(), outflow_2d(), mixed_3d()}) {
    std::vector<long> sizes =
        pb.dim == 2 ? std::vector<long>{32, 64, 128} : std::vector<long>{8, 16, 32};
    std::vector<Result> r;
    for (long n : sizes)
      r.push_back(solve(comm, pb, n));
    for (std::size_t i = 1; i < r.size(); ++i)
      EXPECT_GT(std::log2(r[i - 1].error / r[i].error), 1.85) << pb.name << " n=" << sizes[i];
    const int lo = std::min({r[0].iterations, r[1].iterations, r[2].iterations});
    const int hi = std::max({r[0].iterations, r[1].iterations, r[2].iterations});
    EXPECT_LE(hi, lo + 6) << pb.name << ": iterations grow with the grid";
    if (comm.is_root())
      std::printf("%-26s max errors %.3e %.3e %.3e, CG+AMG iterations %d %d %d\n", pb.name.c_str(),
                  r[0].error, r[1].error, r[2].error, r[0].iterations, r[1].iterations,
                  r[2].iterations);
  }
}

// On stretched grids (cells of widths varying 4 times) the solve is V (-L) p = -V b with the
// V-cycle as (-L)^-1 V^-1: second order, iterations as flat as on uniform cells, and a symmetric
// operator (CG would not converge otherwise; checked directly too).
TEST(PressurePoisson, StretchedGridsSolveToSecondOrderWithFlatIterations) {
  const auto& comm = world();
  for (const PressurePreconditioner pc :
       {PressurePreconditioner::Multigrid, PressurePreconditioner::Auto})
    for (const Problem& pb : {walls_2d(), outflow_2d(), mixed_3d()}) {
      const bool mg = pc == PressurePreconditioner::Multigrid;
      std::vector<long> sizes =
          pb.dim == 2 ? std::vector<long>{32, 64, 128} : std::vector<long>{12, 24, 48};
      std::vector<Result> r;
      for (long n : sizes)
        r.push_back(solve(comm, pb, n, 1e-10, PressureKrylov::Petsc, true, pc));
      for (std::size_t i = 1; i < r.size(); ++i)
        EXPECT_GT(std::log2(r[i - 1].error / r[i].error), 1.85) << pb.name << " n=" << sizes[i];
      const int lo = std::min({r[0].iterations, r[1].iterations, r[2].iterations});
      const int hi = std::max({r[0].iterations, r[1].iterations, r[2].iterations});
      // The coarsest 3D grid (12^3) is almost its own direct coarsest solve; from the next on
      // the hierarchy has its full depth.
      EXPECT_LE(std::abs(r[2].iterations - r[1].iterations), 1)
          << pb.name << ": iterations grow with the grid";
      EXPECT_LE(hi, lo + (pb.dim == 2 || !mg ? 2 : 4)) << pb.name;
      // Cells up to 4 times wider along one axis than along another: the line smoother
      // (pressure.smoother = auto on stretched grids) takes 7 to 8 iterations, fewer than
      // uniform cells with points (11); points took 17 to 20 here. Auto is BoomerAMG.
      EXPECT_LE(hi, 12) << pb.name;
      if (comm.is_root())
        std::printf("%-26s stretched: max errors %.3e %.3e %.3e, CG+%s iterations %d %d %d\n",
                    pb.name.c_str(), r[0].error, r[1].error, r[2].error, mg ? "MG" : "AMG",
                    r[0].iterations, r[1].iterations, r[2].iterations);
    }
  // (x, L y) = (L x, y) in the volume-weighted inner product.
  const Domain d(comm, spec_for(outflow_2d(), 24, true));
  PoissonSpec spec;
  spec.faces = outflow_2d().faces;
  PressurePoisson poisson(d, spec);
  Field x(d, Location::Cell, 1, "x"), y(d, Location::Cell, 1, "y"), lx(d, Location::Cell, 1, "lx"),
      ly(d, Location::Cell, 1, "ly");
  set(x, [](double a, double b, double) { return std::exp(a) * std::sin(3 * b); });
  set(y, [](double a, double b, double) { return a * a + std::cos(5 * a * b); });
  poisson.apply(x, lx);
  poisson.apply(y, ly);
  const auto weighted_dot = [&](const Field& f, const Field& g) {
    auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
    auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.view());
    const std::vector<double> wx = d.cell_widths(0), wy = d.cell_widths(1);
    const IndexSpace& o = f.owned();
    double sum = 0;
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        sum += wx[std::size_t(i - o.begin[0] + d.cell_offset(0))] *
               wy[std::size_t(j - o.begin[1] + d.cell_offset(1))] * hf(i, j, 0) * hg(i, j, 0);
    return comm.sum(sum);
  };
  const double xly = weighted_dot(x, ly), lxy = weighted_dot(lx, y);
  EXPECT_NEAR(xly, lxy, 1e-12 * std::abs(xly));
}

TEST(PressurePoisson, SameSolutionOnAnyNumberOfRanks) {
  const auto& comm = world();
  for (const PressureKrylov krylov : {PressureKrylov::Petsc, PressureKrylov::Kokkos})
    for (const Problem& pb : {walls_2d(), mixed_3d()})
      for (const bool stretched : {false, true}) {
        const long n = pb.dim == 2 ? 37 : 13;
        auto field = [&](const Communicator& c) {
          const Domain d(c, spec_for(pb, n, stretched));
          PoissonSpec spec;
          spec.faces = pb.faces;
          spec.rtol = 1e-13;
          spec.krylov = krylov;
          PressurePoisson poisson(d, spec);
          Field rhs(d, Location::Cell, 1, "rhs"), p(d, Location::Cell, 1, "p");
          set(rhs, pb.laplacian);
          poisson.solve(rhs, p);
          return gather_to_root(c, p);
        };
        const std::vector<double> full = field(comm);
        const Communicator alone = comm.split(comm.rank() == 0 ? 0 : 1, comm.rank());
        std::vector<double> single;
        if (comm.rank() == 0)
          single = field(alone);
        if (comm.is_root()) {
          double scale = 0, diff = 0;
          for (std::size_t q = 0; q < full.size(); ++q) {
            scale = std::max(scale, std::abs(single[q]));
            diff = std::max(diff, std::abs(single[q] - full[q]));
          }
          EXPECT_LE(diff, 1e-10 * scale) << pb.name << ": " << comm.size() << " ranks against 1"
                                         << (krylov == PressureKrylov::Kokkos ? " (kokkos)" : "")
                                         << (stretched ? " (stretched)" : "");
        }
      }
}

TEST(PressurePoisson, OptionsFromTheCaseFileReachPetsc) {
  const Domain d(world(), spec_for(walls_2d(), 16));
  PoissonSpec spec;
  spec.krylov = PressureKrylov::Petsc; // auto is kokkos on a GPU
  const std::string default_method = PressurePoisson(d, spec).method();
  EXPECT_EQ(default_method.rfind("cg + geometric multigrid (16x16 -> 1x1, 5 levels", 0), 0u)
      << default_method;
  spec.preconditioner = PressurePreconditioner::Hypre;
  spec.prefix = "hypre_test_";
  EXPECT_EQ(PressurePoisson(d, spec).method(), "cg + hypre");
  spec.preconditioner = PressurePreconditioner::Auto;
  spec.options = "-pc_type jacobi -ksp_type minres";
  spec.prefix = "jacobi_test_";
  EXPECT_EQ(PressurePoisson(d, spec).method(), "minres + jacobi");
}

TEST(PressurePoisson, NonConvergenceIsAClearCollectiveError) {
  const Domain d(world(), spec_for(walls_2d(), 32));
  PoissonSpec spec;
  spec.rtol = 1e-14;
  spec.max_iterations = 2;
  spec.prefix = "capped_";
  for (const PressureKrylov krylov : {PressureKrylov::Petsc, PressureKrylov::Kokkos}) {
    spec.krylov = krylov;
    PressurePoisson poisson(d, spec);
    Field rhs(d, Location::Cell, 1, "rhs"), p(d, Location::Cell, 1, "p");
    set(rhs, walls_2d().laplacian);
    try {
      poisson.solve(rhs, p);
      FAIL() << "no error";
    } catch (const CollectiveError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("did not converge"), std::string::npos) << what;
      EXPECT_NE(what.find("after 2 iterations"), std::string::npos) << what;
      EXPECT_NE(what.find(krylov == PressureKrylov::Petsc ? "pressure.petsc_options"
                                                          : "pressure.krylov = petsc"),
                std::string::npos)
          << what;
    }
  }
}

TEST(PressurePoisson, KokkosCGGivesPetscSolutionsAndIterationCounts) {
  // The same method and convergence test: from a zero guess and from the previous solution (the
  // projection method's guess), every boundary set-up, the two CGs agree to the solve tolerance
  // and take the same number of iterations (one more or less where round-off lands a residual
  // on the other side of the tolerance).
  // On stretched grids both solve V (-L) p = -V rhs with the line-smoothed multigrid.
  const auto& comm = world();
  for (const bool stretched : {false, true})
    for (const Problem& pb : {walls_2d(), periodic_2d(), outflow_2d(), mixed_3d()}) {
      const long n = pb.dim == 2 ? 48 : 16;
      const Domain d(comm, spec_for(pb, n, stretched));
      std::vector<std::vector<double>> solutions;
      std::vector<std::array<int, 2>> iterations;
      std::string method;
      for (const PressureKrylov krylov : {PressureKrylov::Petsc, PressureKrylov::Kokkos}) {
        PoissonSpec spec;
        spec.faces = pb.faces;
        spec.krylov = krylov;
        spec.preconditioner = PressurePreconditioner::Multigrid;
        PressurePoisson poisson(d, spec);
        method = poisson.method();
        Field rhs(d, Location::Cell, 1, "rhs"), p(d, Location::Cell, 1, "p");
        set(rhs, pb.laplacian);
        const int first = poisson.solve(rhs, p).iterations;
        axpy(0.01, rhs, rhs); // a nearby right-hand side, solved from the previous solution
        const int second = poisson.solve(rhs, p).iterations;
        iterations.push_back({first, second});
        solutions.push_back(gather_to_root(comm, p));
      }
      EXPECT_EQ(method.rfind("kokkos cg + geometric multigrid", 0), 0u) << method;
      for (int s = 0; s < 2; ++s)
        EXPECT_LE(std::abs(iterations[0][s] - iterations[1][s]), 1)
            << pb.name << (stretched ? " (stretched)" : "") << " solve " << s << ": PETSc "
            << iterations[0][s] << ", Kokkos " << iterations[1][s];
      if (comm.is_root()) {
        double scale_p = 0, diff = 0;
        for (std::size_t q = 0; q < solutions[0].size(); ++q) {
          scale_p = std::max(scale_p, std::abs(solutions[0][q]));
          diff = std::max(diff, std::abs(solutions[0][q] - solutions[1][q]));
        }
        EXPECT_LE(diff, 1e-8 * scale_p) << pb.name << (stretched ? " (stretched)" : "");
        std::printf("%-26s%s PETSc CG %d then %d iterations, Kokkos CG %d then %d; max difference "
                    "%.2e (scale %.2e)\n",
                    pb.name.c_str(), stretched ? " stretched" : "", iterations[0][0],
                    iterations[0][1], iterations[1][0], iterations[1][1], diff, scale_p);
      }
    }
}

TEST(PressurePoisson, AbsoluteToleranceStopsBothCGsAtTheSameResidual) {
  // pressure.atol: the solve also stops once the residual norm it tests falls below atol. With
  // atol at the residual that rtol 1e-3 reaches, a solve at rtol 1e-10 stops where that one did,
  // long before rtol 1e-10 alone; from its own solution (a steady state's projection) it takes
  // no iteration at all, and then costs one V-cycle (the preconditioned first residual), not
  // also the one of the right-hand side's norm that rtol would need. Both CGs alike.
  const auto& comm = world();
  const Problem pb = walls_2d();
  const Domain d(comm, spec_for(pb, 64, false));
  for (const PressureKrylov krylov : {PressureKrylov::Petsc, PressureKrylov::Kokkos}) {
    PoissonSpec spec;
    spec.faces = pb.faces;
    spec.krylov = krylov;
    spec.preconditioner = PressurePreconditioner::Multigrid;
    Field rhs(d, Location::Cell, 1, "rhs");
    set(rhs, pb.laplacian);
    long again_cycles = 0;
    const auto solve_from_zero = [&](double rtol, double atol) {
      spec.rtol = rtol;
      spec.atol = atol;
      PressurePoisson poisson(d, spec);
      Field p(d, Location::Cell, 1, "p");
      const SolveStats first = poisson.solve(rhs, p);
      const long before = poisson.multigrid()->cycles();
      const SolveStats second = poisson.solve(rhs, p);
      again_cycles = poisson.multigrid()->cycles() - before;
      return std::make_pair(first, second);
    };
    const SolveStats full = solve_from_zero(1e-10, 1e-50).first;
    const SolveStats loose = solve_from_zero(1e-3, 1e-50).first;
    const auto [early, again] = solve_from_zero(1e-10, 1.000001 * loose.residual);
    EXPECT_LE(early.residual, 1.000001 * loose.residual);
    EXPECT_EQ(early.iterations, loose.iterations);
    EXPECT_LT(early.iterations, full.iterations - 2);
    EXPECT_EQ(again.iterations, 0);
    EXPECT_EQ(again_cycles, 1);
    if (comm.is_root())
      std::printf("%s CG: rtol 1e-10 alone %d iterations; atol %.3e (rtol 1e-3's residual) %d, "
                  "then 0 from its solution\n",
                  krylov == PressureKrylov::Petsc ? "PETSc" : "Kokkos", full.iterations,
                  loose.residual, early.iterations);
  }
}

TEST(PressurePoisson, KokkosCGRefusesWhatItCannotHonour) {
  const Domain d(world(), spec_for(walls_2d(), 16));
  PoissonSpec spec;
  spec.krylov = PressureKrylov::Kokkos;
  spec.preconditioner = PressurePreconditioner::Hypre;
  spec.prefix = "kokkos_hypre_";
  try {
    PressurePoisson poisson(d, spec);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("pressure.krylov = kokkos needs the geometric multigrid"),
              std::string::npos)
        << e.what();
  }
  spec.preconditioner = PressurePreconditioner::Auto;
  spec.options = "-ksp_monitor";
  spec.prefix = "kokkos_options_";
  try {
    PressurePoisson poisson(d, spec);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("pressure.krylov = kokkos solves without PETSc"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
