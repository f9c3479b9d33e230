// Topology optimisation: the density filter against its transpose (dot-product test) and
// against a constant, and the MBB beam (60 x 20, volume fraction 0.5, penalty 3, r_min 1.5,
// density filter, OC) against an independent implementation of the 88-line reference code's
// algorithm (cases/mbb_beam/top88_reference.py: compliance 218.803221 after 127 iterations),
// on 1, 2 and 4 ranks.

#include "test_support.hpp"

#include "undertow/core/reductions.hpp"
#include "undertow/optimisation/topology_optimisation.hpp"

#include <cmath>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using namespace undertow::elasticity;
using undertow::testing::fill_global_random;
using undertow::testing::world;

TEST(DensityFilter, TransposeAndConstants) {
  const auto& comm = world();
  for (int dim : {2, 3})
    for (double radius : {1.5, 2.6}) {
      DomainSpec d;
      d.dim = dim;
      d.cells = {13, 9, 7};
      d.length = {13, 9, 7};
      const Domain domain(comm, d);
      optimisation::DensityFilter filter(domain, radius);
      Field x(domain, Location::Cell, 0, "x"), y(domain, Location::Cell, 0, "y"),
          hx(domain, Location::Cell, 0, "hx"), hty(domain, Location::Cell, 0, "hty");
      fill_global_random(x, 3);
      fill_global_random(y, 4);
      filter.apply(x, hx);
      filter.apply_transpose(y, hty);
      const double a = global_dot(comm, hx, y), b = global_dot(comm, x, hty);
      EXPECT_NEAR(a, b, 1e-13 * std::abs(a)) << dim << "D r " << radius;
      fill_value(x, x.owned(), 0.7);
      filter.apply(x, hx);
      EXPECT_NEAR(global_max(comm, hx), 0.7, 1e-15);
      Field negated(domain, Location::Cell, 0, "negated"); // the minimum is -max(-hx)
      axpy(-1.0, hx, negated);
      EXPECT_NEAR(-global_max(comm, negated), 0.7, 1e-15);
    }
}

// The half MBB beam of the 88-line code, with unit elements: x held on the symmetry line x = 0,
// y held at the lower right corner, a unit downward load at the upper left corner.
TEST(Topology, MbbBeamMatchesTheReferenceAlgorithm) {
  const auto& comm = world();
  DomainSpec d;
  d.dim = 2;
  d.cells = {60, 20, 1};
  d.length = {60, 20, 1};
  const Domain domain(comm, d);
  ElasticitySpec spec;
  spec.simp = {1.0, 1e-9, 3.0};
  spec.poisson = 0.3;
  Support symmetry;
  symmetry.box.hi = {0, 20, 0};
  symmetry.fixed = {true, false, false};
  Support roller;
  roller.box.lo = roller.box.hi = {60, 0, 0};
  roller.fixed = {false, true, false};
  spec.supports = {symmetry, roller};
  Load load;
  load.box.lo = load.box.hi = {0, 20, 0};
  load.value = {0, -1, 0};
  spec.loads = {load};
  spec.solver = LinearSolver::Direct;
  LinearElasticity solver(domain, spec);
  optimisation::TopologySettings settings;
  optimisation::TopologyOptimisation opt(solver, settings);
  optimisation::TopologyIteration it;
  std::vector<double> history;
  while (!opt.converged() && it.iteration < settings.max_iterations) {
    it = opt.step();
    history.push_back(it.compliance);
  }
  if (comm.is_root())
    std::printf("MBB 60x20 on %d ranks: iteration 1 compliance %.4f, final %.6f after %ld "
                "iterations (volume %.4f)\n",
                comm.size(), history.front(), it.compliance, it.iteration, it.volume);
  // The reference: 1007.0221 at iteration 1, 218.803221 after 127 iterations.
  EXPECT_NEAR(history.front(), 1007.0221, 1e-4);
  EXPECT_EQ(it.iteration, 127);
  EXPECT_NEAR(it.compliance, 218.803221, 1e-5);
  EXPECT_NEAR(it.volume, 0.5, 1e-3);
}

} // namespace
