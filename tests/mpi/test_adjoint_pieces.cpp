// Dot-product tests of every piece of the discrete Navier-Stokes adjoint: for a piece J (the
// linearisation of a forward piece at a random state), <J x, y> = <x, J^T y> for random x, y, at
// 1, 2 and 4 ranks, with boundaries of every kind, obstacles and every process grid. Nonlinear
// pieces are quadratic in the velocity, so J x = (f(u + x) - f(u - x)) / 2 holds exactly. Affine
// pieces (boundary values) are checked through their parameter derivatives the same way.

#include "test_support.hpp"

#include "undertow/core/reductions.hpp"
#include "undertow/solvers/linear/field_bicgstab.hpp"
#include "undertow/solvers/navier_stokes/adjoint.hpp"
#include "undertow/solvers/navier_stokes/transposes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>
#include <memory>
#include <string>
#include <utility>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using undertow::navier_stokes::Velocity;
using undertow::testing::world;

/// Which boundary set a test uses.
enum class Boundaries {
  Channel,    ///< inflow (parabolic, with a tangential part), outflow, moving wall, slip wall
  Convective, ///< as Channel, with a convective outlet
  Periodic,   ///< periodic along x, walls along y (a singular pressure operator)
};

NavierStokesParams make_params(int dim, Boundaries kind, bool obstacle) {
  NavierStokesParams p;
  p.nu = 0.05;
  p.body_force = {0.3, -0.2, 0.1};
  auto& f = p.boundaries.face;
  if (kind == Boundaries::Periodic) {
    f[0].kind = f[1].kind = BoundaryKind::Periodic;
  } else {
    f[0].kind = BoundaryKind::Inflow;
    f[0].velocity[0] = 1.2;
    f[0].velocity[1] = 0.3;
    f[0].profile = InflowProfile::Parabolic;
    f[1].kind = kind == Boundaries::Convective ? BoundaryKind::Convective : BoundaryKind::Outflow;
    f[1].velocity[0] = 1.0;
  }
  f[2].kind = BoundaryKind::Wall;
  f[2].velocity[0] = 0.7;
  f[3].kind = BoundaryKind::Slip;
  if (dim == 3) {
    f[4].kind = BoundaryKind::Wall;
    f[4].velocity[1] = -0.4;
    f[5].kind = BoundaryKind::Wall;
  }
  if (obstacle) {
    Shape body;
    body.kind = ShapeKind::Circle;
    body.centre[0] = 0.0;
    body.centre[1] = 0.6;
    body.radius = 0.15;
    p.obstacles.shapes = {body};
    p.obstacles.eta = 1e-3;
  }
  p.pressure.rtol = 1e-14;
  p.pressure.atol = 1e-50;
  return p;
}

/// The test grid: uniform, or stretched smoothly along every axis that is not periodic (cells
/// from 0.55 to 1.45 times the mean width: every transpose then meets cells of differing widths
/// in every direction, next to uniform axes too).
DomainSpec make_domain(int dim, Boundaries kind, std::array<int, 3> grid, bool stretched = false) {
  DomainSpec s = undertow::testing::make_spec(dim, {24, 16, 8},
                                              {kind == Boundaries::Periodic, false, false}, grid);
  for (int a = 0; a < dim && stretched; ++a)
    if (!s.periodic[a])
      s.faces[a] =
          undertow::testing::smoothly_stretched(s.cells[a], s.length[a], 0.45, s.origin[a]);
  return s;
}

void randomise(Velocity3& u, int dim, std::uint64_t seed) {
  for (int c = 0; c < dim; ++c)
    undertow::testing::fill_random(u[c], seed + 17 * c, world().rank());
}

double dot(const Domain& d, const Velocity3& a, const Velocity3& b) {
  double s = 0;
  for (int c = 0; c < d.dim(); ++c)
    s += global_dot_with_ghosts(d.comm(), a[c], b[c]);
  return s;
}

/// dst := src (every local value).
void assign(const Domain& d, const Velocity3& src, Velocity3& dst) {
  for (int c = 0; c < d.dim(); ++c)
    copy(src[c], dst[c]);
}

/// out := a x + b y (every local value).
void combine(const Domain& d, double a, const Velocity3& x, double b, const Velocity3& y,
             Velocity3& out) {
  for (int c = 0; c < d.dim(); ++c) {
    const FieldView xv = x[c].view(), yv = y[c].view(), ov = out[c].view();
    for_each(
        "test::combine", out[c].ghosted(),
        KOKKOS_LAMBDA(long i, long j, long k) { ov(i, j, k) = a * xv(i, j, k) + b * yv(i, j, k); });
  }
}

/// {max |a - b|, max |b|} over every local value (ghosts included) of two fields of one layout.
std::pair<double, double> largest_difference(const Field& a, const Field& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.view());
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.view());
  std::pair<double, double> out{0.0, 0.0};
  for (std::size_t p = 0; p < ha.size(); ++p) {
    out.first = std::max(out.first, std::abs(ha.data()[p] - hb.data()[p]));
    out.second = std::max(out.second, std::abs(hb.data()[p]));
  }
  return out;
}

/// Where a and b differ (a failure's message): the largest difference, as "component c at
/// (i, j, k) of the array's extents: a against b", how many points differ by more than `tol`,
/// how many of those lie on the array's outermost layer, and the largest difference inside it.
std::string describe_differences(int dim, const Velocity3& a, const Velocity3& b, double tol) {
  double largest = -1, largest_inside = 0;
  long differing = 0, on_edge = 0;
  std::string where;
  for (int c = 0; c < dim; ++c) {
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a[c].view());
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b[c].view());
    const long e[3] = {long(ha.extent(0)), long(ha.extent(1)), long(ha.extent(2))};
    for (long k = 0; k < e[2]; ++k)
      for (long j = 0; j < e[1]; ++j)
        for (long i = 0; i < e[0]; ++i) {
          const double diff = std::abs(ha(i, j, k) - hb(i, j, k));
          const bool edge = i == 0 || i == e[0] - 1 || j == 0 || j == e[1] - 1 ||
                            (e[2] > 1 && (k == 0 || k == e[2] - 1));
          differing += diff > tol;
          on_edge += diff > tol && edge;
          if (!edge)
            largest_inside = std::max(largest_inside, diff);
          if (diff > largest) {
            largest = diff;
            where = "component " + std::to_string(c) + " at (" + std::to_string(i) + ", " +
                    std::to_string(j) + ", " + std::to_string(k) + ") of " + std::to_string(e[0]) +
                    " x " + std::to_string(e[1]) + " x " + std::to_string(e[2]) + ": " +
                    std::to_string(ha(i, j, k)) + " against " + std::to_string(hb(i, j, k));
          }
        }
  }
  return "largest difference in " + where + "; " + std::to_string(differing) + " points differ, " +
         std::to_string(on_edge) +
         " of them on the arrays' outermost layer; largest difference inside it " +
         std::to_string(largest_inside);
}

