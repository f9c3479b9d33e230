#include "undertow/solvers/linear/multigrid.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"

#include <algorithm>
#include <mpi.h>
#include <numeric>
#include <sstream>

namespace undertow {
namespace linear {

namespace {

// Kernels live in free functions: CUDA's extended lambdas may not sit in constructors or in
// private member functions.

/// 1 / diagonal of the operator at every owned cell.
void inverse_diagonal(const CellLaplacian& op, const Field& x_field, Field& inv_diag_field) {
  const FieldView x = x_field.view(), inv_diag = inv_diag_field.view();
  for_each(
      "mg::inverse_diagonal", x_field.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double diag, neighbours;
        op.stencil(x, i, j, k, diag, neighbours);
        inv_diag(i, j, k) = 1.0 / diag;
      });
}

/// Boundary ghosts: mirror at Neumann faces, negated at Dirichlet faces.
void fill_boundary_ghosts(const Domain& d, const PressureFaces& faces, Field& f) {
  std::array<double, 6> sign{};
  for (std::size_t q = 0; q < 6; ++q)
    sign[q] = faces[q] == PressureBoundary::Dirichlet ? -1.0 : 1.0;
  reflect_into_boundary_ghosts(d, sign, f);
}

/// Subtracts the global mean of the owned values. Collective.
void subtract_mean(const Domain& d, Field& f) {
  const double n =
      double(d.global_cells(0)) * double(d.global_cells(1)) * double(d.global_cells(2));
  const FieldView v = f.view();
  const double mean =
      d.comm().sum(local_sum(
          "mg::mean", f.owned(),
          KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += v(i, j, k); })) /
      n;
  for_each(
      "mg::remove_mean", f.owned(), KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) -= mean; });
}

long total(const std::array<long, 3>& cells) {
  return cells[0] * cells[1] * cells[2];
}

std::string shape(const std::array<long, 3>& cells, int dim) {
  std::string s = std::to_string(cells[0]);
  for (int a = 1; a < dim; ++a)
    s += "x" + std::to_string(cells[a]);
  return s;
}

/// Lexicographic numbering of a whole grid for the band solver: the axis with the fewest cells
/// runs fastest, which keeps the band narrow.
struct BandOrdering {
  std::array<long, 3> stride{0, 0, 0};
  long bandwidth = 0;

  BandOrdering(const std::array<long, 3>& cells, const std::array<bool, 3>& periodic, int dim) {
    std::array<int, 3> axes{0, 1, 2};
    std::stable_sort(axes.begin(), axes.begin() + dim,
                     [&](int a, int b) { return cells[a] < cells[b]; });
    long s = 1;
    for (int n = 0; n < dim; ++n) {
      const int a = axes[n];
      stride[a] = s;
      bandwidth = std::max(bandwidth, cells[a] > 1 ? s : 0L);
      if (periodic[a] && cells[a] > 2)
        bandwidth = std::max(bandwidth, (cells[a] - 1) * s); // the wrap-around neighbour
      s *= cells[a];
    }
  }
  long index(const long g[3]) const {
    return g[0] * stride[0] + g[1] * stride[1] + g[2] * stride[2];
  }
};

/// Taps of the transfers along one axis, as local indices into the other grid's array. The
/// boundary ghosts of both grids hold the operator's ghost values (mirror or negated) before a
/// transfer, so the same taps serve interior and boundary cells. Device-copyable.
struct Transfer {
  bool halved[3] = {false, false, false};
  long fine_offset[3] = {0, 0, 0};
  long coarse_offset[3] = {0, 0, 0};

