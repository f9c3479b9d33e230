#pragma once
/// \file
/// Forward-mode dual numbers a + b eps (eps^2 = 0) for exact first derivatives of small device
/// functions written once for a scalar type T, such as the signed distances of the obstacle
/// shapes: evaluated with T = Dual and one parameter seeded with derivative 1, they return the
/// value and its exact derivative with respect to that parameter.

#include "undertow/core/math.hpp"

namespace undertow {

struct Dual {
  double v = 0; ///< value
  double d = 0; ///< derivative

  KOKKOS_INLINE_FUNCTION constexpr Dual(double value = 0.0, double derivative = 0.0)
      : v(value), d(derivative) {}
};

KOKKOS_INLINE_FUNCTION Dual operator-(const Dual& a) {
  return {-a.v, -a.d};
}
KOKKOS_INLINE_FUNCTION Dual operator+(const Dual& a, const Dual& b) {
  return {a.v + b.v, a.d + b.d};
}
KOKKOS_INLINE_FUNCTION Dual operator-(const Dual& a, const Dual& b) {
  return {a.v - b.v, a.d - b.d};
}
KOKKOS_INLINE_FUNCTION Dual operator*(const Dual& a, const Dual& b) {
  return {a.v * b.v, a.d * b.v + a.v * b.d};
}
KOKKOS_INLINE_FUNCTION Dual operator/(const Dual& a, const Dual& b) {
  return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)};
}
KOKKOS_INLINE_FUNCTION Dual operator+(const Dual& a, double b) {
  return {a.v + b, a.d};
}
KOKKOS_INLINE_FUNCTION Dual operator+(double a, const Dual& b) {
  return {a + b.v, b.d};
}
KOKKOS_INLINE_FUNCTION Dual operator-(const Dual& a, double b) {
  return {a.v - b, a.d};
}
KOKKOS_INLINE_FUNCTION Dual operator-(double a, const Dual& b) {
  return {a - b.v, -b.d};
}
KOKKOS_INLINE_FUNCTION Dual operator*(const Dual& a, double b) {
  return {a.v * b, a.d * b};
}
KOKKOS_INLINE_FUNCTION Dual operator*(double a, const Dual& b) {
  return {a * b.v, a * b.d};
}
KOKKOS_INLINE_FUNCTION Dual operator/(const Dual& a, double b) {
  return {a.v / b, a.d / b};
}
KOKKOS_INLINE_FUNCTION Dual operator/(double a, const Dual& b) {
  return {a / b.v, -a * b.d / (b.v * b.v)};
}
KOKKOS_INLINE_FUNCTION Dual& operator+=(Dual& a, const Dual& b) {
  return a = a + b;
}
KOKKOS_INLINE_FUNCTION Dual& operator*=(Dual& a, const Dual& b) {
  return a = a * b;
}
// Comparisons look at values only: branches are taken as for the value, and the derivative is
// that of the branch taken.
KOKKOS_INLINE_FUNCTION bool operator<(const Dual& a, const Dual& b) {
  return a.v < b.v;
}
KOKKOS_INLINE_FUNCTION bool operator>(const Dual& a, const Dual& b) {
  return a.v > b.v;
}
KOKKOS_INLINE_FUNCTION bool operator<=(const Dual& a, const Dual& b) {
  return a.v <= b.v;
}
KOKKOS_INLINE_FUNCTION bool operator>=(const Dual& a, const Dual& b) {
  return a.v >= b.v;
}

/// The value of a double or a Dual.
KOKKOS_INLINE_FUNCTION double value_of(double a) {
  return a;
}
KOKKOS_INLINE_FUNCTION double value_of(const Dual& a) {
  return a.v;
}

namespace math {

KOKKOS_INLINE_FUNCTION Dual sqrt(const Dual& a) {
  const double r = sqrt(a.v);
  return {r, r > 0 ? 0.5 * a.d / r : 0.0};
}
KOKKOS_INLINE_FUNCTION Dual sin(const Dual& a) {
  return {sin(a.v), a.d * cos(a.v)};
}
KOKKOS_INLINE_FUNCTION Dual cos(const Dual& a) {
  return {cos(a.v), -a.d * sin(a.v)};
}
KOKKOS_INLINE_FUNCTION Dual abs(const Dual& a) {
  return a.v < 0 ? -a : a;
}
KOKKOS_INLINE_FUNCTION Dual atan2(const Dual& y, const Dual& x) {
  const double r2 = x.v * x.v + y.v * y.v;
  return {atan2(y.v, x.v), r2 > 0 ? (x.v * y.d - y.v * x.d) / r2 : 0.0};
}

} // namespace math
} // namespace undertow
