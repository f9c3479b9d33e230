#pragma once
// Internal to the Navier-Stokes adjoint (adjoint.cpp, imex_adjoint.cpp): the transpose of the
// explicit momentum tendency in gather form, over every point of a component's array.

#include "undertow/solvers/navier_stokes/transposes.hpp"

namespace undertow {
namespace navier_stokes {

/// What the transposed momentum tendency of one stage reads and writes.
struct MomentumTranspose {
  Velocity v;        ///< the stage's velocity (linearisation point)
  Velocity lambda_e; ///< adjoints of the Euler steps e_c = us_c + dt R_c(us), zero off free faces
  FieldView out;     ///< adjoint of us_T, added to
  double dt, nu;
  GridSpacing spacing;
};

/// out += dt (dR/du_T)^T lambda_e over `space`, in gather form (momentum_tendency_gather).
template <int T, int Dim, bool Guarded, class S>
void gather_into(const MomentumTranspose& t, const S& sp, const IndexSpace& space) {
  const Velocity v = t.v, lambda_e = t.lambda_e;
  const FieldView out = t.out;
  const double nu = t.nu, dt = t.dt;
  // Each point adds into its own out only, and out is none of the fields read.
  for_each_rows(
      Guarded ? "adj::momentum_gather_shell" : "adj::momentum_gather", space,
      KOKKOS_LAMBDA(long i, long j, long k) {
        out(i, j, k) += momentum_tendency_gather<T, Dim, Guarded>(v, lambda_e, sp, nu, dt, i, j, k);
      });
}
template <int T, int Dim, bool Guarded>
void gather_into(const MomentumTranspose& t, const IndexSpace& space) {
  with_spacing(t.spacing, [&](const auto& sp) { gather_into<T, Dim, Guarded>(t, sp, space); });
}

/// The gather over every point of component T's array: the interior without bounds checks, the
/// outermost layer (targets of the faces next to it) with them.
template <int T, int Dim>
void momentum_transpose(const MomentumTranspose& t, const IndexSpace& ghosted) {
  IndexSpace interior = ghosted;
  for (int a = 0; a < Dim; ++a) {
    interior.begin[a] += 1;
    interior.end[a] -= 1;
  }
  gather_into<T, Dim, false>(t, interior);
  // The shell, split so that every point is visited once: along axis a, the two end layers,
  // with the axes before a restricted to the interior.
  for (int a = 0; a < Dim; ++a)
    for (int side = 0; side < 2; ++side) {
      IndexSpace slab = ghosted;
      for (int b = 0; b < a; ++b) {
        slab.begin[b] = interior.begin[b];
        slab.end[b] = interior.end[b];
      }
      slab.begin[a] = side == 0 ? ghosted.begin[a] : ghosted.end[a] - 1;
      slab.end[a] = slab.begin[a] + 1;
      gather_into<T, Dim, true>(t, slab);
    }
}

/// out += dt (dR/du_T)^T lambda_e for component t in `dim` dimensions, over `all`.
inline void transpose_momentum(int t, int dim, const MomentumTranspose& mt, const IndexSpace& all) {
  if (dim == 2)
    (t == 0 ? momentum_transpose<0, 2> : momentum_transpose<1, 2>)(mt, all);
  else
    (t == 0   ? momentum_transpose<0, 3>
     : t == 1 ? momentum_transpose<1, 3>
              : momentum_transpose<2, 3>)(mt, all);
}

} // namespace navier_stokes
} // namespace undertow
