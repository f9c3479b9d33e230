#pragma once
/// \file
/// Clamped uniform cubic B-splines, device-callable: the knots and de Boor's algorithm, shared by
/// the spline body (solvers/navier_stokes/obstacles.hpp, T = double or Dual) and the B-spline
/// control signal in time (solvers/control/time_signal.hpp).
///
/// With n control values c_0 ... c_{n-1} (n >= 4) over n - 3 unit intervals, the knots are
/// u_i = min(max(i - 3, 0), n - 3), i = 0 ... n + 3: the curve starts at c_0 and ends at c_{n-1},
/// with slopes 3 (c_1 - c_0) and 3 (c_{n-1} - c_{n-2}) per interval there.

#include <Kokkos_Core.hpp>

namespace undertow {

/// Knot i of a clamped uniform cubic B-spline over `intervals` unit intervals: 0 four times, 1,
/// 2, ..., `intervals` four times.
KOKKOS_INLINE_FUNCTION double clamped_knot(int i, int intervals) {
  const int u = i - 3;
  return double(u < 0 ? 0 : (u > intervals ? intervals : u));
}

/// The interval [first, first + 1) that holds t (in units of the intervals), clamped to the
/// first and last: a t outside [0, intervals] extrapolates the end polynomials.
KOKKOS_INLINE_FUNCTION int clamped_interval(double t, int intervals) {
  const int first = static_cast<int>(t < 0 ? 0.0 : t);
  return first > intervals - 1 ? intervals - 1 : first;
}

/// The spline at t in interval `first` by de Boor's algorithm, from its four control values
/// d[j] = c_{first + j} (overwritten).
template <class T>
KOKKOS_INLINE_FUNCTION T clamped_de_boor(T d[4], int first, int intervals, const T& t) {
  const int span = first + 3; // u_span <= t < u_span+1
  for (int level = 1; level <= 3; ++level)
    for (int j = 3; j >= level; --j) {
      const int i = j + span - 3;
      const double lo = clamped_knot(i, intervals), hi = clamped_knot(i + 4 - level, intervals);
      const T alpha = (t - lo) / (hi - lo);
      d[j] = (1.0 - alpha) * d[j - 1] + alpha * d[j];
    }
  return d[3];
}

} // namespace undertow
