// Gradients of whole runs: Taylor remainder tests (rate 2) for every parameter group over at
// least 100 steps, finite differences for the scalar parameters, and the same gradient on 1, 2
// and 4 ranks. Small grids, so that they run in CI.

#include "gradient_cases.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/io/field_file.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>
#include <string>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using namespace undertow::adjoint;
using namespace undertow::testing;

constexpr double kDt = kChannelDt;
constexpr int kSteps = kChannelSteps;

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

/// Taylor tests of every parameter group of the channel case with the given time scheme and
/// kind of mask.
void taylor_test_every_group(bool average, TimeScheme scheme, MaskKind mask = MaskKind::Smooth,
                             bool stretched = false,
                             ImexProjection projection = ImexProjection::EverySubstep) {
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back(), stretched));
  const Log log(world());
  GradientDriver driver(d, channel_objective(kDt * kSteps, average), log, 0);
  Control m = channel_control(d, scheme);
  m.flow.obstacles.mask = mask;
  m.flow.imex_projection = projection;
  const std::vector<double> dts(kSteps, kDt);
  const Gradient g = driver.gradient(m, dts);
  const auto list = scalar_parameters(m, 2);
  for (const std::string group :
       {"nu", "body_force", "boundary", "shape", "initial", "design", "all"}) {
    // The design direction brakes the flow by about 10% of its momentum over the run at most.
    const double design_amplitude = 0.1 * m.flow.obstacles.eta / (kDt * kSteps);
    const Direction h = random_direction(m, list, group, 0.05, 7, d, design_amplitude);
    // The mask is C^1 in the shape parameters, its second derivative jumping where a face
    // leaves the smoothed band: rates reach 2 once the perturbation crosses few such faces,
    // so shape directions start smaller (1% of a cell), the others at 5% of each parameter.
    // The initial-field direction's remainder has a third-order part that pulls the first
    // observed rate to 1.90 (SSP-RK3) and 1.89 (RK3-CN) from eps = 0.5, then 1.95, 1.98, 1.99:
    // it starts at 0.25, inside the asymptotic range for both schemes.
    const double eps0 = group == "shape"     ? 0.05
                        : group == "all"     ? 0.01
                        : group == "initial" ? 0.25
                                             : 0.5;
    const TaylorResult r = taylor_test(driver, m, dts, g, h, eps0, 4, list);
    print_taylor(group, r);
    EXPECT_FALSE(r.linear) << group;
    EXPECT_GE(r.min_rate, 1.9) << group;
  }
}

class ChannelGradient : public ::testing::TestWithParam<bool> {};

TEST_P(ChannelGradient, TaylorTestOfEveryParameterGroup) {
  taylor_test_every_group(GetParam(), TimeScheme::SspRk3);
}

// RK3-CN (implicit viscous terms): the transposed Helmholtz solves, the two-substep memory of
// the explicit terms and the penalty in the implicit operator, through every parameter.
TEST(ChannelGradientImex, TaylorTestOfEveryParameterGroup) {
  taylor_test_every_group(true, TimeScheme::Rk3CrankNicolson);
}

// RK3-CN projected at its last substep only (time.imex_projection = last_substep): the substeps
// before it unprojected, all three reading p_n, and the one projection's potential scaled by dt.
TEST(ChannelGradientImexLastSubstep, TaylorTestOfEveryParameterGroup) {
  taylor_test_every_group(true, TimeScheme::Rk3CrankNicolson, MaskKind::Smooth, false,
                          ImexProjection::LastSubstep);
}

// obstacles.mask = interpolated: the masks depend on nu and on the distance at each face's
// neighbours; every group through them, with the explicit and the implicit viscous scheme. (With
// SSP-RK3 and the averaged objective the nu direction's remainder is near round-off from its
// second halving, 1.5e-7 at the first: J is nearly linear in nu there. The final-time objective
// has an ordinary curvature.)
TEST(ChannelGradientInterpolatedMask, TaylorTestOfEveryParameterGroup) {
  taylor_test_every_group(false, TimeScheme::SspRk3, MaskKind::Interpolated);
  taylor_test_every_group(true, TimeScheme::Rk3CrankNicolson, MaskKind::Interpolated);
}

