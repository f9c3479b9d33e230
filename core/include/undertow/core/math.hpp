#pragma once
/// \file
/// Device-callable math functions for every supported Kokkos: Kokkos 3.4/3.5 keep them in
/// Kokkos::Experimental, Kokkos >= 3.6 (and 4.x) in Kokkos.

#include <Kokkos_Core.hpp>

namespace undertow {
namespace math {

#if KOKKOS_VERSION >= 30600
#define UNDERTOW_KOKKOS_MATH Kokkos
#else
#define UNDERTOW_KOKKOS_MATH Kokkos::Experimental
#endif

KOKKOS_INLINE_FUNCTION double sin(double x) {
  return UNDERTOW_KOKKOS_MATH::sin(x);
}
KOKKOS_INLINE_FUNCTION double cos(double x) {
  return UNDERTOW_KOKKOS_MATH::cos(x);
}
KOKKOS_INLINE_FUNCTION double exp(double x) {
  return UNDERTOW_KOKKOS_MATH::exp(x);
}
KOKKOS_INLINE_FUNCTION double sqrt(double x) {
  return UNDERTOW_KOKKOS_MATH::sqrt(x);
}
KOKKOS_INLINE_FUNCTION double atan2(double y, double x) {
  return UNDERTOW_KOKKOS_MATH::atan2(y, x);
}
KOKKOS_INLINE_FUNCTION double abs(double x) {
  return x < 0 ? -x : x;
}
KOKKOS_INLINE_FUNCTION bool isfinite(double x) {
  return UNDERTOW_KOKKOS_MATH::isfinite(x);
}

#undef UNDERTOW_KOKKOS_MATH

constexpr double pi = 3.14159265358979323846;

} // namespace math
} // namespace undertow
