#pragma once
/// \file
/// Point functions of the finite-volume advection-diffusion operator. The tendency of cell i is
///
///   dc_i/dt = -sum_d (F_d(i + 1/2) - F_d(i - 1/2)) / h_d,
///   F_d(face) = u_face (c_minus + c_plus) / 2  -  kappa (c_plus - c_minus) / h_d,
///
/// central (second-order) for both terms. Each function is host- and device-callable so it can be
/// unit-tested on the host and transposed on its own by the adjoint.

#include <Kokkos_Core.hpp>

namespace undertow {
namespace scalar {

/// Advective flux through a face with normal velocity `u_face` [length/time].
KOKKOS_INLINE_FUNCTION double advective_flux(double u_face, double c_minus, double c_plus) {
  return u_face * 0.5 * (c_minus + c_plus);
}

/// Diffusive (Fickian) flux -kappa dc/dn through a face, `inv_h` = 1 / spacing.
KOKKOS_INLINE_FUNCTION double diffusive_flux(double kappa, double inv_h, double c_minus,
                                             double c_plus) {
  return -kappa * (c_plus - c_minus) * inv_h;
}

/// Total flux through a face.
KOKKOS_INLINE_FUNCTION double face_flux(double u_face, double kappa, double inv_h, double c_minus,
                                        double c_plus) {
  return advective_flux(u_face, c_minus, c_plus) + diffusive_flux(kappa, inv_h, c_minus, c_plus);
}

/// Ghost value that puts `boundary_value` on the face between the ghost and `inner` (linear).
KOKKOS_INLINE_FUNCTION double dirichlet_ghost(double boundary_value, double inner) {
  return 2.0 * boundary_value - inner;
}

/// One SSP-RK stage in Shu-Osher form: a * c0 + b * (c + dt * rhs).
KOKKOS_INLINE_FUNCTION double rk_stage(double a, double c0, double b, double c, double dt,
                                       double rhs) {
  return a * c0 + b * (c + dt * rhs);
}

} // namespace scalar
} // namespace undertow