// A stretched grid (every transpose with per-cell widths, the volume-weighted pressure solve and
// forces, energies and probes of a stretched grid), both time schemes, the interpolated mask.
TEST(ChannelGradientStretched, TaylorTestOfEveryParameterGroup) {
  taylor_test_every_group(true, TimeScheme::SspRk3, MaskKind::Interpolated, true);
  taylor_test_every_group(false, TimeScheme::Rk3CrankNicolson, MaskKind::Smooth, true);
}

/// Central differences of every scalar parameter against the adjoint, to 1e-6 relative.
void finite_differences_of_every_scalar(TimeScheme scheme) {
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back()));
  const Log log(world());
  GradientDriver driver(d, channel_objective(kDt * kSteps, true), log, 0);
  const Control m = channel_control(d, scheme);
  const std::vector<double> dts(kSteps, kDt);
  const Gradient g = driver.gradient(m, dts);
  for (const auto& p : scalar_parameters(m, 2)) {
    const auto result =
        finite_difference(driver, m, dts, p, (p.group == "shape" ? 1e-4 : 1e-1) * p.scale);
    const double fd = result.value, adjoint = derivative_of(g, p);
    const double rel = std::abs(fd - adjoint) / std::max(std::abs(fd), 1e-300);
    if (world().is_root())
      std::printf("FD %-32s adjoint % .12e  fd % .12e  relative difference %.2e\n", p.name.c_str(),
                  adjoint, fd, rel);
    EXPECT_LT(rel, 1e-6) << p.name;
  }
}

TEST(ChannelGradient, FiniteDifferencesOfEveryScalarParameter) {
  finite_differences_of_every_scalar(TimeScheme::SspRk3);
}

// Slow label (gradient_slow_np1): ChannelGradientImex.TaylorTestOfEveryParameterGroup checks the
// same gradients in CI, and ChannelGradient.FiniteDifferencesOfEveryScalarParameter the
// differences.
TEST(ChannelGradientImexSlow, FiniteDifferencesOfEveryScalarParameter) {
  finite_differences_of_every_scalar(TimeScheme::Rk3CrankNicolson);
}

