// Control signals in time (solvers/control/time_signal.hpp): each kind's basis against its
// definition, the values it interpolates, what it holds outside its horizon, and the messages
// of bad settings.

#include "undertow/core/error.hpp"
#include "undertow/solvers/control/time_signal.hpp"

#include <cmath>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using control::SignalKind;
using control::TimeSignal;

TimeSignal make(SignalKind kind, std::vector<double> theta, double t0 = 1.0, double t1 = 3.0) {
  TimeSignal s;
  s.kind = kind;
  s.coefficients = std::move(theta);
  s.start = t0;
  s.end = t1;
  s.period = 4.0;
  return s;
}

TEST(TimeSignal, ConstantIsOneWithoutCoefficients) {
  const TimeSignal s;
  EXPECT_FALSE(s.varies());
  EXPECT_EQ(s.value(12.3), 1.0);
  EXPECT_TRUE(s.basis(0.4).empty());
}

TEST(TimeSignal, PiecewiseConstantTakesEachIntervalsValue) {
  const TimeSignal s = make(SignalKind::PiecewiseConstant, {2.0, -1.0, 0.5, 3.0});
  // Intervals of 0.5 s from t0 = 1.
  EXPECT_EQ(s.value(1.1), 2.0);
  EXPECT_EQ(s.value(1.6), -1.0);
  EXPECT_EQ(s.value(2.4), 0.5);
  EXPECT_EQ(s.value(2.9), 3.0);
  EXPECT_EQ(s.value(0.0), 2.0);  // before the horizon: the first value
  EXPECT_EQ(s.value(3.0), 3.0);  // its end
  EXPECT_EQ(s.value(50.0), 3.0); // after it: the last
}

TEST(TimeSignal, PiecewiseLinearInterpolatesItsNodes) {
  const TimeSignal s = make(SignalKind::PiecewiseLinear, {1.0, 3.0, -1.0});
  EXPECT_DOUBLE_EQ(s.value(1.0), 1.0);
  EXPECT_DOUBLE_EQ(s.value(2.0), 3.0);
  EXPECT_DOUBLE_EQ(s.value(3.0), -1.0);
  EXPECT_DOUBLE_EQ(s.value(1.25), 1.5);
  EXPECT_DOUBLE_EQ(s.value(2.75), 0.0);
  EXPECT_DOUBLE_EQ(s.value(-4.0), 1.0);
  EXPECT_DOUBLE_EQ(s.value(9.0), -1.0);
}

TEST(TimeSignal, BSplineIsClampedCubic) {
  // Four control values, one interval: the cubic Bezier curve.
  const TimeSignal bezier = make(SignalKind::BSpline, {1.0, 2.0, -1.0, 4.0});
  for (double x : {0.0, 0.2, 0.5, 0.9, 1.0}) {
    const double u = 1 - x;
    const double expected =
        u * u * u * 1.0 + 3 * u * u * x * 2.0 + 3 * u * x * x * -1.0 + x * x * x * 4.0;
    EXPECT_NEAR(bezier.value(1.0 + 2.0 * x), expected, 1e-14) << x;
  }
  // At an interior knot of a longer spline the weights are 1/6, 4/6, 1/6; the ends are c_0 and
  // c_{n-1}; the basis sums to 1 everywhere.
  const TimeSignal s = make(SignalKind::BSpline, {0.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0}, 0.0, 4.0);
  EXPECT_NEAR(s.value(2.0), 4.0, 1e-14);
  const TimeSignal ends = make(SignalKind::BSpline, {0.3, 1.0, 2.0, 1.5, 0.7}, 0.0, 2.0);
  EXPECT_DOUBLE_EQ(ends.value(0.0), 0.3);
  EXPECT_DOUBLE_EQ(ends.value(2.0), 0.7);
  EXPECT_DOUBLE_EQ(ends.value(7.0), 0.7);
  for (double t = 0.0; t <= 2.0; t += 0.13) {
    double sum = 0;
    for (double phi : ends.basis(t))
      sum += phi;
    EXPECT_NEAR(sum, 1.0, 1e-14) << t;
  }
}

TEST(TimeSignal, FourierSeries) {
  const TimeSignal s = make(SignalKind::Fourier, {0.5, 1.0, -2.0, 0.25, 0.75});
  for (double t : {0.0, 0.3, 1.7, 5.2}) {
    const double w = 2 * M_PI * t / 4.0;
    const double expected = 0.5 + 1.0 * std::cos(w) - 2.0 * std::sin(w) + 0.25 * std::cos(2 * w) +
                            0.75 * std::sin(2 * w);
    EXPECT_NEAR(s.value(t), expected, 1e-14) << t;
  }
  // The DFG 2D-3 inflow: sin(pi t / 8) as b_1 = 1 with period 16.
  TimeSignal dfg = make(SignalKind::Fourier, {0.0, 0.0, 1.0});
  dfg.period = 16.0;
  EXPECT_NEAR(dfg.value(4.0), 1.0, 1e-15);
  EXPECT_NEAR(dfg.value(8.0), 0.0, 1e-15);
}

