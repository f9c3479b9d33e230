#include "undertow/solvers/control/time_signal.hpp"

#include "undertow/core/bspline.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <algorithm>
#include <cmath>

namespace undertow {
namespace control {

namespace {

/// t in units of `intervals` equal parts of [start, end], clamped to [0, intervals].
double position(const TimeSignal& s, double t, int intervals) {
  const double x = (t - s.start) / (s.end - s.start) * intervals;
  return std::min(std::max(x, 0.0), double(intervals));
}

} // namespace

std::vector<double> TimeSignal::basis(double t) const {
  const int n = static_cast<int>(coefficients.size());
  std::vector<double> phi(n, 0.0);
  switch (kind) {
  case SignalKind::Constant:
    break;
  case SignalKind::PiecewiseConstant: {
    const double x = position(*this, t, n);
    phi[std::min(static_cast<int>(x), n - 1)] = 1.0;
    break;
  }
  case SignalKind::PiecewiseLinear: {
    const double x = position(*this, t, n - 1);
    const int j = std::min(static_cast<int>(x), n - 2);
    phi[j] = 1.0 - (x - j);
    phi[j + 1] = x - j;
    break;
  }
  case SignalKind::BSpline: {
    const int intervals = n - 3;
    const double x = position(*this, t, intervals);
    const int first = clamped_interval(x, intervals);
    for (int q = 0; q < 4; ++q) {
      double d[4] = {0, 0, 0, 0};
      d[q] = 1.0;
      phi[first + q] = clamped_de_boor(d, first, intervals, x);
    }
    break;
  }
  case SignalKind::Fourier: {
    phi[0] = 1.0;
    const double w = 2.0 * M_PI * t / period;
    for (int k = 1; 2 * k <= n - 1; ++k) {
      phi[2 * k - 1] = std::cos(k * w);
      phi[2 * k] = std::sin(k * w);
    }
    break;
  }
  }
  return phi;
}

TimeSignal TimeSignal::delayed(double delay) const {
  TimeSignal b = *this;
  if (kind == SignalKind::Fourier) {
    // a_k cos(k w (t - d)) + b_k sin(k w (t - d)), w = 2 pi / T: rotate each harmonic by k w d.
    for (std::size_t k = 1; 2 * k < coefficients.size(); ++k) {
      const double phase = 2.0 * M_PI * double(k) * delay / period;
      const double ak = coefficients[2 * k - 1], bk = coefficients[2 * k];
      b.coefficients[2 * k - 1] = ak * std::cos(phase) - bk * std::sin(phase);
      b.coefficients[2 * k] = ak * std::sin(phase) + bk * std::cos(phase);
    }
  } else {
    b.start += delay;
    b.end += delay;
  }
  return b;
}

double TimeSignal::value(double t) const {
  if (!varies())
    return 1.0;
  const std::vector<double> phi = basis(t);
  double a = 0;
  for (std::size_t j = 0; j < phi.size(); ++j)
    a += coefficients[j] * phi[j];
  return a;
}

double TimeSignal::bound() const {
  if (!varies())
    return 1.0;
  double b = 0;
  if (kind != SignalKind::Fourier) {
    for (double c : coefficients)
      b = std::max(b, std::abs(c));
    return b;
  }
  b = std::abs(coefficients[0]);
  for (std::size_t k = 1; k + 1 < coefficients.size(); k += 2)
    b += std::hypot(coefficients[k], coefficients[k + 1]);
  return b;
}

namespace {
const char* kKinds[5] = {"constant", "piecewise_constant", "piecewise_linear", "bspline",
                         "fourier"};
} // namespace

std::string TimeSignal::describe() const {
  const std::string head = kKinds[static_cast<int>(kind)];
  if (!varies())
    return head;
  const std::string count = format(", %.0f coefficients", double(coefficients.size()));
  return head + count +
         (kind == SignalKind::Fourier ? format(", period %g s", period)
                                      : format(" over [%g, ", start) + format("%g] s", end));
}

void TimeSignal::declare_keys(ConfigSchema& s, const std::string& prefix, const std::string& what) {
  s.add(prefix, ValueType::Choice, "constant",
        "a control signal a(t) in time that multiplies " + what +
            " (docs/control.md): constant (a = 1), piecewise_constant, piecewise_linear, "
            "bspline (cubic) or fourier, with the coefficients of " +
            prefix + "_values")
      .one_of(std::vector<std::string>(kKinds, kKinds + 5));
  s.add(prefix + "_values", ValueType::RealList, "",
        "the coefficients of " + prefix +
            ": one per control interval (piecewise_constant, at least 1), the values at equally "
            "spaced times from the start to the end of the interval (piecewise_linear, at least "
            "2), the B-spline's control values (bspline, at least 4), or a_0 a_1 b_1 a_2 b_2 ... "
            "(fourier, an odd count) (dimensionless)")
      .items(0, 64);
  s.add(prefix + "_interval", ValueType::RealList, "0 1",
        "the control horizon [t0, t1] of " + prefix +
            " (piecewise and bspline signals; outside it they hold their end values) [s]")
      .items(2, 2);
  s.add(prefix + "_period", ValueType::Real, "1", "the period T of a fourier " + prefix + " [s]")
      .above(0);
}

TimeSignal TimeSignal::from_config(const Config& c, const std::string& prefix) {
  TimeSignal s;
  const std::string kind = c.get_string(prefix);
  for (int k = 0; k < 5; ++k)
    if (kind == kKinds[k])
      s.kind = static_cast<SignalKind>(k);
  if (!s.varies()) {
    for (const char* suffix : {"_values", "_interval", "_period"})
      if (c.is_given(prefix + suffix))
        throw ConfigError(prefix + suffix + " is given but " + prefix +
                          " = constant ignores it; set " + prefix +
                          " to the signal's kind (piecewise_constant, piecewise_linear, bspline, "
                          "fourier) or remove the key");
    return s;
  }
  s.coefficients = c.get_real_list(prefix + "_values");
  const auto interval = c.get_real_list(prefix + "_interval");
  s.start = interval[0];
  s.end = interval[1];
  s.period = c.get_real(prefix + "_period");
  const std::size_t n = s.coefficients.size();
  const bool count_ok = s.kind == SignalKind::PiecewiseConstant ? n >= 1
                        : s.kind == SignalKind::PiecewiseLinear ? n >= 2
                        : s.kind == SignalKind::BSpline         ? n >= 4
                                                                : n % 2 == 1;
  if (!count_ok)
    throw ConfigError(prefix + format("_values has %.0f values; ", double(n)) + prefix + " = " +
                      kind + " takes " +
                      (s.kind == SignalKind::PiecewiseConstant ? "at least 1 (one per interval)"
                       : s.kind == SignalKind::PiecewiseLinear
                           ? "at least 2 (the values at the interval's ends and between)"
                       : s.kind == SignalKind::BSpline ? "at least 4 (the control values)"
                                                       : "an odd count: a_0 a_1 b_1 a_2 b_2 ..."));
  if (!(s.end > s.start) && s.kind != SignalKind::Fourier)
    throw ConfigError(prefix + format("_interval = %g ", s.start) +
                      format("%g is empty: give t0 < t1 [s]", s.end));
  return s;
}

} // namespace control
} // namespace undertow