  /// Bilinear prolongation along `a` for fine local index `i`: a fine cell takes 3/4 of its
  /// parent and 1/4 of the parent's neighbour on its side. Unhalved axes copy.
  KOKKOS_INLINE_FUNCTION void prolong_taps(int a, long i, long index[2], double weight[2]) const {
    const long f = i + fine_offset[a];
    if (!halved[a]) {
      index[0] = index[1] = f - coarse_offset[a];
      weight[0] = 1.0;
      weight[1] = 0.0;
      return;
    }
    const long g = f / 2; // f >= -1 on a halved axis' owned cells; owned f >= 0
    index[0] = g - coarse_offset[a];
    index[1] = index[0] + ((f & 1) ? 1 : -1);
    weight[0] = 0.75;
    weight[1] = 0.25;
  }

  /// Restriction along `a` for coarse local index `i`: the transpose of prolong_taps divided
  /// by 2 on a halved axis, weights (1, 3, 3, 1) / 8 on fine cells 2g-1 .. 2g+2.
  KOKKOS_INLINE_FUNCTION void restrict_taps(int a, long i, long index[4], double weight[4]) const {
    const long g = i + coarse_offset[a];
    if (!halved[a]) {
      index[0] = index[1] = index[2] = index[3] = g - fine_offset[a];
      weight[0] = weight[2] = weight[3] = 0.0;
      weight[1] = 1.0;
      return;
    }
    for (int t = 0; t < 4; ++t)
      index[t] = 2 * g - 1 + t - fine_offset[a];
    weight[0] = weight[3] = 0.125;
    weight[1] = weight[2] = 0.375;
  }
};

} // namespace

std::string MultigridPlan::describe() const {
  if (levels.empty())
    return "no levels";
  const int dim = levels.front().cells[2] > 1 ? 3 : 2;
  std::size_t grids = levels.size();
  std::string gathered_at;
  for (std::size_t l = 1; l < levels.size(); ++l)
    if (levels[l].gathered && !levels[l - 1].gathered) {
      --grids; // the same grid, laid out whole on every rank
      gathered_at = " (gathered onto every rank at " + shape(levels[l].cells, dim) + ")";
    }
  return shape(levels.front().cells, dim) + " -> " + shape(levels.back().cells, dim) + ", " +
         std::to_string(grids) + " levels" + gathered_at;
}

MultigridPlan plan_multigrid(const Domain& domain, const MultigridSpec& spec) {
  MultigridPlan plan;
  const int dim = domain.dim();
  const int size = domain.comm().size();
  std::array<long, 3> cells{domain.global_cells(0), domain.global_cells(1), domain.global_cells(2)};
  std::array<double, 3> h{domain.spacing(0), domain.spacing(1), domain.spacing(2)};
  bool gathered = false;
  plan.levels.push_back({cells, {false, false, false}, false});
  auto gather_here = [&]() {
    if (total(cells) > spec.max_gathered_cells) {
      plan.unavailable = "the grid where coarsening must continue on one rank (" +
                         shape(cells, dim) + ") has more than " +
                         std::to_string(spec.max_gathered_cells) +
                         " cells; use cell counts divisible by 2^k times the ranks per axis";
      return false;
    }
    plan.levels.push_back({cells, {false, false, false}, true});
    gathered = true;
    return true;
  };
  for (;;) {
    double h_min = h[0];
    for (int a = 1; a < dim; ++a)
      h_min = std::min(h_min, h[a]);
    std::array<bool, 3> halve{false, false, false};
    bool any = false;
    for (int a = 0; a < dim; ++a) {
      halve[a] = cells[a] % 2 == 0 && h[a] < 1.99 * h_min;
      any = any || halve[a];
    }
    if (!any)
      break;
    if (!gathered && size > 1) {
      bool fits = true;
      for (int a = 0; a < dim; ++a)
        fits = fits && (!halve[a] || cells[a] % (2L * domain.ranks_along(a)) == 0);
      if (!fits && !gather_here())
        return plan;
    }
    for (int a = 0; a < dim; ++a)
      if (halve[a]) {
        cells[a] /= 2;
        h[a] *= 2.0;
      }
    plan.levels.push_back({cells, halve, gathered});
  }
  if (!gathered && size > 1 && !gather_here())
    return plan;
  const BandOrdering band(cells, {domain.periodic(0), domain.periodic(1), domain.periodic(2)}, dim);
  const double n = double(total(cells)), entries = n * double(band.bandwidth + 1);
  if (entries > double(spec.max_direct_entries) ||
      n * double(band.bandwidth) * double(band.bandwidth) > double(1L << 31))
    plan.unavailable = "the coarsest grid (" + shape(cells, dim) +
                       ") is too large for the direct solver; use cell counts with more factors "
                       "of 2";
  return plan;
}

