#pragma once
// Internal to the Navier-Stokes adjoint (adjoint.cpp, imex_adjoint.cpp): the transpose of an
// obstacle's force, F_b = (1 / eta) sum over the free faces of mask_b u dV (masked_sum, times
// masked_sum_weight, which the caller's seed carries).

#include "undertow/core/field.hpp"

namespace undertow {
namespace navier_stokes {

/// On `space`: lambda += seed mask dV and dmask += seed u dV, dV the face's control volume on a
/// stretched grid and 1 on a uniform one (whose volume the seed carries). With the actuators'
/// target U (F_b = (1 / eta) sum mask_b (u - U) dV): dmask += seed (u - U) dV and dtarget -=
/// seed mask dV.
inline void add_force_seed(const IndexSpace& space, double seed, const Field& mask,
                           const FieldView& u, int dim, const FieldView& lambda,
                           const FieldView& dmask, const FieldView& target = FieldView(),
                           const FieldView& dtarget = FieldView()) {
  const FieldView mk = mask.view();
  const GridGeometry g = mask.geometry();
  const bool uniform = g.uniform[0] && g.uniform[1] && g.uniform[2];
  if (target.data()) {
    // F = seed sum mask (u - U): dJ/dU = -seed mask as well.
    for_each(
        "adj::force_seed_actuated", space, KOKKOS_LAMBDA(long i, long j, long k) {
          const double s = uniform ? seed : seed * g.control_volume(dim, i, j, k);
          lambda(i, j, k) += s * mk(i, j, k);
          dmask(i, j, k) += s * (u(i, j, k) - target(i, j, k));
          dtarget(i, j, k) -= s * mk(i, j, k);
        });
    return;
  }
  for_each(
      "adj::force_seed", space, KOKKOS_LAMBDA(long i, long j, long k) {
        const double s = uniform ? seed : seed * g.control_volume(dim, i, j, k);
        lambda(i, j, k) += s * mk(i, j, k);
        dmask(i, j, k) += s * u(i, j, k);
      });
}

} // namespace navier_stokes
} // namespace undertow