/// The same over the dim components of two velocity triples.
std::pair<double, double> largest_difference(int dim, const Velocity3& a, const Velocity3& b) {
  std::pair<double, double> out{0.0, 0.0};
  for (int c = 0; c < dim; ++c) {
    const auto [diff, scale] = largest_difference(a[c], b[c]);
    out = {std::max(out.first, diff), std::max(out.second, scale)};
  }
  return out;
}

/// |lhs - rhs| <= tol max(|lhs|, |rhs|, terms), `terms` the size of the terms a sum of
/// parameter derivatives adds up (where they cancel, their round-off sets the scale).
void expect_adjoint(double lhs, double rhs, double tol, const char* what, double terms = 0.0) {
  const double scale = std::max({std::abs(lhs), std::abs(rhs), terms});
  if (world().is_root() && std::getenv("UNDERTOW_TEST_VERBOSE"))
    std::printf("%-28s <Jx,y> = % .15e  relative difference %.2e\n", what, lhs,
                std::abs(lhs - rhs) / scale);
  EXPECT_LE(std::abs(lhs - rhs), tol * scale)
      << what << ": <Jx,y> = " << lhs << ", <x,J^T y> = " << rhs;
}

struct Solvers {
  std::unique_ptr<Domain> domain;
  std::unique_ptr<NavierStokes> ns;
  std::unique_ptr<NavierStokesAdjoint> adj;
};

Solvers make(int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid, bool stretched,
             const NavierStokesParams* params = nullptr) {
  Solvers s;
  s.domain = std::make_unique<Domain>(world(), make_domain(dim, kind, grid, stretched));
  NavierStokesParams p = params ? *params : make_params(dim, kind, obstacle);
  // Our multigrid: BoomerAMG (auto's choice on stretched grids) stalls short of the tests'
  // 1e-14 on the singular (periodic) operator.
  p.pressure.preconditioner = linear::PressurePreconditioner::Multigrid;
  s.ns = std::make_unique<NavierStokes>(*s.domain, p);
  s.adj = std::make_unique<NavierStokesAdjoint>(*s.ns);
  return s;
}

/// Calls f(dim, kind, obstacle, grid, stretched) for the combinations the tests cover: uniform
/// grids with every boundary set, stretched ones with every set in 2D and the channel in 3D.
template <class F>
void for_each_case(F f) {
  for (bool stretched : {false, true})
    for (int dim : {2, 3})
      for (Boundaries kind : {Boundaries::Channel, Boundaries::Convective, Boundaries::Periodic})
        for (bool obstacle : {false, true})
          for (const auto& grid : undertow::testing::process_grids(dim, world().size()))
            if (!stretched || dim == 2 || kind == Boundaries::Channel)
              f(dim, kind, obstacle, grid, stretched);
}

TEST(AdjointPieces, BoundaryConditionsAndHalo) {
  for_each_case(
      [](int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid, bool stretched) {
        Solvers s = make(dim, kind, obstacle, grid, stretched);
        const Domain& d = *s.domain;
        auto x = s.ns->make_velocity("x"), y = s.ns->make_velocity("y"),
             zero_state = s.ns->make_velocity("z"), lam = s.ns->make_velocity("lam");
        randomise(x, dim, 1);
        randomise(y, dim, 2);
        // Linear part: P x = prepare(x) - prepare(0).
        s.ns->prepare(x);
        s.ns->prepare(zero_state);
        const double affine = dot(d, zero_state, y);
        const double lhs = dot(d, x, y) - affine;
        assign(d, y, lam);
        s.adj->reset_gradient();
        s.adj->prepare_adjoint(lam);
        randomise(x, dim, 1);
        expect_adjoint(lhs, dot(d, x, lam), 1e-13, "prepare");
        // Affine part: prepare(0) is linear in the boundary velocities v, so <prepare(0), y> =
        // sum v dJ/dv with J = <prepare(u), y>.
        const auto g = s.adj->gradient();
        double predicted = 0;
        for (int f = 0; f < 6; ++f)
          for (int c = 0; c < 3; ++c)
            predicted += s.ns->params().boundaries.face[f].velocity[c] * g.boundary_velocity[f][c];
        expect_adjoint(affine, predicted, 1e-13, "boundary velocities");
      });
}

// Time-dependent boundary velocities: the inflow and the moving walls follow control signals
// a(t) of every kind, at a time inside their horizons. prepare(0) is linear in the signals'
// coefficients theta, so <prepare(0), y> = sum theta dJ/dtheta with J = <prepare(u), y>, and it
// is linear in the velocities v too (= sum v dJ/dv).
TEST(AdjointPieces, BoundarySignalCoefficients) {
  using control::SignalKind;
  const struct {
    SignalKind kind;
    std::vector<double> values;
  } signals[4] = {{SignalKind::PiecewiseConstant, {0.3, -1.1, 0.8}},
                  {SignalKind::PiecewiseLinear, {0.5, 1.7, -0.4}},
                  {SignalKind::BSpline, {0.2, 0.9, -0.6, 1.3, 0.4}},
                  {SignalKind::Fourier, {0.4, 0.7, -0.3, 0.2, 0.5}}};
  for (int dim : {2, 3})
    for (const auto& grid : undertow::testing::process_grids(dim, world().size()))
      for (int which = 0; which < 4; ++which) {
        NavierStokesParams p = make_params(dim, Boundaries::Channel, false);
        for (int f = 0; f < 2 * dim; ++f) {
          control::TimeSignal& a = p.boundaries.face[f].signal;
          if (p.boundaries.face[f].kind == BoundaryKind::Slip ||
              p.boundaries.face[f].kind == BoundaryKind::Outflow)
            continue;
          // Each face its own kind, so that faces do not share a coefficient pattern.
          const auto& sig = signals[(which + f) % 4];
          a.kind = sig.kind;
          a.coefficients = sig.values;
          a.start = 0.1;
          a.end = 2.1;
          a.period = 1.7;
        }
        Solvers s = make(dim, Boundaries::Channel, false, grid, false, &p);
        const Domain& d = *s.domain;
        s.ns->set_boundary_time(0.83);
        auto zero_state = s.ns->make_velocity("z"), y = s.ns->make_velocity("y"),
             lam = s.ns->make_velocity("lam");
        randomise(y, dim, 2);
        s.ns->prepare(zero_state);
        const double affine = dot(d, zero_state, y);
        assign(d, y, lam);
        s.adj->reset_gradient();
        s.adj->prepare_adjoint(lam);
        const auto g = s.adj->gradient();
        double by_coefficients = 0, by_velocities = 0, terms = 0;
        for (int f = 0; f < 6; ++f) {
          const auto& theta = p.boundaries.face[f].signal.coefficients;
          ASSERT_EQ(g.boundary_signal[f].size(), theta.size()) << "face " << f;
          for (std::size_t j = 0; j < theta.size(); ++j) {
            by_coefficients += theta[j] * g.boundary_signal[f][j];
            terms = std::max(terms, std::abs(theta[j] * g.boundary_signal[f][j]));
          }
          for (int c = 0; c < 3; ++c)
            by_velocities += p.boundaries.face[f].velocity[c] * g.boundary_velocity[f][c];
        }
        expect_adjoint(affine, by_coefficients, 1e-13, "signal coefficients", terms);
        expect_adjoint(affine, by_velocities, 1e-13, "boundary velocities under signals");
        EXPECT_GT(std::abs(affine), 1e-3); // the signals reach the boundary values
      }
}

