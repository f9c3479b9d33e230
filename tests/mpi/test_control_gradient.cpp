// Gradients with respect to time-dependent controls: the coefficients of the control signals
// a(t) of the inflow, of a moving wall and of the body force (every kind of signal, both time
// schemes) through whole runs of the channel case, and of a rotating cylinder with a jet pair
// (actuators.hpp), and of both actuators driven by a feedback policy from velocity sensors
// (a linear one and a saturated network; control/feedback_policy.hpp):
// Taylor remainder rates 2, central finite differences, the same gradient with binomial
// checkpointing (bitwise), and on 1, 2 and 4 ranks.

#include "gradient_cases.hpp"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using namespace undertow::adjoint;
using namespace undertow::testing;
using control::SignalKind;
using control::TimeSignal;

constexpr double kDt = kChannelDt;
constexpr int kSteps = kChannelSteps;

/// A signal of each kind over the run's horizon [0, 1] s, each near 1 so that the flow stays
/// that of the channel case; the Fourier one has a period shorter than the run.
TimeSignal signal_of_kind(int which) {
  TimeSignal s;
  s.start = 0.0;
  s.end = kDt * kSteps;
  s.period = 0.8;
  switch (which % 4) {
  case 0:
    s.kind = SignalKind::PiecewiseConstant;
    s.coefficients = {1.0, 0.7, 1.2, 0.9};
    break;
  case 1:
    s.kind = SignalKind::PiecewiseLinear;
    s.coefficients = {0.8, 1.1, 0.9, 1.2};
    break;
  case 2:
    s.kind = SignalKind::BSpline;
    s.coefficients = {1.0, 0.6, 1.3, 0.8, 1.1};
    break;
  default:
    s.kind = SignalKind::Fourier;
    s.coefficients = {1.0, 0.2, -0.15, 0.1, 0.05};
  }
  return s;
}

/// The channel case with signal `which` on the inflow, the next kind on the moving wall and the
/// one after on the body force.
Control control_case(const Domain& d, TimeScheme scheme, int which) {
  Control m = channel_control(d, scheme);
  m.flow.boundaries.face[0].signal = signal_of_kind(which);
  m.flow.boundaries.face[2].signal = signal_of_kind(which + 1);
  m.flow.body_force_signal = signal_of_kind(which + 2);
  return m;
}

/// The control coefficients' parameters of the case.
std::vector<ScalarParameter> control_parameters(const Control& m) {
  std::vector<ScalarParameter> out;
  for (const auto& p : scalar_parameters(m, 2))
    if (p.group == "control")
      out.push_back(p);
  return out;
}

/// The channel case whose cylinder rotates (2 rad/s following a B-spline in time) and blows
/// and sucks through a jet pair at 90 and 270 degrees (60 degrees wide on this coarse grid,
/// 0.3 m/s following a Fourier series), the inflow and the body force constant.
Control actuated_case(const Domain& d, TimeScheme scheme) {
  Control m = channel_control(d, scheme);
  const Shape& body = m.flow.obstacles.shapes.at(0);
  Actuator spin = rotation_actuator(0, body, 2.0);
  spin.signal = signal_of_kind(2);
  Actuator jets = jet_pair(0, body, M_PI / 2.0, 3.0 * M_PI / 2.0, M_PI / 3.0, 0.3);
  jets.signal = signal_of_kind(3);
  m.flow.actuators = {spin, jets};
  return m;
}

/// The actuated case with both actuators driven by a feedback policy instead of their signals,
/// from three sensors in the wake: linear, or (network) 4 tanh units with a saturated output.
Control feedback_case(const Domain& d, TimeScheme scheme, bool network) {
  Control m = actuated_case(d, scheme);
  for (Actuator& a : m.flow.actuators)
    a.signal = TimeSignal{};
  m.flow.sensors = {{1.0, 0.4, 0.0}, {1.0, 0.64, 0.0}, {1.4, 0.52, 0.0}};
  m.flow.policy = network ? control::FeedbackPolicy::network(6, 4, 2, true, 3)
                          : control::FeedbackPolicy::linear(6, 2, false);
  // Weights that actuate from the first step (a new policy's second layer is zero).
  for (std::size_t j = 0; j < m.flow.policy.theta.size(); ++j)
    m.flow.policy.theta[j] = (network ? 0.5 : 0.3) * std::sin(1.3 * j + 0.2);
  return m;
}