// A steady drag coefficient depends on Re = U D / nu only, so U dC/dU = -nu dC/dnu once the run
// has converged to its steady state. Our J normalises the force with the fixed
// forces.reference_velocity U_ref instead of U, J = (U / U_ref)^2 C_D, which turns the identity
// into U dJ/dU + nu dJ/dnu = 2 J. The discrete steady state also depends on the penalty time
// scale eta and, through the implicit penalty 1 / (1 + dt chi / eta), on dt: both are times, so
// the exact discrete identity is U dJ/dU + nu dJ/dnu - eta dJ/deta - dt dJ/ddt = 2 J. The test
// checks it with the adjoint's dJ/dU and dJ/dnu and central differences for the eta and dt
// terms (neither is a parameter of the gradient), and prints how far the physical identity
// alone is off. Slow label (gradient_slow_np1): it took 40 s of CPU over 1 and 2 ranks in CI,
// where the Taylor tests check the same adjoint.
TEST(SteadyCylinderSlow, DragDependsOnlyOnTheReynoldsNumber) {
  DomainSpec s;
  s.dim = 2;
  s.cells = {110, 21, 1};
  s.length = {2.2, 0.41, 1.0};
  s.periodic = {false, false, false};
  const Domain d(world(), s);
  Control m;
  m.flow.nu = 1e-3;
  auto& f = m.flow.boundaries.face;
  f[0].kind = BoundaryKind::Inflow;
  f[0].velocity[0] = 0.3;
  f[0].profile = InflowProfile::Parabolic;
  f[1].kind = BoundaryKind::Outflow;
  Shape body;
  body.centre[0] = 0.2;
  body.centre[1] = 0.2;
  body.radius = 0.05;
  m.flow.obstacles.shapes = {body};
  m.flow.obstacles.eta = 1e-6;
  m.flow.pressure.rtol = 1e-12;
  {
    NavierStokes ns(d, m.flow);
    m.initial = ns.make_velocity("rest");
  }
  const Log log(world());
  const double U_ref = 0.2, D = 0.1;
  GradientDriver driver(
      d,
      [&](NavierStokes&) {
        ObjectiveSum J(TimeWindow{});
        J.add(1.0, force_coefficient(0, 0, 2.0 / (U_ref * U_ref * D), "drag"));
        return J;
      },
      log, 0);
  const std::vector<double> dts(606, 0.033); // t = 20: steady to 1e-6
  const Gradient g = driver.gradient(m, dts);
  const double U_dJ_dU = 0.3 * g.flow.boundary_velocity[0][0];
  const double nu_dJ_dnu = m.flow.nu * g.flow.nu;
  const double delta = 1e-3;
  Control scaled = m;
  scaled.flow.obstacles.eta = m.flow.obstacles.eta * (1 + delta);
  const double eta_plus = driver.objective(scaled, dts);
  scaled.flow.obstacles.eta = m.flow.obstacles.eta * (1 - delta);
  const double eta_dJ_deta = (eta_plus - driver.objective(scaled, dts)) / (2 * delta);
  const double dt_plus = driver.objective(m, std::vector<double>(606, 0.033 * (1 + delta)));
  const double dt_dJ_ddt =
      (dt_plus - driver.objective(m, std::vector<double>(606, 0.033 * (1 - delta)))) / (2 * delta);
  const double physical = std::abs(U_dJ_dU + nu_dJ_dnu - 2 * g.objective) / (2 * g.objective);
  const double discrete =
      std::abs(U_dJ_dU + nu_dJ_dnu - eta_dJ_deta - dt_dJ_ddt - 2 * g.objective) / (2 * g.objective);
  if (world().is_root())
    std::printf("steady C_D: J = %.10f, U dJ/dU = %.10f, nu dJ/dnu = %.10f, eta dJ/deta = %.3e, "
                "dt dJ/ddt = %.3e\n  |U dJ/dU + nu dJ/dnu - 2J| / 2J = %.2e (the physical "
                "identity)\n  |... - eta dJ/deta - dt dJ/ddt - 2J| / 2J = %.2e (the discrete "
                "one)\n",
                g.objective, U_dJ_dU, nu_dJ_dnu, eta_dJ_deta, dt_dJ_ddt, physical, discrete);
  EXPECT_LT(discrete, 1e-6);
  EXPECT_LT(physical, 3e-3); // eta << D / U and dt chi / eta >> 1: close to the physical one
  EXPECT_GT(std::abs(nu_dJ_dnu), 0.05 * g.objective); // the identity is not trivially met
}

// The extension point: a case-specific objective term written against the Objective interface
// (the example of docs/adjoint.md, section 7), combined with a built-in one, passes a Taylor
// test like the built-in terms.
class MeanStreamwiseVelocity : public Objective {
 public:
  explicit MeanStreamwiseVelocity(const Domain& d) : m_domain(d) {}
  std::string describe() const override { return "mean u"; }
  double value(const StepState& s) override {
    const Field& u = (*s.velocity)[0];
    return global_sum(m_domain.comm(), u) / double(u.layout().global.size());
  }
  void add_derivative(const StepState& s, double weight, StepSeeds& seeds) override {
    const Field& u = (*s.velocity)[0];
    Field ones(u.layout(), "ones");
    fill_value(ones, ones.owned(), 1.0);
    axpy(weight / double(u.layout().global.size()), ones, seeds.velocity[0]);
    seeds.has_velocity = true;
  }

