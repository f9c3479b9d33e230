#pragma once
/// \file
/// Stretched (rectilinear) grids: the face coordinates of one axis, clustered in a box around
/// what needs resolving (a body, its wake) and growing geometrically away from it. The grid is a
/// tensor product of such axes; DomainSpec::faces holds them.

#include <string>
#include <vector>

namespace undertow {

/// How one axis is clustered. Lengths in the case's length unit.
struct AxisClustering {
  double box_lo = 0.0, box_hi = 0.0; ///< the interval of uniform cells
  double spacing = 0.0;              ///< the cell width asked for inside it (rounded to fit)
  double growth = 1.05;              ///< the largest ratio between neighbouring cells outside it
  double max_spacing = 0.0;          ///< the widest cell allowed outside it; 0: no limit
};

/// The face coordinates (cells + 1, increasing, from lo to hi exactly) of the axis [lo, hi]
/// clustered as `c`: n = round((box_hi - box_lo) / spacing) equal cells in the box, then on each
/// side cells of spacing * growth^k (capped at max_spacing) until the gap to the end is covered,
/// all scaled by one factor <= 1 so that they end exactly at it. Neighbouring cells then differ
/// by at most the factor `growth` everywhere, the box edges included; where that cannot be done
/// (a gap to the end narrower than about one cell), throws ConfigError naming `key` and the
/// fix. A box that covers the whole axis gives round(length / spacing) equal cells. Not
/// collective.
std::vector<double> clustered_faces(double lo, double hi, const AxisClustering& c,
                                    const std::string& key);

/// The largest ratio between neighbouring cell widths of `faces` (>= 1; 1 for uniform cells).
double largest_growth(const std::vector<double>& faces);

} // namespace undertow