struct ControlRun {
  std::unique_ptr<Domain> domain;
  std::unique_ptr<Log> log;
  Control m;
  std::vector<double> dts = std::vector<double>(kSteps, kDt);
};

constexpr int kActuated = -1, kLinearFeedback = -2, kNetworkFeedback = -3;

/// The channel case with signals `which` (control_case), or actuated (kActuated), or driven by
/// a feedback policy (kLinearFeedback, kNetworkFeedback).
ControlRun make_run(const Communicator& comm, TimeScheme scheme, int which) {
  ControlRun r;
  r.domain = std::make_unique<Domain>(comm, channel_domain({0, 0, 0}));
  r.log = std::make_unique<Log>(comm);
  r.m = which == kActuated ? actuated_case(*r.domain, scheme)
        : which < 0        ? feedback_case(*r.domain, scheme, which == kNetworkFeedback)
                           : control_case(*r.domain, scheme, which);
  return r;
}

/// Central differences of every control parameter of r against the adjoint's g, each within
/// 1e-6 of the largest derivative (a coefficient whose basis barely reaches the run, a
/// B-spline's last, has a derivative near the differences' round-off), and none zero.
void expect_finite_differences(GradientDriver& driver, const ControlRun& r, const Gradient& g) {
  const auto params = control_parameters(r.m);
  double largest = 0;
  for (const auto& p : params)
    largest = std::max(largest, std::abs(derivative_of(g, p)));
  for (const auto& p : params) {
    const double fd = finite_difference(driver, r.m, r.dts, p, 0.1 * p.scale).value;
    const double adjoint = derivative_of(g, p);
    const double rel = std::abs(fd - adjoint) / largest;
    if (world().is_root())
      std::printf("FD %-26s adjoint % .12e  fd % .12e  difference %.2e of the largest\n",
                  p.name.c_str(), adjoint, fd, rel);
    EXPECT_LT(rel, 1e-6) << p.name;
    EXPECT_NE(adjoint, 0.0) << p.name;
  }
}

class SignalKinds : public ::testing::TestWithParam<int> {};