 private:
  const Domain& m_domain;
};

TEST(CustomObjective, TaylorTestOfAUserDefinedTerm) {
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back()));
  const Log log(world());
  TimeWindow w;
  w.average = true;
  w.end = kDt * kSteps;
  GradientDriver driver(
      d,
      [w](NavierStokes& ns) {
        ObjectiveSum J(w);
        J.add(3.0, std::make_unique<MeanStreamwiseVelocity>(ns.domain()));
        J.add(1.0, enstrophy(ns.domain()));
        return J;
      },
      log, 0);
  const Control m = channel_control(d);
  const std::vector<double> dts(kSteps, kDt);
  const Gradient g = driver.gradient(m, dts);
  const auto list = scalar_parameters(m, 2);
  for (const std::string group : {"nu", "boundary", "initial"}) {
    const TaylorResult r =
        taylor_test(driver, m, dts, g, random_direction(m, list, group, 0.05, 3, d), 0.5, 4, list);
    print_taylor("custom " + group, r);
    EXPECT_FALSE(r.linear) << group;
    EXPECT_GE(r.min_rate, 1.9) << group;
  }
}

// Shape parameters of every shape kind: the channel with an ellipse, a cambered NACA profile, a
// Fourier star, a B-spline body with pointed ends or a rotated rectangle instead of the circle; a
// Taylor test of the shape group and finite differences of each parameter.
class ShapeKinds : public ::testing::TestWithParam<ShapeKind> {};

TEST_P(ShapeKinds, TaylorAndFiniteDifferencesOfTheShapeParameters) {
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back()));
  const Log log(world());
  Control m = channel_control(d);
  m.flow.obstacles.design = Field(); // the shape alone
  Shape& body = m.flow.obstacles.shapes[0];
  body.kind = GetParam();
  switch (body.kind) {
  case ShapeKind::Ellipse:
    body.size[0] = 0.2;
    body.size[1] = 0.1;
    body.angle = 0.3;
    break;
  case ShapeKind::Naca:
    body.centre[0] = 0.4;
    body.centre[1] = 0.5;
    body.chord = 0.5;
    body.thickness = 0.12;
    body.camber = 0.04;
    body.camber_position = 0.4;
    body.angle = 0.1;
    break;
  case ShapeKind::Cst: // a cambered CST airfoil of degree 3 at 6 degrees
    body.centre[0] = 0.4;
    body.centre[1] = 0.5;
    body.chord = 0.5;
    body.angle = 0.1;
    body.harmonics = 4;
    for (int i = 0; i < 4; ++i) {
      body.cos_coeff[i] = 0.2 + 0.02 * i;
      body.sin_coeff[i] = 0.1 - 0.01 * i;
    }
    break;
  case ShapeKind::Star:
    body.radius = 0.12;
    body.harmonics = 2;
    body.cos_coeff[0] = 0.02;
    body.sin_coeff[1] = -0.015;
    break;
  case ShapeKind::Spline: { // corners at both ends: c_1 < c_0, c_4 < c_5
    body.harmonics = 6;
    const double radii[6] = {0.17, 0.1, 0.12, 0.13, 0.1, 0.15};
    for (int j = 0; j < 6; ++j)
      navier_stokes::shape_parameter(body, 12 + j) = radii[j];
    break;
  }
  default: // rectangle
    body.size[0] = 0.25;
    body.size[1] = 0.12;
    body.size[2] = 0;
    body.angle = 0.2;
    break;
  }
  GradientDriver driver(d, channel_objective(kDt * kSteps, true), log, 0);
  const std::vector<double> dts(kSteps, kDt);
  const Gradient g = driver.gradient(m, dts);
  const auto list = scalar_parameters(m, 2);
  // The stiff penalty makes J vary on a fraction of a cell (docs/adjoint.md, section 5), so
  // eps starts at 0.5% of each parameter's scale; the rectangle's distance also has kinks (its
  // corners, and the diagonals inside), so it starts 5 times lower.
  const double eps0 = body.kind == ShapeKind::Rectangle ? 0.001 : 0.005;
  const TaylorResult r = taylor_test(
      driver, m, dts, g, random_direction(m, list, "shape", 0.05, 11, d), eps0, 4, list);
  print_taylor("shape", r);
  EXPECT_FALSE(r.linear);
  EXPECT_GE(r.min_rate, 1.9);
  for (const auto& p : list) {
    if (p.group != "shape")
      continue;
    const double fd = finite_difference(driver, m, dts, p, 1e-4 * p.scale).value;
    const double adjoint = derivative_of(g, p);
    const double rel = std::abs(fd - adjoint) / std::max(std::abs(fd), std::abs(adjoint));
    if (world().is_root())
      std::printf("FD %-32s adjoint % .12e  fd % .12e  relative difference %.2e\n", p.name.c_str(),
                  adjoint, fd, rel);
    EXPECT_LT(rel, 1e-6) << p.name;
  }
}

