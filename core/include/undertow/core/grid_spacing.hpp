#pragma once
/// \file
/// The grid spacing as finite-volume operators on the staggered grid need it, per axis and local
/// index i (all fields of equal ghost widths share their index offsets, so the face with local
/// index i is the lower face of the cell with local index i):
///
///   cell(a, i): 1 / (width of cell i along a)                      [1/m]
///   link(a, i): 1 / (distance between the centres of cells i - 1 and i, i.e. the width of the
///               control volume of face i along a)                   [1/m]
///   span(a, i): 1 / (half the distance between the centres of cells i - 1 and i + 1)  [1/m]
///
/// UniformSpacing has one inverse width per axis; GridSpacing also serves stretched axes
/// (DomainSpec::faces) from tables, and tells operators which axes are uniform, so that on those
/// they can keep the uniform grid's arithmetic bit for bit. Both are device-copyable.

#include "undertow/core/domain.hpp"

namespace undertow {

/// Cells of one width per axis.
struct UniformSpacing {
  double inv_h[3] = {1, 1, 1};

  UniformSpacing() = default;
  KOKKOS_INLINE_FUNCTION explicit UniformSpacing(const double* ih) : inv_h{ih[0], ih[1], ih[2]} {}
  KOKKOS_INLINE_FUNCTION bool uniform(int) const { return true; }
  KOKKOS_INLINE_FUNCTION double cell(int a, long) const { return inv_h[a]; }
  KOKKOS_INLINE_FUNCTION double link(int a, long) const { return inv_h[a]; }
  KOKKOS_INLINE_FUNCTION double span(int a, long) const { return inv_h[a]; }
};

/// Uniform or stretched axes.
struct GridSpacing {
  static constexpr long pad = StretchedFaces::pad;
  double inv_h[3] = {1, 1, 1}; ///< a uniform axis's inverse width
  bool is_uniform[3] = {true, true, true};
  long offset[3] = {0, 0, 0}; ///< global index of local index 0
  /// Stretched axes, at global index g + pad: 1 / cell width, 1 / centre distance at face g,
  /// 1 / half the distance between the centres of cells g - 1 and g + 1.
  Kokkos::View<const double*, MemorySpace> inv_width[3], inv_link[3], inv_span[3];

  KOKKOS_INLINE_FUNCTION bool uniform(int a) const { return is_uniform[a]; }
  KOKKOS_INLINE_FUNCTION double cell(int a, long i) const {
    return is_uniform[a] ? inv_h[a] : inv_width[a](i + offset[a] + pad);
  }
  KOKKOS_INLINE_FUNCTION double link(int a, long i) const {
    return is_uniform[a] ? inv_h[a] : inv_link[a](i + offset[a] + pad);
  }
  KOKKOS_INLINE_FUNCTION double span(int a, long i) const {
    return is_uniform[a] ? inv_h[a] : inv_span[a](i + offset[a] + pad);
  }
  /// True if every axis is uniform.
  bool all_uniform() const { return is_uniform[0] && is_uniform[1] && is_uniform[2]; }
  /// The uniform spacing of a grid whose axes are all uniform.
  UniformSpacing uniform_spacing() const { return UniformSpacing(inv_h); }
};

/// Calls f(UniformSpacing) where every axis of `sp` is uniform, else f(GridSpacing): a kernel
/// launched through it compiles the stretched tables out of the uniform grid's instance. Host.
template <class F>
void with_spacing(const GridSpacing& sp, F&& f) {
  if (sp.all_uniform())
    f(sp.uniform_spacing());
  else
    f(sp);
}

/// The spacing of `domain` for fields laid out with the index offsets of `layout` (any layout of
/// the fields' ghost width). Builds the tables of stretched axes (cells beyond the box mirrored
/// or wrapped, as the geometry's ghosts). Not collective.
GridSpacing grid_spacing(const Domain& domain, const FieldLayout& layout);

} // namespace undertow