struct GeometricMultigrid::Level {
  std::unique_ptr<Domain> own_domain; ///< null on level 0, which uses the caller's domain
  const Domain* domain = nullptr;
  Field x, b, r;
  Field inv_diag; ///< 1 / diagonal of -L, boundary faces included
  /// Host copies of b and x (the views themselves on host memory spaces), for the gathers and the
  /// coarsest solve, allocated once.
  FieldView::HostMirror b_host, x_host;
  std::unique_ptr<HaloPlan> halo;
  CellLaplacian op;
};

GeometricMultigrid::GeometricMultigrid(const Domain& domain, const MultigridSpec& spec)
    : m_spec(spec), m_plan(plan_multigrid(domain, spec)), m_self(MPI_COMM_SELF) {
  if (!m_plan.unavailable.empty())
    throw Error("geometric multigrid is not available for this grid: " + m_plan.unavailable);
  m_singular = is_singular(domain, spec.faces);
  for (std::size_t l = 0; l < m_plan.levels.size(); ++l) {
    auto level = std::make_unique<Level>();
    const MultigridPlan::Level& p = m_plan.levels[l];
    if (l == 0) {
      level->domain = &domain;
    } else {
      DomainSpec s = domain.spec();
      s.cells = p.cells;
      for (int a = 0; a < 3; ++a)
        s.ranks[a] = p.gathered ? 1 : domain.ranks_along(a);
      level->own_domain = std::make_unique<Domain>(p.gathered ? m_self : domain.comm(), s);
      level->domain = level->own_domain.get();
    }
    const Domain& d = *level->domain;
    const std::string tag = "mg" + std::to_string(l);
    level->x = Field(d, Location::Cell, 1, tag + "::x");
    level->b = Field(d, Location::Cell, 1, tag + "::b");
    level->r = Field(d, Location::Cell, 1, tag + "::r");
    level->halo = std::make_unique<HaloPlan>(d, Location::Cell, 1);
    level->b_host = Kokkos::create_mirror_view(level->b.view());
    level->x_host = Kokkos::create_mirror_view(level->x.view());
    level->op = make_cell_laplacian(d, level->x.layout(), spec.faces);
    level->inv_diag = Field(d, Location::Cell, 1, tag + "::inv_diag");
    inverse_diagonal(level->op, level->x, level->inv_diag);
    m_levels.push_back(std::move(level));
  }
  setup_coarsest();
  for (std::size_t l = 1; l < m_plan.levels.size(); ++l)
    if (m_plan.levels[l].gathered && !m_plan.levels[l - 1].gathered)
      setup_gather(*m_levels[l - 1]->domain);
}

GeometricMultigrid::~GeometricMultigrid() = default;

const Domain& GeometricMultigrid::level_domain(int l) const {
  return *m_levels.at(l)->domain;
}