TEST(AdjointPieces, EulerStepWithAdvectionDiffusionPenaltyAndForces) {
  for_each_case([](int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid,
                   bool stretched) {
    Solvers s = make(dim, kind, obstacle, grid, stretched);
    const Domain& d = *s.domain;
    NavierStokes& ns = *s.ns;
    const double a = 0.75, b = 0.25, dt = 0.01;
    auto u = ns.make_velocity("u"), x = ns.make_velocity("x"), y = ns.make_velocity("y"),
         u0 = ns.make_velocity("u0"), up = ns.make_velocity("up"), um = ns.make_velocity("um"),
         out_p = ns.make_velocity("op"), out_m = ns.make_velocity("om"),
         lam0 = ns.make_velocity("l0"), lams = ns.make_velocity("ls");
    randomise(u, dim, 3);
    randomise(x, dim, 4);
    randomise(y, dim, 5);
    randomise(u0, dim, 6);
    combine(d, 1.0, u, 1.0, x, up);
    combine(d, 1.0, u, -1.0, x, um);
    // A force seed: J = <E, y> + sum_k,c seed_kc F_kc.
    const ForceSeed seed(ns.obstacle_count(), {0.4, -1.3, 0.8});
    const double weight = 1.0 / 6.0;
    const auto forces = [&](Velocity3& us, Velocity3& out) {
      auto* f = const_cast<std::vector<std::array<double, 3>>*>(&ns.forces());
      for (auto& fk : *f)
        fk = {0, 0, 0};
      ns.euler_combination(a, u0, b, us, dt, out, weight);
      double sum = 0;
      for (std::size_t k = 0; k < seed.size(); ++k)
        for (int c = 0; c < dim; ++c)
          sum += seed[k][c] * ns.forces()[k][c];
      return sum;
    };
    // Outputs on the free faces only: the other values of out stay zero.
    const double jp = forces(up, out_p), jm = forces(um, out_m);
    const double lhs = 0.5 * (dot(d, out_p, y) - dot(d, out_m, y)) + 0.5 * (jp - jm);
    s.adj->reset_gradient();
    s.adj->euler_combination_adjoint(a, b, u, dt, weight, seed, y, lam0, lams);
    // <J (x, x0), y> with x0 = x for the u0 slot: check the two slots separately.
    expect_adjoint(lhs, dot(d, x, lams), 1e-12, "euler step (us)");
    // u0 enters linearly: <a x on free faces, y> = <x, lam0>.
    auto zero = ns.make_velocity("zero"), out0 = ns.make_velocity("o0"),
         outx = ns.make_velocity("ox");
    ns.euler_combination(a, zero, b, u, dt, out0, 0.0);
    ns.euler_combination(a, x, b, u, dt, outx, 0.0);
    expect_adjoint(dot(d, outx, y) - dot(d, out0, y), dot(d, x, lam0), 1e-12, "euler step (u0)");
    // Parameters: E is linear in nu and in the body force.
    NavierStokesParams p2 = ns.params();
    const double dnu = 0.01, df = 0.05;
    p2.nu += dnu;
    for (int c = 0; c < 3; ++c)
      p2.body_force[c] += df;
    Solvers s2 = make(dim, kind, obstacle, grid, stretched, &p2);
    auto out2 = ns.make_velocity("o2"), out1 = ns.make_velocity("o1");
    ns.euler_combination(a, u0, b, u, dt, out1, 0.0);
    s2.ns->euler_combination(a, u0, b, u, dt, out2, 0.0);
    s.adj->reset_gradient();
    zero = ns.make_velocity("zero");
    auto l0 = ns.make_velocity("l0b"), ls = ns.make_velocity("lsb");
    const ForceSeed none(ns.obstacle_count(), {0, 0, 0});
    s.adj->euler_combination_adjoint(a, b, u, dt, weight, none, y, l0, ls);
    const auto g2 = s.adj->gradient();
    double predicted2 = g2.nu * dnu, terms = std::abs(g2.nu * dnu);
    for (int c = 0; c < dim; ++c) {
      predicted2 += g2.body_force[c] * df;
      terms += std::abs(g2.body_force[c] * df);
    }
    combine(d, 1.0, out2, -1.0, out1, out2);
    expect_adjoint(dot(d, out2, y), predicted2, 1e-12, "nu and body force", terms);
  });
}

/// Adds a rotation (rate `rotation`) and a jet pair (velocity `jet`, at 45 and 225 degrees, 60
/// degrees wide) to the body of make_params(dim, kind, true), as actuators_from_config would.
void add_actuators(NavierStokesParams& p, double rotation, double jet) {
  const Shape& body = p.obstacles.shapes.at(0);
  p.actuators = {rotation_actuator(0, body, rotation),
                 jet_pair(0, body, M_PI / 4.0, 5.0 * M_PI / 4.0, M_PI / 3.0, jet)};
}

