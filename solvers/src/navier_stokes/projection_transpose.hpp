#pragma once
// Internal to the Navier-Stokes adjoint (adjoint.cpp, imex_adjoint.cpp): the transposes of the
// cell divergence and of the face gradient (operators.hpp) in gather form. Each target point
// sums what a scatter over the stencils would add to it, in the order the Serial backend added
// it when the adjoint scattered (the lower neighbour first), so the results are that scatter's
// bitwise on Serial (the pinned gradients did not change) and, with no atomics, the same on
// every backend and run. The dot-product tests (adjoint_pieces) hold them to the forward.

#include "undertow/core/field.hpp"
#include "undertow/core/grid_spacing.hpp"

namespace undertow {
namespace navier_stokes {

/// out_d += D_d^T w over the faces of component d that the cells of `cells` reach: at face f,
/// + w(f - e_d) / h(f - e_d) then - w(f) / h(f), each where that cell is in `cells` (h the
/// cell's width along d).
template <class S>
void divergence_transpose_kernel(const IndexSpace& cells, const FieldView& w, int d, const S& sp,
                                 const FieldView& out) {
  IndexSpace faces = cells;
  faces.end[d] += 1;
  const long lo = cells.begin[d], hi = cells.end[d]; // the cell range along d
  const long di = d == 0, dj = d == 1, dk = d == 2;
  for_each_rows( // out is not w
      "adj::divergence", faces, KOKKOS_LAMBDA(long i, long j, long k) {
        const long f = d == 0 ? i : d == 1 ? j : k;
        if (f - 1 >= lo)
          out(i, j, k) += w(i - di, j - dj, k - dk) * sp.cell(d, f - 1);
        if (f < hi)
          out(i, j, k) += -w(i, j, k) * sp.cell(d, f);
      });
}
inline void divergence_transpose_gather(const IndexSpace& cells, const FieldView& w, int d,
                                        const GridSpacing& spacing, const FieldView& out) {
  with_spacing(spacing, [&](const auto& sp) { divergence_transpose_kernel(cells, w, d, sp, out); });
}

/// out += G_c^T (scale m) over the cells that the faces of component c in `faces` reach: at cell
/// q, + w(q) / h(q) then - w(q + e_c) / h(q + e_c) with w = scale m, each where that face is in
/// `faces` (h the distance between the cell centres across the face).
template <class S>
void gradient_transpose_kernel(const IndexSpace& faces, const FieldView& m, double scale, int c,
                               const S& sp, const FieldView& out) {
  IndexSpace cells = faces;
  cells.begin[c] -= 1;
  const long lo = faces.begin[c], hi = faces.end[c]; // the face range along c
  const long di = c == 0, dj = c == 1, dk = c == 2;
  for_each_rows( // out is not m
      "adj::gradient", cells, KOKKOS_LAMBDA(long i, long j, long k) {
        const long q = c == 0 ? i : c == 1 ? j : k;
        if (q >= lo) {
          const double w = scale * m(i, j, k);
          out(i, j, k) += w * sp.link(c, q);
        }
        if (q + 1 < hi) {
          const double w = scale * m(i + di, j + dj, k + dk);
          out(i, j, k) += -w * sp.link(c, q + 1);
        }
      });
}
inline void gradient_transpose_gather(const IndexSpace& faces, const FieldView& m, double scale,
                                      int c, const GridSpacing& spacing, const FieldView& out) {
  with_spacing(spacing,
               [&](const auto& sp) { gradient_transpose_kernel(faces, m, scale, c, sp, out); });
}

} // namespace navier_stokes
} // namespace undertow