void GeometricMultigrid::setup_coarsest() {
  const Level& level = *m_levels.back();
  const Domain& d = *level.domain;
  const int dim = d.dim();
  const std::array<long, 3> cells{d.global_cells(0), d.global_cells(1), d.global_cells(2)};
  const BandOrdering band(cells, {d.periodic(0), d.periodic(1), d.periodic(2)}, dim);
  const long n = total(cells);
  m_direct = std::make_unique<BandedCholesky>(n, std::min(band.bandwidth, n - 1));
  m_direct_index.assign(static_cast<std::size_t>(n), 0);
  m_direct_rhs.assign(static_cast<std::size_t>(n), 0.0);
  const CellLaplacian& op = level.op;
  long g[3];
  std::size_t cell = 0; // x fastest, as the owned box is walked in solve_coarsest
  for (g[2] = 0; g[2] < cells[2]; ++g[2])
    for (g[1] = 0; g[1] < cells[1]; ++g[1])
      for (g[0] = 0; g[0] < cells[0]; ++g[0], ++cell) {
        const long row = band.index(g);
        m_direct_index[cell] = row;
        const bool grounded = m_singular && row == 0;
        double diag = 0.0;
        for (int a = 0; a < dim; ++a)
          for (int side = 0; side < 2; ++side) {
            long nb[3] = {g[0], g[1], g[2]};
            nb[a] += side == 0 ? -1 : 1;
            if (!op.periodic[a] && (nb[a] < 0 || nb[a] >= cells[a])) {
              diag += op.face_diag[2 * a + side];
              continue;
            }
            nb[a] = (nb[a] + cells[a]) % cells[a];
            diag += op.inv_h2[a];
            const long col = band.index(nb);
            if (grounded || (m_singular && col == 0))
              continue; // the grounded cell is decoupled: its value is fixed to 0
            if (col < row)
              m_direct->add(row, col, -op.inv_h2[a]);
            else if (col == row)
              diag -= op.inv_h2[a]; // a periodic axis of one cell couples a cell to itself
          }
        m_direct->add(row, row, grounded ? 1.0 : diag);
      }
  m_direct->factor();
}

void GeometricMultigrid::solve_coarsest(Level& level) {
  const auto& b = level.b_host;
  Kokkos::deep_copy(b, level.b.view());
  const IndexSpace& own = level.b.owned();
  std::size_t cell = 0;
  double mean = 0.0;
  for (long k = own.begin[2]; k < own.end[2]; ++k)
    for (long j = own.begin[1]; j < own.end[1]; ++j)
      for (long i = own.begin[0]; i < own.end[0]; ++i, ++cell) {
        m_direct_rhs[static_cast<std::size_t>(m_direct_index[cell])] = b(i, j, k);
        mean += b(i, j, k);
      }
  mean /= double(cell);
  if (m_singular) { // a consistent right-hand side, and the grounded cell's equation dropped
    for (double& v : m_direct_rhs)
      v -= mean;
    m_direct_rhs[0] = 0.0;
  }
  m_direct->solve(m_direct_rhs);
  double x_mean = 0.0;
  for (double v : m_direct_rhs)
    x_mean += v;
  x_mean = m_singular ? x_mean / double(cell) : 0.0;
  const auto& x = level.x_host;
  cell = 0;
  for (long k = own.begin[2]; k < own.end[2]; ++k)
    for (long j = own.begin[1]; j < own.end[1]; ++j)
      for (long i = own.begin[0]; i < own.end[0]; ++i, ++cell)
        x(i, j, k) = m_direct_rhs[static_cast<std::size_t>(m_direct_index[cell])] - x_mean;
  Kokkos::deep_copy(level.x.view(), x);
}