// The actuators' target velocity in the penalised Euler step and its force: both are affine in
// the actuators' amplitudes, so J(A) = <E, y> + seed . F changes by exactly sum dJ/dA_k dA_k.
TEST(AdjointPieces, EulerStepActuatorAmplitudes) {
  for (bool stretched : {false, true})
    for (int dim : {2, 3})
      for (const auto& grid : undertow::testing::process_grids(dim, world().size())) {
        const double a = 0.75, b = 0.25, dt = 0.01, weight = 1.0 / 6.0, time = 0.3;
        const double rotation = 0.8, jet = 0.5, change = 0.3;
        NavierStokesParams p1 = make_params(dim, Boundaries::Channel, true);
        add_actuators(p1, rotation, jet);
        NavierStokesParams p2 = p1;
        p2.actuators[0].scale += change;
        p2.actuators[1].scale += change;
        Solvers s1 = make(dim, Boundaries::Channel, true, grid, stretched, &p1);
        Solvers s2 = make(dim, Boundaries::Channel, true, grid, stretched, &p2);
        const Domain& d = *s1.domain;
        auto u = s1.ns->make_velocity("u"), y = s1.ns->make_velocity("y"),
             u0 = s1.ns->make_velocity("u0"), out = s1.ns->make_velocity("out"),
             lam0 = s1.ns->make_velocity("l0"), lams = s1.ns->make_velocity("ls");
        randomise(u, dim, 3);
        randomise(y, dim, 5);
        randomise(u0, dim, 6);
        const ForceSeed seed(1, {0.4, -1.3, 0.8});
        const auto objective = [&](NavierStokes& ns) {
          auto* f = const_cast<std::vector<std::array<double, 3>>*>(&ns.forces());
          for (auto& fk : *f)
            fk = {0, 0, 0};
          ns.set_boundary_time(time);
          ns.euler_combination(a, u0, b, u, dt, out, weight);
          double sum = dot(d, out, y);
          for (int c = 0; c < dim; ++c)
            sum += seed[0][c] * ns.forces()[0][c];
          return sum;
        };
        const double lhs = objective(*s2.ns) - objective(*s1.ns);
        s1.adj->reset_gradient();
        s1.ns->set_boundary_time(time);
        s1.adj->euler_combination_adjoint(a, b, u, dt, weight, seed, y, lam0, lams);
        const auto g = s1.adj->gradient();
        ASSERT_EQ(g.actuator_scale.size(), 2u);
        EXPECT_NE(g.actuator_scale[0], 0.0);
        EXPECT_NE(g.actuator_scale[1], 0.0);
        expect_adjoint(
            lhs, change * (g.actuator_scale[0] + g.actuator_scale[1]), 1e-12, "actuator amplitudes",
            std::abs(change * g.actuator_scale[0]) + std::abs(change * g.actuator_scale[1]));
      }
}

/// Zeroes `f` outside `inside` (the test's kernels live outside TEST bodies, whose TestBody is
/// private: CUDA's extended lambdas may not sit there).
void zero_outside(Field& f, const IndexSpace& inside) {
  const FieldView w = f.view();
  const KernelBox box(inside);
  for_each(
      "test::clip", f.ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
        if (!box.contains(i, j, k))
          w(i, j, k) = 0.0;
      });
}

/// The actuators' target of `ns` with the feedback policy's amplitudes at the velocity `u`.
Velocity3 feedback_target(NavierStokes& ns, const Velocity3& u) {
  ns.set_feedback(ns.params().policy.evaluate(ns.read_sensors(u)));
  ns.update_target();
  Velocity3 out = ns.make_velocity("target");
  for (int c = 0; c < ns.domain().dim(); ++c)
    copy(ns.target(c), out[c]);
  return out;
}

// A feedback policy's chain u_n -> sensors -> policy -> target U = sum_k scale_k pi_k(s) G_k.
// With a linear policy U is affine in u, in the weights and in the scales, so <dJ/dU, dU>
// equals what the transposes (add_actuator_derivatives, add_feedback_transpose) predict, to
// round-off, for a change of each.
TEST(AdjointPieces, FeedbackChainSensorsPolicyTarget) {
  for (bool stretched : {false, true})
    for (int dim : {2, 3})
      for (const auto& grid : undertow::testing::process_grids(dim, world().size())) {
        NavierStokesParams p1 = make_params(dim, Boundaries::Channel, true);
        add_actuators(p1, 0.8, 0.5);
        p1.sensors = {{0.25, 0.5, 1.2}, {0.3, 0.7, 1.3}, {0.4, 0.62, 1.2}};
        p1.policy = control::FeedbackPolicy::linear(3 * dim, 2, false);
        for (std::size_t j = 0; j < p1.policy.theta.size(); ++j)
          p1.policy.theta[j] = 0.3 * std::sin(1.7 * j + 0.4);
        NavierStokesParams p2 = p1, p3 = p1;
        std::vector<double> dtheta(p1.policy.theta.size());
        for (std::size_t j = 0; j < dtheta.size(); ++j) {
          dtheta[j] = 0.05 * std::cos(2.3 * j);
          p2.policy.theta[j] += dtheta[j];
        }
        const double change = 0.2;
        p3.actuators[0].scale += change;
        p3.actuators[1].scale += change;
        Solvers s1 = make(dim, Boundaries::Channel, true, grid, stretched, &p1);
        Solvers s2 = make(dim, Boundaries::Channel, true, grid, stretched, &p2);
        Solvers s3 = make(dim, Boundaries::Channel, true, grid, stretched, &p3);
        const Domain& d = *s1.domain;
        NavierStokes& ns = *s1.ns;
        auto u = ns.make_velocity("u"), du = ns.make_velocity("du"), y = ns.make_velocity("y"),
             lambda = ns.make_velocity("lambda"), moved = ns.make_velocity("moved");
        randomise(u, dim, 3);
        randomise(du, dim, 4);
        randomise(y, dim, 5);
        for (int c = 0; c < dim; ++c)
          zero_outside(y[c], ns.free_faces(c)); // the step reads U on its free faces alone
        combine(d, 1.0, u, 1.0, du, moved);
        const Velocity3 target = feedback_target(ns, u);
        auto difference = [&](const Velocity3& other) {
          Velocity3 out = ns.make_velocity("difference");
          combine(d, 1.0, other, -1.0, target, out);
          return dot(d, y, out);
        };
        const double lhs_state = difference(feedback_target(ns, moved));
        const double lhs_weights = difference(feedback_target(*s2.ns, u));
        const double lhs_scales = difference(feedback_target(*s3.ns, u));
        // The transposes, at u.
        s1.adj->reset_gradient();
        const std::vector<double> readings = ns.read_sensors(u);
        ns.set_feedback(ns.params().policy.evaluate(readings));
        s1.adj->add_actuator_derivatives(y);
        s1.adj->add_feedback_transpose(readings, lambda);
        const auto g = s1.adj->gradient();
        ASSERT_EQ(g.policy.size(), dtheta.size());
        double predicted_weights = 0, weight_terms = 0;
        for (std::size_t j = 0; j < dtheta.size(); ++j) {
          predicted_weights += g.policy[j] * dtheta[j];
          weight_terms += std::abs(g.policy[j] * dtheta[j]);
        }
        const double predicted_scales = change * (g.actuator_scale[0] + g.actuator_scale[1]);
        EXPECT_NE(lhs_state, 0.0);
        EXPECT_NE(predicted_weights, 0.0);
        EXPECT_NE(predicted_scales, 0.0);
        expect_adjoint(lhs_state, dot(d, lambda, du), 1e-12, "feedback: state");
        expect_adjoint(lhs_weights, predicted_weights, 1e-12, "feedback: weights", weight_terms);
        expect_adjoint(lhs_scales, predicted_scales, 1e-12, "feedback: scales");
      }
}

