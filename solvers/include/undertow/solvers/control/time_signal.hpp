#pragma once
/// \file
/// A control signal in time: a(t) = sum_j theta_j phi_j(t), linear in its coefficients theta, so
/// that a gradient with respect to a(t) at the times a run evaluates it becomes a gradient with
/// respect to theta by the basis values phi_j(t) alone. It multiplies what it controls (a
/// boundary velocity: the face's velocity times a(t)). Kinds:
///
/// - constant: a = 1, no coefficients (the default: what it controls is constant in time).
/// - piecewise_constant: theta_j on the j-th of n equal control intervals of [t0, t1].
/// - piecewise_linear: linear between the values theta_j at n >= 2 equally spaced times
///   t0 ... t1 (hat functions).
/// - bspline: the clamped uniform cubic B-spline of n >= 4 control values over [t0, t1]
///   (core/bspline.hpp); a(t0) = theta_0, a(t1) = theta_{n-1}.
/// - fourier: theta = a_0, a_1, b_1, a_2, b_2, ...: a_0 + sum_k a_k cos(2 pi k t / T) + b_k
///   sin(2 pi k t / T) with period T (an odd count of coefficients).
///
/// Outside [t0, t1] the piecewise and B-spline signals hold their end values.

#include "undertow/core/config.hpp"

#include <string>
#include <vector>

namespace undertow {
namespace control {

enum class SignalKind { Constant, PiecewiseConstant, PiecewiseLinear, BSpline, Fourier };

struct TimeSignal {
  SignalKind kind = SignalKind::Constant;
  std::vector<double> coefficients; ///< theta (dimensionless: a multiplies what it controls)
  double start = 0, end = 1;        ///< [t0, t1], the control horizon [s] (piecewise, bspline)
  double period = 1;                ///< T [s] (fourier)

  /// True unless constant (which has no coefficients).
  bool varies() const { return kind != SignalKind::Constant; }
  /// a(t) at time t [s]. Not collective.
  double value(double t) const;
  /// phi_j(t) for every coefficient j (empty if constant). Not collective.
  std::vector<double> basis(double t) const;
  /// An upper bound of |a(t)| over all t (exact for the piecewise kinds; the convex hull of the
  /// control values for bspline; |a_0| + sum of the harmonics' amplitudes for fourier). Not
  /// collective.
  double bound() const;
  /// The same signal delayed by `delay` [s]: b(t) = a(t - delay) for every t (the interval
  /// moved, or the harmonics' phases turned). Not collective.
  TimeSignal delayed(double delay) const;
  /// "fourier, 3 coefficients, period 16 s", for the log.
  std::string describe() const;

  /// Declares `prefix` (the kind), prefix_values, prefix_interval and prefix_period; `what`
  /// names what the signal multiplies, for the descriptions. Not collective.
  static void declare_keys(ConfigSchema& schema, const std::string& prefix,
                           const std::string& what);
  /// Reads them; throws ConfigError naming the key and the fix for a count of values the kind
  /// does not take, an empty interval, or values given to a constant signal. Not collective.
  static TimeSignal from_config(const Config& config, const std::string& prefix);
};

} // namespace control
} // namespace undertow