namespace {

/// Off-diagonal part of -L with the boundary ghosts at zero: the neighbours' sum. The boundary
/// faces' share of the diagonal is in the level's inverse diagonal instead.
template <int Dim>
KOKKOS_INLINE_FUNCTION double neighbour_sum(const CellLaplacian& op, const FieldView& x, long i,
                                            long j, long k) {
  double s = op.inv_h2[0] * (x(i - 1, j, k) + x(i + 1, j, k)) +
             op.inv_h2[1] * (x(i, j - 1, k) + x(i, j + 1, k));
  if (Dim == 3)
    s += op.inv_h2[2] * (x(i, j, k - 1) + x(i, j, k + 1));
  return s;
}

template <int Dim>
void smooth_kernel(const CellLaplacian& op, const FieldView& x, const FieldView& b,
                   const FieldView& inv_diag, const IndexSpace& own, int colour) {
  IndexSpace half = own;
  half.begin[0] = 0;
  half.end[0] = (own.end[0] - own.begin[0] + 1) / 2;
  const long first = own.begin[0], end = own.end[0];
  for_each(
      "mg::smooth_red_black", half, KOKKOS_LAMBDA(long ii, long j, long k) {
        const long parity = (first + op.offset[0] + j + op.offset[1] + k + op.offset[2]) & 1;
        const long i = first + 2 * ii + (parity ^ colour);
        if (i < end)
          x(i, j, k) = (b(i, j, k) + neighbour_sum<Dim>(op, x, i, j, k)) * inv_diag(i, j, k);
      });
}

template <int Dim>
void residual_kernel(const CellLaplacian& op, const FieldView& x, const FieldView& b,
                     const FieldView& inv_diag, const FieldView& r, const IndexSpace& own) {
  for_each(
      "mg::residual", own, KOKKOS_LAMBDA(long i, long j, long k) {
        r(i, j, k) =
            b(i, j, k) - (x(i, j, k) / inv_diag(i, j, k) - neighbour_sum<Dim>(op, x, i, j, k));
      });
}

} // namespace

void GeometricMultigrid::smooth(Level& level, int colour) {
  // The boundary ghosts of x stay zero while a level smooths (see vcycle).
  level.halo->fill(level.x);
  if (level.domain->dim() == 2)
    smooth_kernel<2>(level.op, level.x.view(), level.b.view(), level.inv_diag.view(),
                     level.x.owned(), colour);
  else
    smooth_kernel<3>(level.op, level.x.view(), level.b.view(), level.inv_diag.view(),
                     level.x.owned(), colour);
}

void GeometricMultigrid::residual(Level& level) {
  level.halo->fill(level.x);
  if (level.domain->dim() == 2)
    residual_kernel<2>(level.op, level.x.view(), level.b.view(), level.inv_diag.view(),
                       level.r.view(), level.x.owned());
  else
    residual_kernel<3>(level.op, level.x.view(), level.b.view(), level.inv_diag.view(),
                       level.r.view(), level.x.owned());
}

void GeometricMultigrid::apply_operator(Field& x, Field& out) {
  Level& level = *m_levels.front();
  level.halo->fill(x);
  const FieldView xv = x.view(), o = out.view();
  const CellLaplacian op = level.op;
  for_each(
      "mg::apply_operator", x.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double diag, neighbours;
        op.stencil(xv, i, j, k, diag, neighbours);
        o(i, j, k) = diag * xv(i, j, k) - neighbours;
      });
}

namespace {

Transfer make_transfer(const MultigridPlan::Level& coarse_plan, const Field& fine,
                       const Field& coarse) {
  Transfer t;
  for (int a = 0; a < 3; ++a) {
    t.halved[a] = coarse_plan.halved[a];
    t.fine_offset[a] = fine.layout().global_offset[a];
    t.coarse_offset[a] = coarse.layout().global_offset[a];
  }
  return t;
}

} // namespace

void GeometricMultigrid::fill_ghosts(Level& level, Field& f) {
  level.halo->fill(f);
  fill_boundary_ghosts(*level.domain, m_spec.faces, f);
}