/// The gather over the whole array of component T, into out.
template <int T, int Dim, class S>
void gather_all(const Velocity& v, const Velocity& le, const S& sp, double nu, double dt,
                Field& out) {
  const FieldView o = out.view();
  for_each(
      "test::gather", out.ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
        o(i, j, k) =
            navier_stokes::momentum_tendency_gather<T, Dim, true>(v, le, sp, nu, dt, i, j, k);
      });
}

/// Zeroes `f` outside its owned points.
void zero_outside_owned(Field& f) {
  zero_outside(f, f.owned());
}

/// The scatter form of the transposed momentum tendency of component c, weighted by `weights`.
template <class S>
void scatter_momentum_transpose(const Velocity& v, const Velocity& lam, const Field& weights, int c,
                                int dim, const S& sp, double nu, double dt) {
  const FieldView w = weights.view();
  for_each(
      "test::scatter", weights.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        navier_stokes::momentum_tendency_transpose(v, lam, c, dim, sp, nu, dt * w(i, j, k), i, j,
                                                   k);
      });
}

/// Both forms for every component, with the spacing S.
template <class S>
void momentum_transpose_both_ways(int dim, const Velocity& v, const Velocity& lam,
                                  const Velocity3& le, const Velocity& weights, const S& sp,
                                  Velocity3& gathered) {
  const double nu = 0.05, dt = 0.01;
  for (int c = 0; c < dim; ++c)
    scatter_momentum_transpose(v, lam, le[c], c, dim, sp, nu, dt);
  if (dim == 2) {
    gather_all<0, 2>(v, weights, sp, nu, dt, gathered[0]);
    gather_all<1, 2>(v, weights, sp, nu, dt, gathered[1]);
  } else {
    gather_all<0, 3>(v, weights, sp, nu, dt, gathered[0]);
    gather_all<1, 3>(v, weights, sp, nu, dt, gathered[1]);
    gather_all<2, 3>(v, weights, sp, nu, dt, gathered[2]);
  }
}

// The solver's gather form of the transposed momentum tendency against the scatter form it was
// derived from (transposes.hpp): the same numbers, for random velocities and weights.
TEST(AdjointPieces, MomentumGatherEqualsScatter) {
  for (bool stretched : {false, true})
    for (int dim : {2, 3}) {
      const Domain d(world(), make_domain(dim, Boundaries::Periodic, {0, 0, 0}, stretched));
      NavierStokes ns(d, make_params(dim, Boundaries::Periodic, false));
      auto u = ns.make_velocity("u"), le = ns.make_velocity("le"),
           scattered = ns.make_velocity("s"), gathered = ns.make_velocity("g");
      randomise(u, dim, 50);
      randomise(le, dim, 51);
      Velocity v, lam, weights;
      for (int c = 0; c < 3; ++c) {
        v.u[c] = u[c].view();
        lam.u[c] = scattered[c].view();
        weights.u[c] = le[c].view();
      }
      for (int c = 0; c < dim; ++c)
        zero_outside_owned(le[c]); // the points whose stencils stay inside the array
      with_spacing(ns.spacing(), [&](const auto& sp) {
        momentum_transpose_both_ways(dim, v, lam, le, weights, sp, gathered);
      });
      const auto [diff, scale] = largest_difference(dim, gathered, scattered);
      EXPECT_LE(diff, 1e-13 * scale)
          << dim << "D" << (stretched ? ", stretched" : "") << ", "
          << describe_differences(dim, gathered, scattered, 1e-13 * scale);
      EXPECT_GT(scale, 0.0);
      EXPECT_EQ(ns.spacing().all_uniform(), !stretched);
    }
}

/// The enstrophy's transpose both ways, for weights w.u[a] on the owned cells: the scatter
/// (edge_vorticity_transpose over the owned cells) into `scattered`, the objective's gather
/// (edge_vorticity_gather over every face) into `gathered`.
template <class S>
void vorticity_transpose_both_ways(int dim, const Velocity& w, const IndexSpace& cells, const S& sp,
                                   const Velocity& scattered, Velocity3& gathered) {
  for_each(
      "test::vorticity_scatter", cells, KOKKOS_LAMBDA(long i, long j, long k) {
        for (int a = (dim == 2 ? 2 : 0); a < 3; ++a)
          navier_stokes::edge_vorticity_transpose(scattered, a, sp, w.u[a](i, j, k), i, j, k);
      });
  for (int t = 0; t < dim; ++t) {
    const FieldView g = gathered[t].view();
    for_each(
        "test::vorticity_gather", gathered[t].ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
          g(i, j, k) = navier_stokes::edge_vorticity_gather(w, t, sp, i, j, k);
        });
  }
}

// The enstrophy objective's gather form of the edge vorticity's transpose against the scatter
// form (transposes.hpp), on uniform and stretched grids: the same numbers.
TEST(AdjointPieces, VorticityGatherEqualsScatter) {
  for (bool stretched : {false, true})
    for (int dim : {2, 3}) {
      const Domain d(world(), make_domain(dim, Boundaries::Channel, {0, 0, 0}, stretched));
      NavierStokes ns(d, make_params(dim, Boundaries::Channel, false));
      auto scattered = ns.make_velocity("s"), gathered = ns.make_velocity("g");
      Velocity3 weights;
      Velocity w, lam;
      for (int a = (dim == 2 ? 2 : 0); a < 3; ++a) {
        weights[a] = Field(d, Location::Cell, 1, "w");
        undertow::testing::fill_random(weights[a], 70 + a, world().rank());
        zero_outside_owned(weights[a]);
        w.u[a] = weights[a].view();
      }
      for (int c = 0; c < 3; ++c)
        lam.u[c] = scattered[c].view();
      const IndexSpace cells = weights[2].owned();
      with_spacing(ns.spacing(), [&](const auto& sp) {
        vorticity_transpose_both_ways(dim, w, cells, sp, lam, gathered);
      });
      const auto [diff, scale] = largest_difference(dim, gathered, scattered);
      EXPECT_LE(diff, 1e-14 * scale)
          << dim << "D" << (stretched ? ", stretched" : "") << ", "
          << describe_differences(dim, gathered, scattered, 1e-14 * scale);
      EXPECT_GT(scale, 0.0);
    }
}

/// The design gradient's face-to-cell transpose over the free faces of c, as a scatter
/// (atomic where kernels run concurrently) and as the solver's gather; into `scattered` and
/// `gathered` (cell fields, added to).
void design_transpose_both_ways(const NavierStokes& ns, int c, const Field& a, const Field& b,
                                Field& scattered, Field& gathered) {
  const FieldView av = a.view(), bv = b.view(), sv = scattered.view(), gv = gathered.view();
  const IndexSpace faces = ns.free_faces(c);
  for_each(
      "test::design_scatter", faces, KOKKOS_LAMBDA(long i, long j, long k) {
        navier_stokes::design_on_face_transpose(sv, c, av(i, j, k) * bv(i, j, k), i, j, k);
      });
  IndexSpace cells = faces;
  cells.begin[c] -= 1;
  const long lo = faces.begin[c], hi = faces.end[c];
  for_each(
      "test::design_gather", cells, KOKKOS_LAMBDA(long i, long j, long k) {
        navier_stokes::design_on_face_gather(gv, av, bv, c, lo, hi, i, j, k);
      });
}

