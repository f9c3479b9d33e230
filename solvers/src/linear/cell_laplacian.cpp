#include "undertow/solvers/linear/cell_laplacian.hpp"

namespace undertow {
namespace linear {

CellLaplacian make_cell_laplacian(const Domain& domain, const FieldLayout& layout,
                                  const PressureFaces& faces) {
  CellLaplacian op;
  op.dim = domain.dim();
  for (int a = 0; a < 3; ++a) {
    const double h = domain.spacing(a);
    op.inv_h2[a] = 1.0 / (h * h);
    op.cells[a] = domain.global_cells(a);
    op.offset[a] = layout.global_offset[a];
    op.periodic[a] = domain.periodic(a);
    for (int side = 0; side < 2; ++side)
      op.face_diag[2 * a + side] =
          faces[2 * a + side] == PressureBoundary::Dirichlet ? 2.0 * op.inv_h2[a] : 0.0;
  }
  return op;
}

bool is_singular(const Domain& domain, const PressureFaces& faces) {
  for (int a = 0; a < domain.dim(); ++a)
    if (!domain.periodic(a) && (faces[2 * a] == PressureBoundary::Dirichlet ||
                                faces[2 * a + 1] == PressureBoundary::Dirichlet))
      return false;
  return true;
}

} // namespace linear
} // namespace undertow
