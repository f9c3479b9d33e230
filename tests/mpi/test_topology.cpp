// Topology optimisation: the density filter against its transpose (dot-product test) and
// against a constant, on uniform and stretched grids; the MBB beam (60 x 20, volume fraction
// 0.5, penalty 3, r_min 1.5, density filter, OC) against an independent implementation of the
// 88-line reference code's algorithm (cases/mbb_beam/top88_reference.py: compliance 218.803221
// after 127 iterations), also through the stretched grids' code path (faces of equal widths);
// and the MBB beam on a stretched grid: the volume held, the same designs on any partition.
// On 1, 2 and 4 ranks.

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
  for (bool stretched : {false, true})
    for (int dim : {2, 3})
      for (double radius : {1.5, 2.6}) {
        DomainSpec uniform;
        uniform.dim = dim;
        uniform.cells = {13, 9, 7};
        uniform.length = {13, 9, 7};
        const DomainSpec d = stretched ? undertow::testing::stretch_axes(uniform, 0.4) : uniform;
        const Domain domain(comm, d);
        optimisation::DensityFilter filter(domain, radius);
        Field x(domain, Location::Cell, 0, "x"), y(domain, Location::Cell, 0, "y"),
            hx(domain, Location::Cell, 0, "hx"), hty(domain, Location::Cell, 0, "hty");
        fill_global_random(x, 3);
        fill_global_random(y, 4);
        filter.apply(x, hx);
        filter.apply_transpose(y, hty);
        const double a = global_dot(comm, hx, y), b = global_dot(comm, x, hty);
        EXPECT_NEAR(a, b, 1e-13 * std::abs(a))
            << dim << "D r " << radius << " stretched " << stretched;
        fill_value(x, x.owned(), 0.7);
        filter.apply(x, hx);
        EXPECT_NEAR(global_max(comm, hx), 0.7, 1e-15);
        Field negated(domain, Location::Cell, 0, "negated"); // the minimum is -max(-hx)
        axpy(-1.0, hx, negated);
        EXPECT_NEAR(-global_max(comm, negated), 0.7, 1e-15);
      }
}

/// The half MBB beam of the 88-line code on 60 x 20 unit elements, or on a grid of `faces`
/// (stretch_axes): x held on the symmetry line x = 0, y held at the lower right corner, a unit
/// downward load at the upper left corner.
DomainSpec mbb_domain(double faces = -1) {
  DomainSpec d;
  d.dim = 2;
  d.cells = {60, 20, 1};
  d.length = {60, 20, 1};
  return faces < 0 ? d : undertow::testing::stretch_axes(d, faces);
}

ElasticitySpec mbb_spec() {
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
  return spec;
}

/// Every iteration of the MBB optimisation on `d` (at most `max_iterations`).
std::vector<optimisation::TopologyIteration> mbb_run(const Communicator& comm, const DomainSpec& d,
                                                     long max_iterations) {
  const Domain domain(comm, d);
  LinearElasticity solver(domain, mbb_spec());
  optimisation::TopologySettings settings;
  settings.max_iterations = max_iterations;
  optimisation::TopologyOptimisation opt(solver, settings);
  std::vector<optimisation::TopologyIteration> history;
  while (!opt.converged() && long(history.size()) < settings.max_iterations)
    history.push_back(opt.step());
  return history;
}

TEST(Topology, MbbBeamMatchesTheReferenceAlgorithm) {
  const auto& comm = world();
  // Uniform cells, and the same cells given as stretched faces of equal widths.
  for (double faces : {-1.0, 0.0}) {
    const auto history = mbb_run(comm, mbb_domain(faces), 200);
    const optimisation::TopologyIteration& it = history.back();
    if (comm.is_root())
      std::printf("MBB 60x20 (%s) on %d ranks: iteration 1 compliance %.4f, final %.6f after "
                  "%ld iterations (volume %.4f)\n",
                  faces < 0 ? "uniform" : "equal faces", comm.size(), history.front().compliance,
                  it.compliance, it.iteration, it.volume);
    // The reference: 1007.0221 at iteration 1, 218.803221 after 127 iterations.
    EXPECT_NEAR(history.front().compliance, 1007.0221, 1e-4);
    EXPECT_EQ(it.iteration, 127);
    EXPECT_NEAR(it.compliance, 218.803221, 1e-5);
    EXPECT_NEAR(it.volume, 0.5, 1e-3);
  }
}

// On a stretched grid (cells 0.6 to 1.4 times the mean width along both axes): the
// volume-weighted material fraction is held at every iteration, the compliance falls, and the
// designs are those of one rank to round-off.
TEST(Topology, MbbBeamOnAStretchedGrid) {
  const auto& comm = world();
  const Communicator alone = comm.split(comm.rank() == 0 ? 0 : 1, comm.rank());
  const DomainSpec d = mbb_domain(0.4);
  const auto history = mbb_run(comm, d, 30);
  std::vector<optimisation::TopologyIteration> serial;
  if (comm.rank() == 0)
    serial = mbb_run(alone, d, 30);
  ASSERT_EQ(history.size(), 30u);
  for (const auto& it : history)
    EXPECT_NEAR(it.volume, 0.5, 1e-3) << "iteration " << it.iteration;
  EXPECT_LT(history.back().compliance, 0.3 * history.front().compliance);
  if (comm.is_root()) {
    std::printf("MBB 60x20 stretched on %d ranks: compliance %.4f at iteration 1, %.6f at 30 "
                "(volume %.4f)\n",
                comm.size(), history.front().compliance, history.back().compliance,
                history.back().volume);
    ASSERT_EQ(serial.size(), history.size());
    for (std::size_t q = 0; q < history.size(); ++q)
      EXPECT_NEAR(history[q].compliance, serial[q].compliance,
                  1e-10 * std::abs(serial[q].compliance))
          << "iteration " << q + 1;
  }
}

} // namespace