// The design gradient's gather form against the scatter form it replaces: bitwise equal on the
// Serial backend (the same additions in the same order), to round-off elsewhere.
TEST(AdjointPieces, DesignTransposeGatherEqualsScatter) {
  for (int dim : {2, 3}) {
    const Domain d(world(), make_domain(dim, Boundaries::Channel, {0, 0, 0}));
    NavierStokes ns(d, make_params(dim, Boundaries::Channel, false));
    Field scattered(d, Location::Cell, 1, "scattered"), gathered(d, Location::Cell, 1, "gathered");
    auto a = ns.make_velocity("a"), b = ns.make_velocity("b");
    randomise(a, dim, 60);
    randomise(b, dim, 61);
    for (int c = 0; c < dim; ++c)
      design_transpose_both_ways(ns, c, a[c], b[c], scattered, gathered);
    const auto [diff, scale] = largest_difference(gathered, scattered);
    EXPECT_GT(scale, 0.0);
    if (navier_stokes::kConcurrentKernels)
      EXPECT_LE(diff, 1e-14 * scale) << dim << "D";
    else
      EXPECT_EQ(diff, 0.0) << dim << "D";
  }
}

TEST(AdjointPieces, ProjectionWithTransposedPoissonSolve) {
  for_each_case(
      [](int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid, bool stretched) {
        if (obstacle)
          return; // the projection does not see obstacles
        Solvers s = make(dim, kind, false, grid, stretched);
        const Domain& d = *s.domain;
        NavierStokes& ns = *s.ns;
        auto x = ns.make_velocity("x"), y = ns.make_velocity("y"), z = ns.make_velocity("z"),
             lam = ns.make_velocity("lam");
        randomise(x, dim, 7);
        randomise(y, dim, 8);
        ns.project(x, 0.0);
        ns.project(z, 0.0);
        const double lhs = dot(d, x, y) - dot(d, z, y);
        assign(d, y, lam);
        s.adj->project_adjoint(lam, 0);
        randomise(x, dim, 7);
        // Solver tolerance 1e-14 relative: forward and transposed solves agree to about that, times
        // the condition number of the Laplacian on this grid (~1e3); measured 1e-14.
        expect_adjoint(lhs, dot(d, x, lam), 1e-11, "projection");
      });
}

TEST(AdjointPieces, EachRungeKuttaStage) {
  // Stage map (u0, us) -> project(a u0 + b E(prepare(us))), with the SSP-RK3 weights.
  const double weights[3][2] = {{0.0, 1.0}, {0.75, 0.25}, {1.0 / 3.0, 2.0 / 3.0}};
  for_each_case([&](int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid,
                    bool stretched) {
    if (dim == 3 && kind != Boundaries::Channel)
      return; // keeps the test short; 3D pieces are covered above
    Solvers s = make(dim, kind, obstacle, grid, stretched);
    const Domain& d = *s.domain;
    NavierStokes& ns = *s.ns;
    const double dt = 0.01;
    for (int stage = 0; stage < 3; ++stage) {
      const double a = weights[stage][0], b = weights[stage][1];
      auto u = ns.make_velocity("u"), u0 = ns.make_velocity("u0"), x = ns.make_velocity("x"),
           y = ns.make_velocity("y"), up = ns.make_velocity("up"), um = ns.make_velocity("um"),
           op = ns.make_velocity("op"), om = ns.make_velocity("om"), lam = ns.make_velocity("lam"),
           lam0 = ns.make_velocity("l0"), lams = ns.make_velocity("ls");
      randomise(u, dim, 10 + stage);
      randomise(u0, dim, 20 + stage);
      randomise(x, dim, 30 + stage);
      randomise(y, dim, 40 + stage);
      ns.prepare(u0);
      const auto stage_map = [&](Velocity3& us, Velocity3& out) {
        ns.prepare(us);
        assign(d, u0, out);
        ns.euler_combination(a, u0, b, us, dt, out, 0.0);
        ns.project(out, 0.0);
      };
      combine(d, 1.0, u, 1.0, x, up);
      combine(d, 1.0, u, -1.0, x, um);
      stage_map(up, op);
      stage_map(um, om);
      const double lhs = 0.5 * (dot(d, op, y) - dot(d, om, y));
      ns.prepare(u);
      assign(d, y, lam);
      s.adj->project_adjoint(lam, 0);
      const ForceSeed none(ns.obstacle_count(), {0, 0, 0});
      s.adj->euler_combination_adjoint(a, b, u, dt, 0.0, none, lam, lam0, lams);
      s.adj->prepare_adjoint(lams);
      expect_adjoint(lhs, dot(d, x, lams), 1e-11, "RK stage");
    }
  });
}

/// Zeroes every value of `u` off the free faces (the unknowns of the viscous solves).
void keep_free(const NavierStokes& ns, Velocity3& u) {
  for (int c = 0; c < ns.domain().dim(); ++c)
    zero_outside(u[c], ns.free_faces(c));
}

/// make_params with RK3-CN and tight viscous solves.
NavierStokesParams imex_params(int dim, Boundaries kind, bool obstacle) {
  NavierStokesParams p = make_params(dim, kind, obstacle);
  p.scheme = TimeScheme::Rk3CrankNicolson;
  p.viscous_rtol = 1e-14;
  p.viscous_max_iterations = 1000;
  return p;
}

TEST(AdjointPieces, HelmholtzOperatorAndItsSolve) {
  for_each_case(
      [](int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid, bool stretched) {
        const NavierStokesParams params = imex_params(dim, kind, obstacle);
        Solvers s = make(dim, kind, obstacle, grid, stretched, &params);
        const Domain& d = *s.domain;
        NavierStokes& ns = *s.ns;
        // dt large enough that the viscous part dominates the identity (alpha dt nu / h^2 ~ 1).
        const double dt = 0.2;
        for (int k = 0; k < 3; ++k) {
          auto x = ns.make_velocity("x"), y = ns.make_velocity("y"), hx = ns.make_velocity("hx"),
               hty = ns.make_velocity("hty");
          randomise(x, dim, 50 + k);
          randomise(y, dim, 60 + k);
          keep_free(ns, x);
          keep_free(ns, y);
          // The homogeneous operator H0 on the free faces.
          auto xs = ns.make_velocity("xs");
          assign(d, x, xs);
          ns.prepare_homogeneous(xs);
          ns.apply_helmholtz(k, dt, xs, hx);
          keep_free(ns, hx);
          s.adj->apply_helmholtz_transpose(k, dt, y, hty);
          keep_free(ns, hty);
          expect_adjoint(dot(d, hx, y), dot(d, x, hty), 1e-13, "Helmholtz operator");
          // The solve: H^-1 is affine in the boundary values, H0^-1 x = H^-1 x - H^-1 0.
          auto zero_rhs = ns.make_velocity("zero"), solved = ns.make_velocity("solved"),
               solved0 = ns.make_velocity("solved0"), mu = ns.make_velocity("mu");
          ns.viscous_solve(k, dt, x, zero_rhs, solved);
          ns.viscous_solve(k, dt, zero_rhs, zero_rhs, solved0);
          keep_free(ns, solved);
          keep_free(ns, solved0);
          const double lhs = dot(d, solved, y) - dot(d, solved0, y);
          s.adj->viscous_solve_transpose(k, dt, y, mu);
          keep_free(ns, mu);
          expect_adjoint(lhs, dot(d, x, mu), 1e-11, "Helmholtz solve");
        }
      });
}