// Tracking misfits, for inverse problems: the velocity against a target field read from an HDF5
// file (here the final state of a run with another viscosity, as a restart file holds it), and a
// probe's velocity against a measured time series, both averaged over the run.
/// The tracking misfits' Taylor tests on the channel, uniform or stretched.
void tracking_taylor_tests(bool stretched) {
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back(), stretched));
  const Log log(world());
  Control m = channel_control(d);
  const std::vector<double> dts(kSteps, kDt);
  const std::string target = "tracking_target_np" + std::to_string(world().size()) + ".h5";
  {
    Control truth = m;
    truth.flow.nu = 1.3 * m.flow.nu;
    NavierStokes ns(d, truth.flow);
    for (int c = 0; c < 2; ++c)
      copy(truth.initial[c], ns.velocity(c));
    ns.project_initial();
    for (double dt : dts)
      ns.step(dt);
    io::FieldFile file(d, target, io::FieldFile::Mode::Create);
    file.write("u", ns.velocity(0));
    file.write("v", ns.velocity(1));
    file.commit();
  }
  std::vector<double> times, values;
  for (int i = 0; i <= 20; ++i) {
    times.push_back(0.05 * i);
    values.push_back(0.8 + 0.1 * std::sin(3.0 * times.back()));
  }
  TimeWindow w;
  w.average = true;
  w.end = kDt * kSteps;
  GradientDriver driver(
      d,
      [&](NavierStokes& ns) {
        ObjectiveSum J(w);
        J.add(10.0, velocity_misfit(ns, target));
        J.add(1.0, probe_misfit(ns, {2.2, 0.45, 0}, 0, times, values));
        return J;
      },
      log, 0);
  const Gradient g = driver.gradient(m, dts);
  const auto list = scalar_parameters(m, 2);
  for (const std::string group : {"nu", "boundary", "initial"}) {
    const TaylorResult r =
        taylor_test(driver, m, dts, g, random_direction(m, list, group, 0.05, 5, d), 0.5, 4, list);
    print_taylor("misfit " + group, r);
    EXPECT_FALSE(r.linear) << group;
    EXPECT_GE(r.min_rate, 1.9) << group;
  }
  world().barrier();
  if (world().is_root())
    std::remove(target.c_str());
}

TEST(TrackingMisfits, TaylorTestAgainstATargetFieldAndAProbeSeries) {
  tracking_taylor_tests(false);
}
TEST(TrackingMisfitsStretched, TaylorTestAgainstATargetFieldAndAProbeSeries) {
  tracking_taylor_tests(true);
}

