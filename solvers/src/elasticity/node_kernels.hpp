#pragma once
/// \file
/// Device-copyable helpers shared by the parts of the elasticity solver (numbering, assembler,
/// supports, loads, solver): the views of a node vector, and gathering and scattering one
/// element's nodal values (index boxes: core's KernelBox). Private to solvers/src/elasticity.

#include "undertow/core/field.hpp"
#include "undertow/solvers/elasticity/element.hpp"
#include "undertow/solvers/elasticity/node_vector.hpp"
#include "undertow/solvers/elasticity/spec.hpp"

#include <algorithm>
#include <string>

namespace undertow {
namespace elasticity {
namespace detail {

/// The views of a node vector, device-copyable.
struct NodeViews {
  FieldView c[3];
};

inline NodeViews views_of(const NodeVector& v) {
  NodeViews out;
  for (int c = 0; c < 3; ++c)
    out.c[c] = v[c].view();
  return out;
}

/// The element's nodal values of `v`: out[dim n + c] for the cell whose lower node is (i, j, k).
KOKKOS_INLINE_FUNCTION void gather_element(const NodeViews& v, int dim, long i, long j, long k,
                                           double* out) {
  for (int n = 0; n < nodes_per_element(dim); ++n)
    for (int c = 0; c < dim; ++c)
      out[dim * n + c] =
          v.c[c](i + node_offset(n, 0), j + node_offset(n, 1), k + node_offset(n, 2));
}

/// Adds element values into the node fields (atomically: neighbouring elements share nodes).
KOKKOS_INLINE_FUNCTION void scatter_element(const NodeViews& v, int dim, long i, long j, long k,
                                            const double* values) {
  for (int n = 0; n < nodes_per_element(dim); ++n)
    for (int c = 0; c < dim; ++c)
      Kokkos::atomic_add(
          &v.c[c](i + node_offset(n, 0), j + node_offset(n, 1), k + node_offset(n, 2)),
          values[dim * n + c]);
}

/// True if x lies in [lo - tol, hi + tol] along every active axis.
KOKKOS_INLINE_FUNCTION bool in_box(const double lo[3], const double hi[3], double tol, int dim,
                                   const double x[3]) {
  for (int a = 0; a < dim; ++a)
    if (x[a] < lo[a] - tol || x[a] > hi[a] + tol)
      return false;
  return true;
}

/// A quarter of the narrowest cell: how far from a box a node may lie and still be in it [m].
inline double box_tolerance(const Domain& domain) {
  return 0.25 * std::min({domain.min_spacing(0), domain.min_spacing(1),
                          domain.dim() == 3 ? domain.min_spacing(2) : domain.min_spacing(0)});
}

/// "[lo..hi, lo..hi]" for messages.
std::string describe(const Box& b, int dim);

} // namespace detail
} // namespace elasticity
} // namespace undertow