/// max |a - b| over the spaces of the components, over all ranks. Collective.
double max_difference(const Domain& d, const Velocity3& a, const Velocity3& b,
                      const std::array<IndexSpace, 3>& spaces) {
  double local = 0;
  for (int c = 0; c < d.dim(); ++c) {
    const FieldView av = a[c].view(), bv = b[c].view();
    local = std::max(
        local, local_max(
                   "test::difference", spaces[c], KOKKOS_LAMBDA(long i, long j, long k, double& m) {
                     const double e = std::abs(av(i, j, k) - bv(i, j, k));
                     if (e > m)
                       m = e;
                   }));
  }
  return d.comm().max(local);
}

/// max |a - b| over the owned cells of two cell fields, over all ranks. Collective.
double max_difference(const Domain& d, const Field& a, const Field& b) {
  const FieldView av = a.view(), bv = b.view();
  return d.comm().max(local_max(
      "test::cell_difference", a.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& m) {
        const double e = std::abs(av(i, j, k) - bv(i, j, k));
        if (e > m)
          m = e;
      }));
}

TEST(AdjointPieces, HelmholtzSolveFromZeroSkipsOnlyTheZeroProduct) {
  // The viscous solves start from zero: the solver then takes r = b instead of b - H 0, and
  // builds its preconditioner only once it iterates. Same iterations and solution, bitwise.
  for_each_case(
      [](int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid, bool stretched) {
        const NavierStokesParams params = imex_params(dim, kind, obstacle);
        Solvers s = make(dim, kind, obstacle, grid, stretched, &params);
        const Domain& d = *s.domain;
        NavierStokes& ns = *s.ns;
        const double dt = 0.2;
        const int k = 1;
        auto b = ns.make_velocity("b");
        randomise(b, dim, 150);
        keep_free(ns, b);
        std::array<IndexSpace, 3> free;
        for (int c = 0; c < dim; ++c)
          free[c] = ns.free_faces(c);
        linear::FieldBiCGStab solver(d.comm(), b, free);
        const auto H = [&](Velocity3& x, Velocity3& y) {
          ns.prepare_homogeneous(x);
          ns.apply_helmholtz(k, dt, x, y);
        };
        int built = 0;
        const auto preconditioner = [&]() -> const linear::FieldTriple& {
          ++built;
          return ns.helmholtz_inverse_diagonal(k, dt);
        };
        const auto solve = [&](bool zero_guess, double rtol, Velocity3& x) {
          for (int c = 0; c < dim; ++c)
            fill_value(x[c], x[c].ghosted(), 0.0);
          return solver.solve(H, preconditioner, b, x, rtol, 200, 0.0, zero_guess);
        };
        auto general = ns.make_velocity("general"), skipped = ns.make_velocity("skipped");
        const linear::KrylovResult r1 = solve(false, 1e-12, general);
        const linear::KrylovResult r2 = solve(true, 1e-12, skipped);
        EXPECT_TRUE(r1.converged && r2.converged);
        EXPECT_GT(r1.iterations, 0);
        EXPECT_EQ(r1.iterations, r2.iterations);
        EXPECT_EQ(r1.residual, r2.residual);
        EXPECT_EQ(max_difference(d, general, skipped, free), 0.0);
        EXPECT_EQ(built, 2);
        // Converged before iterating (rtol above 1): no preconditioner is built.
        const linear::KrylovResult r3 = solve(true, 2.0, skipped);
        EXPECT_TRUE(r3.converged);
        EXPECT_EQ(r3.iterations, 0);
        EXPECT_EQ(built, 2);
        // The solver's scratch vectors are not cleared between solves: what a solve of another
        // system leaves in them changes nothing, bitwise.
        auto b_first = ns.make_velocity("b_first");
        for (int c = 0; c < dim; ++c)
          copy(b[c], b_first[c]);
        randomise(b, dim, 151);
        keep_free(ns, b);
        auto other = ns.make_velocity("other");
        EXPECT_TRUE(solve(true, 1e-12, other).converged);
        for (int c = 0; c < dim; ++c)
          copy(b_first[c], b[c]);
        auto again = ns.make_velocity("again");
        const linear::KrylovResult r4 = solve(true, 1e-12, again);
        EXPECT_EQ(r4.iterations, r2.iterations);
        EXPECT_EQ(r4.residual, r2.residual);
        EXPECT_EQ(max_difference(d, again, general, free), 0.0);
      });
}

/// out := a + scale b on every local value (cell fields).
void add_scaled(const Field& a, double scale, const Field& b, Field& out) {
  copy(a, out);
  axpy(scale, b, out);
}

