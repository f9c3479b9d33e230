#pragma once
/// \file
/// Exact solution of passive-scalar advection-diffusion with uniform velocity u and diffusivity
/// kappa on a periodic box:
///
///   c(x, t) = A exp(-kappa |k|^2 t) prod_d cos(k_d (x_d - u_d t)),   k_d = 2 pi m_d / L_d.
///
/// Each factor is translated by u and decays by diffusion, so c solves
/// dc/dt + u . grad c = kappa lap c exactly. It also supplies Dirichlet data on walls.

#include "undertow/core/math.hpp"

namespace undertow {
namespace scalar {

struct FourierMode {
  double amplitude = 1.0;
  double k[3] = {0, 0, 0};        ///< wave numbers [1/length]
  double velocity[3] = {0, 0, 0}; ///< [length/time]
  double kappa = 0.0;             ///< [length^2/time]

  /// Decay rate kappa |k|^2 [1/time].
  KOKKOS_INLINE_FUNCTION double decay_rate() const {
    return kappa * (k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  }
  /// c at point (x, y, z) and time t.
  KOKKOS_INLINE_FUNCTION double value(double x, double y, double z, double t) const {
    const double xi[3] = {x - velocity[0] * t, y - velocity[1] * t, z - velocity[2] * t};
    double c = amplitude * math::exp(-decay_rate() * t);
    for (int d = 0; d < 3; ++d)
      c *= math::cos(k[d] * xi[d]);
    return c;
  }
};

} // namespace scalar
} // namespace undertow