// The same in 3D: a duct with a sphere (inflow, convective outlet, moving and slip walls,
// periodic along z), drag + kinetic energy + enstrophy averaged over 100 steps. (With an
// enstrophy weight of 0.01 instead of 0.1, J's curvature in nu nearly cancels: the remainders
// fall to 1e-11 and are third-order dominated at the first eps, rate 1.4, then 1.8, 1.9, 1.95.)
/// The duct's Taylor tests on a uniform grid, or one stretched along x and y (z is periodic).
void duct_taylor_tests(bool stretched) {
  DomainSpec s;
  s.dim = 3;
  s.cells = {16, 8, 8};
  s.length = {2.0, 1.0, 1.0};
  s.periodic = {false, false, true};
  if (stretched) {
    s.faces[0] = smoothly_stretched(s.cells[0], s.length[0], 0.4);
    s.faces[1] = smoothly_stretched(s.cells[1], s.length[1], 0.4);
  }
  const Domain d(world(), s);
  const Log log(world());
  Control m;
  m.flow.nu = 0.02;
  m.flow.body_force = {0.05, 0.0, 0.02};
  auto& f = m.flow.boundaries.face;
  f[0].kind = BoundaryKind::Inflow;
  f[0].velocity[0] = 1.0;
  f[0].velocity[2] = 0.1;
  f[0].profile = InflowProfile::Parabolic;
  f[1].kind = BoundaryKind::Convective;
  f[1].velocity[0] = 1.0;
  f[2].kind = BoundaryKind::Wall;
  f[2].velocity[2] = 0.2;
  f[3].kind = BoundaryKind::Slip;
  f[4].kind = f[5].kind = BoundaryKind::Periodic;
  Shape ball;
  ball.kind = ShapeKind::Sphere;
  ball.centre[0] = 0.6;
  ball.centre[1] = 0.5;
  ball.centre[2] = 0.5;
  ball.radius = 0.2;
  m.flow.obstacles.shapes = {ball};
  m.flow.obstacles.eta = 1e-3;
  m.flow.pressure.rtol = 1e-13;
  {
    NavierStokes ns(d, m.flow);
    m.initial = ns.make_velocity("initial");
    fill_value(m.initial[0], m.initial[0].owned(), 0.5);
  }
  TimeWindow w;
  w.average = true;
  w.end = 1.0;
  GradientDriver driver(
      d,
      [w](NavierStokes& ns) {
        ObjectiveSum J(w);
        J.add(1.0, force_coefficient(0, 0, 1.0, "drag"));
        J.add(1.0, kinetic_energy(ns.domain()));
        J.add(0.1, enstrophy(ns.domain()));
        return J;
      },
      log, 0);
  const std::vector<double> dts(100, 0.01);
  const Gradient g = driver.gradient(m, dts);
  const auto list = scalar_parameters(m, 3);
  for (const std::string group : {"nu", "body_force", "boundary", "shape", "initial"}) {
    const TaylorResult r =
        taylor_test(driver, m, dts, g, random_direction(m, list, group, 0.05, 13, d),
                    group == "shape" ? 0.005 : 0.5, 4, list);
    print_taylor("3D " + group, r);
    EXPECT_FALSE(r.linear) << group;
    EXPECT_GE(r.min_rate, 1.9) << group;
  }
}

// About a minute on one rank together: in gradient_slow_np1 (label slow). The 3D transposes are
// held to their forward kernels by adjoint_pieces' dot-product tests in CI.
TEST(Duct3DSlow, TaylorTestOfEveryParameterGroup) {
  duct_taylor_tests(false);
}
TEST(Duct3DStretchedSlow, TaylorTestOfEveryParameterGroup) {
  duct_taylor_tests(true);
}

INSTANTIATE_TEST_SUITE_P(EveryShape, ShapeKinds,
                         ::testing::Values(ShapeKind::Ellipse, ShapeKind::Naca, ShapeKind::Cst,
                                           ShapeKind::Star, ShapeKind::Spline,
                                           ShapeKind::Rectangle));

INSTANTIATE_TEST_SUITE_P(FinalAndAveraged, ChannelGradient, ::testing::Values(false, true));

} // namespace
