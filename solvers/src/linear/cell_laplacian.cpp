#include "undertow/solvers/linear/cell_laplacian.hpp"

#include "undertow/core/error.hpp"

#include <algorithm>
#include <string>

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

AxisCouplings axis_couplings(const std::vector<double>& w, bool periodic, PressureBoundary low,
                             PressureBoundary high) {
  const std::size_t n = w.size();
  AxisCouplings c;
  c.lower.assign(n, 0.0);
  c.upper.assign(n, 0.0);
  // Across the face between cells p and q: 1 / (w_p d), d = (w_p + w_q) / 2.
  auto across = [&](std::size_t p, std::size_t q) {
    return 2.0 / (w[p] * (w[p] + w[q]));
  };
  for (std::size_t g = 0; g < n; ++g) {
    if (g > 0)
      c.lower[g] = across(g, g - 1);
    if (g + 1 < n)
      c.upper[g] = across(g, g + 1);
  }
  if (periodic) {
    c.lower[0] = across(0, n - 1);
    c.upper[n - 1] = across(n - 1, 0);
  } else {
    c.lower[0] = low == PressureBoundary::Dirichlet ? 2.0 / (w[0] * w[0]) : 0.0;
    c.upper[n - 1] = high == PressureBoundary::Dirichlet ? 2.0 / (w[n - 1] * w[n - 1]) : 0.0;
  }
  return c;
}

CellLaplacian make_cell_laplacian(const Domain& domain, const FieldLayout& layout,
                                  const PressureFaces& faces,
                                  const std::array<std::vector<double>, 3>& widths) {
  CellLaplacian op = make_cell_laplacian(domain, layout, faces);
  for (int a = 0; a < domain.dim(); ++a) {
    const std::vector<double>& w = widths[static_cast<std::size_t>(a)];
    require(static_cast<long>(w.size()) == domain.global_cells(a),
            "make_cell_laplacian: one width per cell");
    op.uniform[a] = std::all_of(w.begin(), w.end(), [&](double v) { return v == w.front(); });
    if (op.uniform[a]) {
      op.inv_h2[a] = 1.0 / (w.front() * w.front());
      for (int side = 0; side < 2; ++side)
        op.face_diag[2 * a + side] =
            faces[2 * a + side] == PressureBoundary::Dirichlet ? 2.0 * op.inv_h2[a] : 0.0;
      continue;
    }
    const AxisCouplings c = axis_couplings(w, domain.periodic(a), faces[2 * a], faces[2 * a + 1]);
    auto to_device = [](const std::vector<double>& v, const std::string& label) {
      Kokkos::View<double*, MemorySpace> d(label, v.size());
      auto h = Kokkos::create_mirror_view(d);
      for (std::size_t q = 0; q < v.size(); ++q)
        h(q) = v[q];
      Kokkos::deep_copy(d, h);
      return CellLaplacian::Couplings(d);
    };
    op.lower[a] = to_device(c.lower, "cell_laplacian::lower");
    op.upper[a] = to_device(c.upper, "cell_laplacian::upper");
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

void inverse_diagonal(const CellLaplacian& op, const Field& x_field, Field& inv_diag_field) {
  const FieldView x = x_field.view(), inv_diag = inv_diag_field.view();
  for_each(
      "mg::inverse_diagonal", x_field.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double diag, neighbours;
        op.stencil(x, i, j, k, diag, neighbours);
        inv_diag(i, j, k) = 1.0 / diag;
      });
}

} // namespace linear
} // namespace undertow
