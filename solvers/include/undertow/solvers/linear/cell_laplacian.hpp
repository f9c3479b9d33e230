#pragma once
/// \file
/// The cell-centred pressure operator -L = -D G of the MAC projection as a point function, for
/// any grid of a multigrid hierarchy. Per active axis a and side, a neighbour inside the box (or
/// across a periodic wrap) adds (x_p - x_nb) / h_a^2; a non-periodic boundary face adds nothing
/// (Neumann: wall or inflow, no flux) or 2 x_p / h_a^2 (Dirichlet: outflow, p = 0 on the face,
/// ghost -x_p). Units: 1/m^2 times the unit of x.
///
/// Along an axis of cells of varying width w (the coarse levels of an odd cell count, stretched
/// grids), the same finite-volume form: (x_p - x_nb) / (w_p d) with d the distance between the
/// two centres, and 2 x_p / w_p^2 at a Dirichlet face. w_p (-L) is symmetric.

#include "undertow/core/field.hpp"

#include <array>
#include <vector>

namespace undertow {
namespace linear {

/// What a non-periodic boundary face imposes on the pressure.
enum class PressureBoundary {
  Neumann,  ///< normal velocity prescribed (wall, inflow): no gradient through the face
  Dirichlet ///< outflow: p = 0 on the face
};

/// Per face: x-, x+, y-, y+, z-, z+. Ignored on periodic axes.
using PressureFaces = std::array<PressureBoundary, 6>;

/// The couplings of one axis of cells of widths w [m] (global, in order) [1/m^2]: lower[g] to
/// cell g - 1 and upper[g] to g + 1; at a non-periodic end, the boundary face's share of the
/// diagonal instead (2 / w^2 at a Dirichlet face, 0 at a Neumann one). Not collective.
struct AxisCouplings {
  std::vector<double> lower, upper;
};
AxisCouplings axis_couplings(const std::vector<double>& widths, bool periodic, PressureBoundary low,
                             PressureBoundary high);

/// Device-copyable description of -L on one grid of one rank.
struct CellLaplacian {
  using Couplings = Kokkos::View<const double*, MemorySpace>;
  int dim = 2;
  /// Per axis: cells of one width, with inv_h2 and face_diag; else lower and upper (global
  /// index, see AxisCouplings).
  bool uniform[3] = {true, true, true};
  Couplings lower[3], upper[3];
  double inv_h2[3] = {0, 0, 0};
  long cells[3] = {1, 1, 1};  ///< global cells per axis
  long offset[3] = {0, 0, 0}; ///< global index of local index 0 (ghosts have local index 0)
  bool periodic[3] = {false, false, false};
  double face_diag[6] = {0, 0, 0, 0, 0, 0}; ///< diagonal a boundary face adds: 0 or 2 / h^2

  /// The coupling of global cell g to its neighbour below (side 0) or above (side 1) along axis
  /// a [1/m^2]; at a non-periodic end of a stretched axis, the boundary face's share of the
  /// diagonal instead (AxisCouplings).
  KOKKOS_INLINE_FUNCTION double coupling(int a, long g, int side) const {
    return uniform[a] ? inv_h2[a] : (side == 0 ? lower[a](g) : upper[a](g));
  }

  /// Diagonal and weighted neighbour sum at local (i, j, k): (-L x)_p = diag * x_p - neighbours.
  /// Reads the ghosts of x next to the point (halo ghosts must be filled).
  KOKKOS_INLINE_FUNCTION void stencil(const FieldView& x, long i, long j, long k, double& diag,
                                      double& neighbours) const {
    const long at[3] = {i, j, k};
    diag = 0.0;
    neighbours = 0.0;
    for (int a = 0; a < dim; ++a) {
      const long g = at[a] + offset[a];
      for (int side = 0; side < 2; ++side) {
        const long step = side == 0 ? -1 : 1;
        const double c = coupling(a, g, side);
        if (!periodic[a] && (g + step < 0 || g + step >= cells[a])) {
          diag += uniform[a] ? face_diag[2 * a + side] : c;
          continue;
        }
        diag += c;
        neighbours +=
            c * x(i + (a == 0 ? step : 0), j + (a == 1 ? step : 0), k + (a == 2 ? step : 0));
      }
    }
  }
};

/// The operator on `layout` (a cell layout of `domain`) with the given boundary faces, on the
/// domain's uniform cells.
CellLaplacian make_cell_laplacian(const Domain& domain, const FieldLayout& layout,
                                  const PressureFaces& faces);
/// The same on cells of the given widths per axis [m] (global; the active axes'): an axis whose
/// widths are all equal is uniform, with inv_h2 = 1 / w^2.
CellLaplacian make_cell_laplacian(const Domain& domain, const FieldLayout& layout,
                                  const PressureFaces& faces,
                                  const std::array<std::vector<double>, 3>& widths);

/// inv_diag := 1 / the diagonal of `op` (the boundary faces' share included) at every owned cell
/// of x's layout [m^2]. Not collective.
void inverse_diagonal(const CellLaplacian& op, const Field& x, Field& inv_diag);

/// True if no face is Dirichlet: -L is then singular, with the constants as null space.
bool is_singular(const Domain& domain, const PressureFaces& faces);

} // namespace linear
} // namespace undertow