namespace {

/// The taps along axis `a` of prolongation (Taps = 2) or restriction (Taps = 4).
template <int Taps>
KOKKOS_INLINE_FUNCTION void transfer_taps(const Transfer& t, int a, long x, long* index,
                                          double* weight) {
  if constexpr (Taps == 2)
    t.prolong_taps(a, x, index, weight);
  else
    t.restrict_taps(a, x, index, weight);
}

/// One transfer between levels, the pair prolongation (Taps = 2 per axis, added to `out`) and
/// restriction (Taps = 4, written to `out`): out(x) = sum over the tensor product of x's per-axis
/// taps of the weights (multiplied x, y, z) times `in`.
template <int Dim, int Taps>
void transfer_kernel(const char* label, const Transfer& t, const FieldView& in,
                     const FieldView& out, const IndexSpace& owned) {
  for_each(
      label, owned, KOKKOS_LAMBDA(long i, long j, long k) {
        long ia[Taps], ja[Taps], ka[Taps];
        double wi[Taps], wj[Taps], wk[Taps];
        transfer_taps<Taps>(t, 0, i, ia, wi);
        transfer_taps<Taps>(t, 1, j, ja, wj);
        double sum = 0.0;
        if (Dim == 2) {
          for (int c2 = 0; c2 < Taps; ++c2)
            for (int c1 = 0; c1 < Taps; ++c1)
              sum += wi[c1] * wj[c2] * in(ia[c1], ja[c2], k);
        } else {
          transfer_taps<Taps>(t, 2, k, ka, wk);
          for (int c3 = 0; c3 < Taps; ++c3)
            for (int c2 = 0; c2 < Taps; ++c2)
              for (int c1 = 0; c1 < Taps; ++c1)
                sum += wi[c1] * wj[c2] * wk[c3] * in(ia[c1], ja[c2], ka[c3]);
        }
        if constexpr (Taps == 2)
          out(i, j, k) += sum;
        else
          out(i, j, k) = sum;
      });
}

} // namespace

void GeometricMultigrid::prolong_add(int coarse, Field& coarse_x, Field& fine) {
  Level& c = *m_levels.at(static_cast<std::size_t>(coarse));
  fill_ghosts(c, coarse_x);
  const Transfer t = make_transfer(m_plan.levels[static_cast<std::size_t>(coarse)], fine, coarse_x);
  if (c.domain->dim() == 2)
    transfer_kernel<2, 2>("mg::prolong_add", t, coarse_x.view(), fine.view(), fine.owned());
  else
    transfer_kernel<3, 2>("mg::prolong_add", t, coarse_x.view(), fine.view(), fine.owned());
}

void GeometricMultigrid::restrict_to(int coarse, Field& fine_r, Field& coarse_b) {
  Level& f = *m_levels.at(static_cast<std::size_t>(coarse - 1));
  fill_ghosts(f, fine_r);
  const Transfer t =
      make_transfer(m_plan.levels[static_cast<std::size_t>(coarse)], fine_r, coarse_b);
  if (f.domain->dim() == 2)
    transfer_kernel<2, 4>("mg::restrict", t, fine_r.view(), coarse_b.view(), coarse_b.owned());
  else
    transfer_kernel<3, 4>("mg::restrict", t, fine_r.view(), coarse_b.view(), coarse_b.owned());
}

void GeometricMultigrid::setup_gather(const Domain& d) {
  // Every rank's owned box, x fastest, concatenated in rank order: counts, displacements and
  // boxes, fixed for the life of the hierarchy.
  GatherPlan& g = m_gather;
  const std::size_t n = static_cast<std::size_t>(d.comm().size());
  g.counts.assign(n, 0);
  g.displs.assign(n, 0);
  g.begin.assign(n, {0, 0, 0});
  g.end.assign(n, {0, 0, 0});
  for (int cz = 0; cz < d.ranks_along(2); ++cz)
    for (int cy = 0; cy < d.ranks_along(1); ++cy)
      for (int cx = 0; cx < d.ranks_along(0); ++cx) {
        const std::size_t r = static_cast<std::size_t>(d.rank_of({cx, cy, cz}));
        const int c[3] = {cx, cy, cz};
        long count = 1;
        for (int a = 0; a < 3; ++a) {
          g.begin[r][a] = d.cell_offset(a, c[a]);
          g.end[r][a] = g.begin[r][a] + d.cell_count(a, c[a]);
          count *= d.cell_count(a, c[a]);
        }
        g.counts[r] = static_cast<int>(count);
      }
  std::partial_sum(g.counts.begin(), g.counts.end() - 1, g.displs.begin() + 1);
  g.mine.assign(static_cast<std::size_t>(g.counts[static_cast<std::size_t>(d.comm().rank())]), 0);
  g.all.assign(static_cast<std::size_t>(g.displs.back() + g.counts.back()), 0.0);
}