TEST(AdjointPieces, EachImexSubstep) {
  // Substep map (w_k, w_{k-1}, p^(k)) -> (w_{k+1}, p^(k+1)) = (P u*, p^(k) + psi / (2 alpha dt)),
  // u* from prepare(w_k), prepare(w_{k-1}) and G p^(k): u* is quadratic in the w (the
  // advection) and affine in the right-hand side, so central differences are exact.
  for_each_case(
      [&](int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid, bool stretched) {
        if (dim == 3 && kind != Boundaries::Channel)
          return; // keeps the test short
        const NavierStokesParams params = imex_params(dim, kind, obstacle);
        Solvers s = make(dim, kind, obstacle, grid, stretched, &params);
        const Domain& d = *s.domain;
        NavierStokes& ns = *s.ns;
        const double dt = 0.05;
        const auto cell = [&](const char* name) {
          return Field(d, Location::Cell, 1, name);
        };
        for (int k = 0; k < 3; ++k) {
          const double weight = 2.0 * kRk3CrankNicolson[k].alpha * dt;
          auto w = ns.make_velocity("w"), wp = ns.make_velocity("wp"), x1 = ns.make_velocity("x1"),
               x2 = ns.make_velocity("x2"), y = ns.make_velocity("y"), a = ns.make_velocity("a"),
               b = ns.make_velocity("b"), op = ns.make_velocity("op"), om = ns.make_velocity("om"),
               rhs = ns.make_velocity("rhs"), lam = ns.make_velocity("lam"),
               lw = ns.make_velocity("lw"), lwp = ns.make_velocity("lwp");
          Field p = cell("p"), x3 = cell("x3"), yp = cell("yp"), pa = cell("pa"), pop = cell("pop"),
                pom = cell("pom"), seed = cell("seed"), lp = cell("lp");
          randomise(w, dim, 70 + k);
          randomise(wp, dim, 80 + k);
          randomise(x1, dim, 90 + k);
          randomise(x2, dim, 100 + k);
          randomise(y, dim, 110 + k);
          undertow::testing::fill_random(p, 120 + k, world().rank());
          undertow::testing::fill_random(x3, 130 + k, world().rank());
          undertow::testing::fill_random(yp, 140 + k, world().rank());
          const auto substep = [&](Velocity3& wk, Velocity3& wkm, Field& pk, Velocity3& out,
                                   Field& pout) {
            ns.prepare(wk);
            ns.prepare(wkm);
            ns.imex_right_hand_side(k, wk, k > 0 ? &wkm : nullptr, pk, dt, rhs);
            ns.viscous_solve(k, dt, rhs, wk, out);
            ns.project(out, 0.0);
            add_scaled(pk, 1.0 / weight, ns.potential(), pout);
          };
          combine(d, 1.0, w, 1.0, x1, a);
          combine(d, 1.0, wp, 1.0, x2, b);
          add_scaled(p, 1.0, x3, pa);
          substep(a, b, pa, op, pop);
          combine(d, 1.0, w, -1.0, x1, a);
          combine(d, 1.0, wp, -1.0, x2, b);
          add_scaled(p, -1.0, x3, pa);
          substep(a, b, pa, om, pom);
          const double lhs = 0.5 * (dot(d, op, y) - dot(d, om, y)) +
                             0.5 * (global_dot(d.comm(), pop, yp) - global_dot(d.comm(), pom, yp));
          ns.prepare(w);
          ns.prepare(wp);
          assign(d, y, lam);
          add_scaled(seed, 1.0 / weight, yp, seed); // seed was zero
          s.adj->project_adjoint(lam, 0, &seed);
          copy(yp, lp);
          const ForceSeed none(ns.obstacle_count(), {0, 0, 0});
          s.adj->imex_substep_adjoint(k, w, k > 0 ? &wp : nullptr, p, dt, none, lam, lw,
                                      k > 0 ? &lwp : nullptr, lp);
          s.adj->prepare_adjoint(lw);
          s.adj->prepare_adjoint(lwp);
          randomise(x1, dim, 90 + k);
          randomise(x2, dim, 100 + k);
          const double rhs_dot =
              dot(d, x1, lw) + (k > 0 ? dot(d, x2, lwp) : 0.0) + global_dot(d.comm(), x3, lp);
          expect_adjoint(lhs, rhs_dot, 1e-10, "IMEX substep");
        }
      });
}

TEST(AdjointPieces, UnprojectedImexSubstepsReadTheirTapedUStar) {
  // time.imex_projection = last_substep: substeps 0 and 1 are not projected, so the step tapes
  // their u* as w_1 and w_2. The substep adjoint that reads it there gives bitwise what the one
  // that repeats the right-hand side and the viscous solve gives.
  for_each_case(
      [&](int dim, Boundaries kind, bool obstacle, std::array<int, 3> grid, bool stretched) {
        if (dim == 3 && kind != Boundaries::Channel)
          return; // keeps the test short
        NavierStokesParams params = imex_params(dim, kind, obstacle);
        params.imex_projection = ImexProjection::LastSubstep;
        params.viscous_rtol = 1e-10; // the solve iterates as in a run
        Solvers s = make(dim, kind, obstacle, grid, stretched, &params);
        const Domain& d = *s.domain;
        NavierStokes& ns = *s.ns;
        NavierStokesAdjoint& adj = *s.adj;
        const double dt = 0.05;
        Velocity3 start = ns.make_velocity("start");
        randomise(start, dim, 170);
        for (int c = 0; c < dim; ++c)
          copy(start[c], ns.velocity(c));
        ns.project_initial();
        StepTape tape;
        ns.step(dt, &tape);
        const Velocity3* w[3] = {&tape.u0, &tape.stage1, &tape.stage2};
        const ForceSeed seed(ns.obstacle_count(), {0.3, -0.2, 0.1});
        std::array<IndexSpace, 3> faces;
        for (int c = 0; c < dim; ++c)
          faces[c] = ns.free_faces(c);
        for (int k = 0; k < 2; ++k) {
          Velocity3 lw[2], lwp[2], chi[2];
          Field lp[2];
          FlowGradient g[2];
          for (int variant = 0; variant < 2; ++variant) {
            ns.set_boundary_time(tape.time + imex_substep_end(k) * dt);
            ns.set_force_time(tape.time + imex_substep_middle(k) * dt);
            adj.reset_gradient();
            Velocity3 lu = ns.make_velocity("lu");
            randomise(lu, dim, 180 + k);
            lw[variant] = ns.make_velocity("lw");
            lwp[variant] = ns.make_velocity("lwp");
            lp[variant] = Field(d, Location::Cell, 1, "lp");
            Field p = tape.pressure[imex_pressure_entry(ImexProjection::LastSubstep, k)];
            adj.imex_substep_adjoint(k, *w[k], k > 0 ? w[k - 1] : nullptr, p, dt, seed, lu,
                                     lw[variant], k > 0 ? &lwp[variant] : nullptr, lp[variant],
                                     variant == 1 ? w[k + 1] : nullptr);
            g[variant] = adj.gradient();
            chi[variant] = ns.make_velocity("chi");
            for (int c = 0; c < dim; ++c)
              copy(adj.chi_gradient()[c], chi[variant][c]);
          }
          std::array<IndexSpace, 3> ghosted;
          for (int c = 0; c < dim; ++c)
            ghosted[c] = lw[0][c].ghosted();
          EXPECT_EQ(max_difference(d, lw[0], lw[1], ghosted), 0.0) << "substep " << k;
          if (k > 0) {
            EXPECT_EQ(max_difference(d, lwp[0], lwp[1], ghosted), 0.0) << "substep " << k;
          }
          EXPECT_EQ(max_difference(d, chi[0], chi[1], faces), 0.0) << "substep " << k;
          EXPECT_EQ(max_difference(d, lp[0], lp[1]), 0.0) << "substep " << k;
          EXPECT_EQ(g[0].nu, g[1].nu) << "substep " << k;
          for (int c = 0; c < 3; ++c)
            EXPECT_EQ(g[0].body_force[c], g[1].body_force[c]) << "substep " << k;
        }
      });
}

} // namespace
