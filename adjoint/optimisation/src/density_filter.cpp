#include "undertow/optimisation/density_filter.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <cmath>

namespace undertow {
namespace optimisation {

namespace {

/// The filter's stencil: weights max(0, r - distance) to the cells within `reach` along each
/// axis that lie inside the global box. On a stretched grid the distances are those between the
/// cell centres, and a neighbour's weight is also multiplied by its volume when `by_volume`.
struct Stencil {
  double radius;
  double h[3];
  int reach[3];
  long offset[3]; ///< global index of local index 0 of the work field
  long cells[3];  ///< global cells per axis
  bool uniform;
  int dim;
  GridGeometry g; ///< of the work field

  /// The volume (area in 2D) of the cell (i, j, k) of the work field [m^dim].
  KOKKOS_INLINE_FUNCTION double volume(long i, long j, long k) const {
    return g.control_volume(dim, i, j, k);
  }

  /// Σ_i H_ei v_i for the cell (i, j, k) of the work field (times the neighbours' volumes if
  /// `by_volume` on a stretched grid); `weights_only` gives Σ_i H_ei (volumes included likewise).
  KOKKOS_INLINE_FUNCTION double sum(const FieldView& v, bool weights_only, bool by_volume, long i,
                                    long j, long k) const {
    double acc = 0.0;
    for (int dk = -reach[2]; dk <= reach[2]; ++dk)
      for (int dj = -reach[1]; dj <= reach[1]; ++dj)
        for (int di = -reach[0]; di <= reach[0]; ++di) {
          const long gi = i + di + offset[0], gj = j + dj + offset[1], gk = k + dk + offset[2];
          if (gi < 0 || gi >= cells[0] || gj < 0 || gj >= cells[1] || gk < 0 || gk >= cells[2])
            continue;
          double dx = di * h[0], dy = dj * h[1], dz = dk * h[2];
          if (!uniform) {
            dx = g.coordinate(0, i + di) - g.coordinate(0, i);
            dy = g.coordinate(1, j + dj) - g.coordinate(1, j);
            dz = dim == 3 ? g.coordinate(2, k + dk) - g.coordinate(2, k) : 0.0;
          }
          double w = radius - std::sqrt(dx * dx + dy * dy + dz * dz);
          if (w <= 0.0)
            continue;
          if (!uniform && by_volume)
            w *= volume(i + di, j + dj, k + dk);
          acc += w * (weights_only ? 1.0 : v(i + di, j + dj, k + dk));
        }
    return acc;
  }
};

Stencil make_stencil(const Domain& d, const Field& work, double radius, int reach) {
  Stencil s;
  s.radius = radius;
  s.uniform = d.all_uniform();
  s.dim = d.dim();
  s.g = work.geometry();
  for (int a = 0; a < 3; ++a) {
    s.h[a] = d.spacing(a);
    s.reach[a] = a < d.dim() ? reach : 0;
    s.offset[a] = work.layout().global_offset[a];
    s.cells[a] = d.global_cells(a);
  }
  return s;
}

/// out(owned) := Σ H V v / weight_sum (apply: `transpose` false), or V Σ H v (transpose: the
/// cell's own volume V; V = 1 on a uniform grid).
void stencil_sum(const Stencil& st, const Field& v_field, const Field* weight_sum, bool transpose,
                 Field& out_field) {
  const FieldView v = v_field.view(), out = out_field.view();
  const FieldView ws = weight_sum ? weight_sum->view() : v;
  const IndexShift to_out = index_shift(v_field, out_field);
  for_each(
      "filter::stencil_sum", v_field.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const double total = st.sum(v, false, !transpose, i, j, k);
        double value = transpose ? total : total / ws(i, j, k);
        if (transpose && !st.uniform)
          value *= st.volume(i, j, k);
        out(i + to_out.s[0], j + to_out.s[1], k + to_out.s[2]) = value;
      });
}

void weight_sums(const Stencil& st, Field& ws_field) {
  const FieldView ws = ws_field.view();
  for_each(
      "filter::weight_sums", ws_field.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { ws(i, j, k) = st.sum(ws, true, true, i, j, k); });
}

/// v := v / weight_sum over the owned cells.
void divide_by(const Field& ws_field, Field& v_field) {
  const FieldView ws = ws_field.view(), v = v_field.view();
  for_each(
      "filter::divide", v_field.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) /= ws(i, j, k); });
}

} // namespace

DensityFilter::DensityFilter(const Domain& domain, double radius)
    : m_domain(domain), m_radius(radius) {
  if (!(radius > 0))
    throw ConfigError(format("density filter: radius %g must be > 0 (in length units; 1.5 "
                             "element widths is usual)",
                             radius));
  double h_min = domain.min_spacing(0);
  for (int a = 1; a < domain.dim(); ++a)
    h_min = std::min(h_min, domain.min_spacing(a));
  m_reach = std::max(0, static_cast<int>(std::ceil(radius / h_min)) - 1);
  m_halo = std::make_unique<HaloPlan>(domain, Location::Cell, m_reach);
  m_work = Field(domain, Location::Cell, m_reach, "filter::work");
  m_weight_sum = Field(domain, Location::Cell, m_reach, "filter::weight_sum");
  weight_sums(make_stencil(domain, m_work, radius, m_reach), m_weight_sum);
}

DensityFilter::~DensityFilter() = default;

void DensityFilter::apply(const Field& x, Field& out) {
  copy_owned(x, m_work);
  m_halo->fill(m_work);
  stencil_sum(make_stencil(m_domain, m_work, m_radius, m_reach), m_work, &m_weight_sum, false, out);
}

void DensityFilter::apply_transpose(const Field& g, Field& out) {
  copy_owned(g, m_work);
  divide_by(m_weight_sum, m_work);
  m_halo->fill(m_work);
  stencil_sum(make_stencil(m_domain, m_work, m_radius, m_reach), m_work, nullptr, true, out);
}

} // namespace optimisation
} // namespace undertow