void GeometricMultigrid::gather(Level& from, Level& to) {
  // This rank's owned box of `from.b`, to every rank, unpacked into the whole grid of `to.b`.
  GatherPlan& g = m_gather;
  Kokkos::deep_copy(from.b_host, from.b.view());
  const IndexSpace& own = from.b.owned();
  std::size_t p = 0;
  for (long k = own.begin[2]; k < own.end[2]; ++k)
    for (long j = own.begin[1]; j < own.end[1]; ++j)
      for (long i = own.begin[0]; i < own.end[0]; ++i)
        g.mine[p++] = from.b_host(i, j, k);
  MPI_Allgatherv(g.mine.data(), static_cast<int>(g.mine.size()), MPI_DOUBLE, g.all.data(),
                 g.counts.data(), g.displs.data(), MPI_DOUBLE, from.domain->comm().raw());
  const auto& shift = to.b.layout().global_offset;
  for (std::size_t r = 0; r < g.counts.size(); ++r) {
    p = static_cast<std::size_t>(g.displs[r]);
    for (long k = g.begin[r][2]; k < g.end[r][2]; ++k)
      for (long j = g.begin[r][1]; j < g.end[r][1]; ++j)
        for (long i = g.begin[r][0]; i < g.end[r][0]; ++i)
          to.b_host(i - shift[0], j - shift[1], k - shift[2]) = g.all[p++];
  }
  Kokkos::deep_copy(to.b.view(), to.b_host);
}

void GeometricMultigrid::scatter(Level& from, Level& to) {
  copy_owned(from.x, to.x); // the whole grid is on every rank: each takes its own box
}

void GeometricMultigrid::vcycle(int l) {
  Level& level = *m_levels[static_cast<std::size_t>(l)];
  if (l + 1 == level_count()) {
    solve_coarsest(level);
    return;
  }
  Level& coarse = *m_levels[static_cast<std::size_t>(l + 1)];
  if (m_plan.levels[static_cast<std::size_t>(l + 1)].gathered &&
      !m_plan.levels[static_cast<std::size_t>(l)].gathered) {
    gather(level, coarse); // same grid, now whole on every rank
    vcycle(l + 1);
    scatter(coarse, level);
    return;
  }
  fill_value(level.x, level.x.ghosted(), 0.0); // boundary ghosts stay 0 until prolong_add
  for (int s = 0; s < m_spec.pre_sweeps; ++s) {
    smooth(level, 0);
    smooth(level, 1);
  }
  residual(level);
  restrict_to(l + 1, level.r, coarse.b);
  vcycle(l + 1);
  prolong_add(l + 1, coarse.x, level.x);
  for (int s = 0; s < m_spec.post_sweeps; ++s) {
    smooth(level, 1);
    smooth(level, 0);
  }
}

void GeometricMultigrid::remove_mean(Field& f) {
  subtract_mean(*m_levels.front()->domain, f);
}

Field& GeometricMultigrid::input() {
  return m_levels.front()->b;
}

const Field& GeometricMultigrid::output() const {
  return m_levels.front()->x;
}

void GeometricMultigrid::apply_in_place() {
  vcycle(0);
}

void GeometricMultigrid::apply(const Field& b, Field& x) {
  Level& top = *m_levels.front();
  copy(b, top.b);
  if (m_singular) // B = P V P with P the projection onto mean-zero fields: still symmetric
    remove_mean(top.b);
  vcycle(0);
  if (m_singular)
    remove_mean(top.x);
  copy(top.x, x);
}

} // namespace linear
} // namespace undertow