// Taylor remainders of J(theta + eps h) in a random direction of every coefficient of the three
// signals, and of the body force's alone (its derivatives are far smaller than the boundary
// signals'): rate 2 for both schemes.
TEST_P(SignalKinds, TaylorTestOfTheControlCoefficients) {
  // 1 rank; 2 and 4 ranks show the same gradient to 1e-10 (SameOnEveryRankCount), so a Taylor
  // test there would check the same numbers again (it doubled control_gradient_np2's time).
  if (world().size() > 1)
    GTEST_SKIP();
  for (TimeScheme scheme : {TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson}) {
    ControlRun r = make_run(world(), scheme, GetParam());
    GradientDriver driver(*r.domain, channel_objective(kDt * kSteps, true), *r.log, 0);
    const Gradient g = driver.gradient(r.m, r.dts);
    const auto list = scalar_parameters(r.m, 2);
    const Direction every = random_direction(r.m, list, "control", 0.05, 11, *r.domain, 0.0);
    ASSERT_EQ(every.scalars.size(), control_parameters(r.m).size());
    Direction forcing;
    for (const auto& kv : every.scalars)
      if (kv.first.rfind("fluid.body_force_signal_", 0) == 0)
        forcing.scalars.insert(kv);
    ASSERT_EQ(forcing.scalars.size(), r.m.flow.body_force_signal.coefficients.size());
    const Direction* directions[2] = {&every, &forcing};
    for (const Direction* h : directions) {
      const TaylorResult t = taylor_test(driver, r.m, r.dts, g, *h, 0.5, 4, list);
      if (world().is_root()) {
        std::printf("Taylor %s, scheme %d, %s: dJ.h = % .6e  rates",
                    r.m.flow.boundaries.face[0].signal.describe().c_str(), int(scheme),
                    h == &every ? "every coefficient" : "body force", t.dJ_h);
        for (double x : t.rate)
          std::printf(" %.3f", x);
        std::printf("\n");
      }
      EXPECT_FALSE(t.linear);
      EXPECT_GE(t.min_rate, 1.9);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKind, SignalKinds, ::testing::Values(0, 1, 2, 3));

// The actuators' gradients through whole runs, both schemes: Taylor remainders in a direction
// of their scales and coefficients, of the shapes (the target velocity changes what chi does)
// and of every parameter together. Central differences: ActuatorGradientSlow below.
TEST(ActuatorGradient, TaylorTests) {
  if (world().size() > 1) // as SignalKinds: the rank counts in SameOnEveryRankCount
    GTEST_SKIP();
  for (TimeScheme scheme : {TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson}) {
    ControlRun r = make_run(world(), scheme, kActuated);
    GradientDriver driver(*r.domain, channel_objective(kDt * kSteps, true), *r.log, 0);
    const Gradient g = driver.gradient(r.m, r.dts);
    const auto list = scalar_parameters(r.m, 2);
    for (const std::string group : {"control", "shape", "all"}) {
      const double design_amplitude = 0.1 * r.m.flow.obstacles.eta / (kDt * kSteps);
      const Direction h = random_direction(r.m, list, group, 0.05, 5, *r.domain, design_amplitude);
      // The mask is C^1 in the shape (see test_gradient.cpp): with the actuators' drive its
      // remainder's third-order part is larger, and the rates from 0.05 are 1.89, 1.95, 1.98,
      // 1.99; from 0.025 the range is asymptotic.
      const double eps0 = group == "control" ? 0.5 : group == "shape" ? 0.025 : 0.01;
      const TaylorResult t = taylor_test(driver, r.m, r.dts, g, h, eps0, 4, list);
      if (world().is_root()) {
        std::printf("Taylor actuated, scheme %d, %-8s dJ.h = % .6e  rates", int(scheme),
                    group.c_str(), t.dJ_h);
        for (double x : t.rate)
          std::printf(" %.3f", x);
        std::printf("\n");
      }
      EXPECT_FALSE(t.linear) << group;
      EXPECT_GE(t.min_rate, 1.9) << group;
    }
  }
}

// A feedback policy's gradients through whole runs, both schemes, linear and network: Taylor
// remainders in a direction of its weights and the actuators' scales, and of the initial
// velocity (which reaches J also through the sensors: the chain's transpose in every step).
// Central differences of every weight: FeedbackGradientSlow below.
TEST(FeedbackGradient, TaylorTests) {
  if (world().size() > 1) // as SignalKinds: the rank counts in SameOnEveryRankCount
    GTEST_SKIP();
  for (TimeScheme scheme : {TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson})
    for (int which : {kLinearFeedback, kNetworkFeedback}) {
      ControlRun r = make_run(world(), scheme, which);
      GradientDriver driver(*r.domain, channel_objective(kDt * kSteps, true), *r.log, 0);
      const Gradient g = driver.gradient(r.m, r.dts);
      const auto list = scalar_parameters(r.m, 2);
      for (const std::string group : {"control", "initial"}) {
        const Direction h = random_direction(r.m, list, group, 0.05, 7, *r.domain, 0.0);
        // The network's tanh layers make the remainder's third-order part large: from eps 0.5
        // the rates in its weights are 1.63, 1.85, 1.93, 1.97; from 0.125 the range is
        // asymptotic.
        const double eps0 = which == kNetworkFeedback && group == "control" ? 0.125 : 0.5;
        const TaylorResult t = taylor_test(driver, r.m, r.dts, g, h, eps0, 4, list);
        if (world().is_root()) {
          std::printf("Taylor %s, scheme %d, %-8s dJ.h = % .6e  rates",
                      r.m.flow.policy.describe().c_str(), int(scheme), group.c_str(), t.dJ_h);
          for (double x : t.rate)
            std::printf(" %.3f", x);
          std::printf("\n");
        }
        EXPECT_FALSE(t.linear) << group;
        EXPECT_GE(t.min_rate, 1.9) << group;
      }
    }
}

// Central differences of every control parameter of run `which` against the adjoint gradient.
// The suites below end in "Slow": two runs per parameter (56 to 80 runs a suite) take minutes, so
// they run in control_gradient_slow_np1 (label slow), on one rank; the Taylor tests above, and
// the rank and checkpointing tests below, are the ones in CI.
void expect_finite_differences_of(TimeScheme scheme, int which, std::size_t parameters) {
  ControlRun r = make_run(world(), scheme, which);
  GradientDriver driver(*r.domain, channel_objective(kDt * kSteps, true), *r.log, 0);
  const Gradient g = driver.gradient(r.m, r.dts);
  if (parameters > 0) {
    ASSERT_EQ(control_parameters(r.m).size(), parameters);
  }
  expect_finite_differences(driver, r, g);
}

// Every coefficient of the signals: SSP-RK3 with the inflow's piecewise-constant, the wall's
// piecewise-linear and the body force's B-spline signal, RK3-CN with the inflow's B-spline, the
// wall's Fourier and the body force's piecewise-constant one.
TEST(ControlGradientSlow, FiniteDifferencesOfEveryCoefficient) {
  expect_finite_differences_of(TimeScheme::SspRk3, 0, 0);
  expect_finite_differences_of(TimeScheme::Rk3CrankNicolson, 2, 0);
}

// The actuators' two scales and five coefficients each, both schemes.
TEST(ActuatorGradientSlow, FiniteDifferencesOfEveryScaleAndCoefficient) {
  for (TimeScheme scheme : {TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson})
    expect_finite_differences_of(scheme, kActuated, 2u + 5u + 5u);
}

// The policies' weights and the actuators' scales (SSP-RK3): two scales, and 2 x (6 + 1) weights
// or 4 x (6 + 1) + 2 x (4 + 1).
TEST(FeedbackGradientSlow, FiniteDifferencesOfEveryWeight) {
  expect_finite_differences_of(TimeScheme::SspRk3, kLinearFeedback, 2u + 14u);
  expect_finite_differences_of(TimeScheme::SspRk3, kNetworkFeedback, 2u + 38u);
}

// The reverse sweep recomputes the stages from checkpoints with their boundary times and
// targets: binomial checkpointing with 3 slots gives the gradient of the store-all sweep
// bitwise, with signals, with actuators and with a feedback policy.
TEST(ControlGradient, CheckpointedEqualsStoreAll) {
  if (world().size() != 2) // on 2 ranks, halo exchanges in the recomputed steps; 30 s a rank count
    GTEST_SKIP();
  for (TimeScheme scheme : {TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson})
    for (int which : {3, kActuated, kNetworkFeedback}) {
      ControlRun r = make_run(world(), scheme, which);
      GradientDriver driver(*r.domain, channel_objective(kDt * kSteps, true), *r.log, 0);
      const Gradient all = driver.gradient(r.m, r.dts);
      Checkpointing revolve;
      revolve.schedule = Checkpointing::Schedule::Revolve;
      revolve.ram_slots = 3;
      driver.set_checkpointing(revolve);
      const Gradient checkpointed = driver.gradient(r.m, r.dts);
      EXPECT_EQ(all.objective, checkpointed.objective);
      for (const auto& p : control_parameters(r.m))
        EXPECT_EQ(derivative_of(all, p), derivative_of(checkpointed, p)) << p.name;
    }
}

// The same gradient on every rank of world() as on its first rank alone, with signals, with
// actuators and with a feedback policy.
TEST(ControlGradient, SameOnEveryRankCount) {
  const Communicator& comm = world();
  if (comm.size() == 1) // 1 rank against itself: no split to compare
    GTEST_SKIP();
  for (TimeScheme scheme : {TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson})
    for (int which : {2, kActuated, kNetworkFeedback}) {
      const auto gradient_on = [&](const Communicator& c) {
        ControlRun r = make_run(c, scheme, which);
        GradientDriver driver(*r.domain, channel_objective(kDt * kSteps, true), *r.log, 0);
        const Gradient g = driver.gradient(r.m, r.dts);
        std::vector<double> out{g.objective};
        for (const auto& p : control_parameters(r.m))
          out.push_back(derivative_of(g, p));
        return out;
      };
      const std::vector<double> full = gradient_on(comm);
      const Communicator alone = comm.split(comm.rank() == 0 ? 0 : 1, comm.rank());
      std::vector<double> one;
      if (comm.rank() == 0)
        one = gradient_on(alone);
      if (!comm.is_root())
        continue;
      ASSERT_EQ(one.size(), full.size());
      double worst = 0;
      for (std::size_t i = 0; i < one.size(); ++i) {
        const double rel = std::abs(one[i] - full[i]) / std::max(std::abs(one[i]), 1e-300);
        worst = std::max(worst, rel);
        EXPECT_LE(rel, 1e-10) << "entry " << i;
      }
      std::printf("scheme %d, %s: %d ranks against 1, J and %.0f control derivatives differ by "
                  "%.2e relative at most\n",
                  int(scheme),
                  which == kActuated ? "actuators"
                  : which < 0        ? "feedback"
                                     : "signals",
                  comm.size(), double(one.size() - 1), worst);
    }
}

} // namespace
