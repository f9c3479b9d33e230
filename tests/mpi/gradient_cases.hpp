#pragma once
// The small channel-with-a-cylinder case of the gradient tests.

#include "test_support.hpp"

#include "undertow/adjoint/parameters.hpp"

#include <cmath>

namespace undertow {
namespace testing {

using namespace undertow::navier_stokes;
using namespace undertow::adjoint;

/// A channel with a cylinder: parabolic inflow, outflow, no-slip walls (the lower one moving,
/// so that its speed is a parameter too), a body force; Re = U D / nu = 20 on a 48 x 16 grid.
/// With RK3-CN, the viscous solves as tight as the pressure solves.
inline NavierStokesParams channel_params(TimeScheme scheme = TimeScheme::SspRk3) {
  NavierStokesParams p;
  p.scheme = scheme;
  p.viscous_rtol = 1e-14;
  p.viscous_max_iterations = 1000;
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

/// The channel's grid: uniform, or stretched along both axes (cells from 0.6 to 1.4 times the
/// mean width, smoothly; the body sits where they grow).
inline DomainSpec channel_domain(std::array<int, 3> grid, bool stretched = false) {
  DomainSpec s;
  s.dim = 2;
  s.cells = {48, 16, 1};
  s.length = {3.0, 1.0, 1.0};
  s.origin = {0, 0, 0};
  s.periodic = {false, false, false};
  s.ranks = grid;
  if (stretched) {
    s.faces[0] = smoothly_stretched(s.cells[0], s.length[0], 0.4);
    s.faces[1] = smoothly_stretched(s.cells[1], s.length[1], 0.4);
  }
  return s;
}

/// Initial field: the inflow profile everywhere, plus a smooth disturbance.
inline Control channel_control(const Domain& d, TimeScheme scheme = TimeScheme::SspRk3) {
  Control m;
  m.flow = channel_params(scheme);
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
  // A porous patch downstream of the body: the Brinkman design field, 0.3 at its centre.
  m.flow.obstacles.design = Field(d, Location::Cell, 1, "design");
  {
    auto host = Kokkos::create_mirror_view(m.flow.obstacles.design.view());
    const GridGeometry g = m.flow.obstacles.design.geometry();
    const IndexSpace& o = m.flow.obstacles.design.owned();
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i) {
        const double x = g.coordinate(0, i) - 1.8, y = g.coordinate(1, j) - 0.5;
        host(i, j, 0) = 0.3 * std::exp(-(x * x + y * y) / 0.02);
      }
    Kokkos::deep_copy(m.flow.obstacles.design.view(), host);
  }
  return m;
}

/// Time-averaged drag over the second half of the run, plus kinetic energy, enstrophy and the
/// pressure drop across the body at the end: every kind of seed (forces, velocity with ghosts,
/// potential) and both time weightings.
inline ObjectiveBuilder channel_objective(double t_end, bool average) {
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

constexpr double kChannelDt = 0.01;
constexpr int kChannelSteps = 100;

} // namespace testing
} // namespace undertow