TEST(TimeSignal, ValueIsTheBasisWeightedByTheCoefficients) {
  for (const TimeSignal& s : {make(SignalKind::PiecewiseConstant, {0.1, 0.2, 0.3}),
                              make(SignalKind::PiecewiseLinear, {0.4, -0.2, 0.9, 1.1}),
                              make(SignalKind::BSpline, {1.0, 0.2, 0.7, -0.4, 0.9, 0.3}),
                              make(SignalKind::Fourier, {0.3, 0.1, 0.2})})
    for (double t = 0.0; t < 4.0; t += 0.37) {
      const auto phi = s.basis(t);
      ASSERT_EQ(phi.size(), s.coefficients.size());
      double sum = 0;
      for (std::size_t j = 0; j < phi.size(); ++j)
        sum += s.coefficients[j] * phi[j];
      EXPECT_DOUBLE_EQ(sum, s.value(t));
    }
}

TEST(TimeSignal, DelayedIsTheSameSignalLater) {
  // b = a.delayed(d): b(t + d) = a(t) for every kind, inside, before and after the horizon.
  for (const TimeSignal& a : {make(SignalKind::PiecewiseConstant, {0.1, 0.2, 0.3}),
                              make(SignalKind::PiecewiseLinear, {0.4, -0.2, 0.9, 1.1}),
                              make(SignalKind::BSpline, {1.0, 0.2, 0.7, -0.4, 0.9, 0.3}),
                              make(SignalKind::Fourier, {0.3, 0.1, 0.2, -0.5, 0.7})})
    for (double delay : {12.0, -0.7, 3.3}) {
      const TimeSignal b = a.delayed(delay);
      for (double t = 0.0; t < 4.0; t += 0.37)
        EXPECT_NEAR(b.value(t + delay), a.value(t), 1e-14) << a.describe() << ", delay " << delay;
    }
}

Config config_of(const std::string& ini) {
  ConfigSchema schema;
  TimeSignal::declare_keys(schema, "boundary.x_lo_signal", "the inflow velocity");
  return Config(schema, RawConfig::parse(ini, "case.ini", {}));
}

/// The message of the ConfigError that reading `ini` throws ("" if none).
std::string error_of(const std::string& ini) {
  try {
    TimeSignal::from_config(config_of(ini), "boundary.x_lo_signal");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(TimeSignal, ReadFromTheCaseFile) {
  const TimeSignal s = TimeSignal::from_config(config_of("[boundary]\nx_lo_signal = fourier\n"
                                                         "x_lo_signal_values = 0 0 1\n"
                                                         "x_lo_signal_period = 16\n"),
                                               "boundary.x_lo_signal");
  EXPECT_EQ(s.kind, SignalKind::Fourier);
  EXPECT_EQ(s.coefficients, (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(s.period, 16.0);
  EXPECT_EQ(s.describe(), "fourier, 3 coefficients, period 16 s");
  EXPECT_FALSE(TimeSignal::from_config(config_of(""), "boundary.x_lo_signal").varies());
}

TEST(TimeSignal, BadSettingsNameTheKeyAndTheFix) {
  EXPECT_NE(error_of("[boundary]\nx_lo_signal = bspline\nx_lo_signal_values = 1 2 3\n")
                .find("at least 4"),
            std::string::npos);
  EXPECT_NE(error_of("[boundary]\nx_lo_signal = fourier\nx_lo_signal_values = 1 2\n")
                .find("an odd count"),
            std::string::npos);
  EXPECT_NE(error_of("[boundary]\nx_lo_signal = piecewise_linear\nx_lo_signal_values = 1\n")
                .find("at least 2"),
            std::string::npos);
  EXPECT_NE(error_of("[boundary]\nx_lo_signal = piecewise_constant\nx_lo_signal_values = 1\n"
                     "x_lo_signal_interval = 2 2\n")
                .find("is empty"),
            std::string::npos);
  // Values for a constant signal would be ignored silently: refused.
  EXPECT_NE(error_of("[boundary]\nx_lo_signal_values = 1 2\n").find("set boundary.x_lo_signal"),
            std::string::npos);
  EXPECT_NE(error_of("[boundary]\nx_lo_signal = sawtooth\n"), "");
}

} // namespace
