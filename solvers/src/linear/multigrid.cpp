#include "undertow/solvers/linear/multigrid.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/solvers/linear/line_relaxation.hpp"

#include <algorithm>
#include <chrono>
#include <mpi.h>
#include <numeric>
#include <sstream>
#include <tuple>

namespace undertow {
namespace linear {

namespace {

// Kernels live in free functions: CUDA's extended lambdas may not sit in constructors or in
// private member functions.

/// Boundary ghosts: mirror at Neumann faces, negated at Dirichlet faces.
void fill_boundary_ghosts(const Domain& d, const PressureFaces& faces, Field& f) {
  std::array<double, 6> sign{};
  for (std::size_t q = 0; q < 6; ++q)
    sign[q] = faces[q] == PressureBoundary::Dirichlet ? -1.0 : 1.0;
  reflect_into_boundary_ghosts(d, sign, f);
}

/// Subtracts the global mean of the owned values, weighted by the cell volumes on a stretched
/// grid: the part of a right-hand side outside the range of a singular -L (whose range is the
/// fields of zero volume-weighted sum), and the projection that keeps the V-cycle symmetric in
/// the volume-weighted product. Collective.
void subtract_mean(const Domain& d, Field& f) {
  const FieldView v = f.view();
  double mean = 0.0;
  if (d.all_uniform()) {
    const double n =
        double(d.global_cells(0)) * double(d.global_cells(1)) * double(d.global_cells(2));
    mean = d.comm().sum(local_sum(
               "mg::mean", f.owned(),
               KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += v(i, j, k); })) /
           n;
  } else {
    const GridGeometry geo = f.geometry();
    const int dim = d.dim();
    mean = d.comm().sum(local_sum(
               "mg::weighted_mean", f.owned(),
               KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
                 acc += geo.control_volume(dim, i, j, k) * v(i, j, k);
               })) /
           d.box_volume();
  }
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

/// The taps along one halved axis of cells of varying widths (an odd cell count, or a level
/// below one), tabulated by global index: prolongation is linear interpolation between cell
/// centres, restriction its transpose weighted by fine over coarse width (w_c R = P^T w_f).
struct TransferTable {
  Kokkos::View<long*, MemorySpace> other; ///< per fine cell: its second coarse tap
  Kokkos::View<double*, MemorySpace> parent_weight, other_weight; ///< per fine cell
  Kokkos::View<double*, MemorySpace> restrict_weight; ///< per coarse cell g: fine 2g-1 .. 2g+2
};

/// Taps of the transfers along one axis, as local indices into the other grid's array. The
/// boundary ghosts of both grids hold the operator's ghost values (mirror or negated) before a
/// transfer, so the same taps serve interior and boundary cells. Device-copyable.
struct Transfer {
  bool halved[3] = {false, false, false};
  bool tabled[3] = {false, false, false}; ///< halved with cells of varying widths: the tables
  TransferTable table[3];
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
    if (tabled[a]) {
      index[1] = table[a].other(f) - coarse_offset[a];
      weight[0] = table[a].parent_weight(f);
      weight[1] = table[a].other_weight(f);
      return;
    }
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
    if (tabled[a]) {
      for (int t = 0; t < 4; ++t) {
        weight[t] = table[a].restrict_weight(4 * g + t);
        // A tap of weight 0 may lie beyond the ghosts (past an odd end): read the parent's cell.
        index[t] = (weight[t] != 0.0 ? 2 * g - 1 + t : 2 * g) - fine_offset[a];
      }
      return;
    }
    for (int t = 0; t < 4; ++t)
      index[t] = 2 * g - 1 + t - fine_offset[a];
    weight[0] = weight[3] = 0.125;
    weight[1] = weight[2] = 0.375;
  }
};

/// The tables of one halved axis from fine widths `w` (global) to their halving: fine cells 2g
/// and 2g + 1 form coarse cell g; an odd count leaves the last coarse cell one child. A boundary
/// ghost's value is sign times its mirror cell's (+1 Neumann, -1 Dirichlet): restriction folds
/// it into that cell. Periodic axes wrap. Not collective.
TransferTable make_transfer_table(const std::vector<double>& w, bool periodic, double low_sign,
                                  double high_sign) {
  const long nf = static_cast<long>(w.size()), nc = (nf + 1) / 2;
  std::vector<double> xf(static_cast<std::size_t>(nf)), wc(static_cast<std::size_t>(nc), 0.0),
      xc(static_cast<std::size_t>(nc));
  double edge = 0.0;
  for (long f = 0; f < nf; ++f) {
    xf[static_cast<std::size_t>(f)] = edge + 0.5 * w[static_cast<std::size_t>(f)];
    edge += w[static_cast<std::size_t>(f)];
    wc[static_cast<std::size_t>(f / 2)] += w[static_cast<std::size_t>(f)];
  }
  const double length = edge;
  edge = 0.0;
  for (long g = 0; g < nc; ++g) {
    xc[static_cast<std::size_t>(g)] = edge + 0.5 * wc[static_cast<std::size_t>(g)];
    edge += wc[static_cast<std::size_t>(g)];
  }
  // Coarse centres with one ghost each side: mirrored, or the periodic images.
  auto centre = [&](long g) {
    if (g < 0)
      return periodic ? xc[static_cast<std::size_t>(nc - 1)] - length : -xc[0];
    if (g >= nc)
      return periodic ? xc[0] + length : 2.0 * length - xc[static_cast<std::size_t>(nc - 1)];
    return xc[static_cast<std::size_t>(g)];
  };
  std::vector<long> other(static_cast<std::size_t>(nf));
  std::vector<double> wp(static_cast<std::size_t>(nf)), wo(static_cast<std::size_t>(nf));
  for (long f = 0; f < nf; ++f) {
    const std::size_t q = static_cast<std::size_t>(f);
    const long p = f / 2;
    const double d = xf[q] - centre(p);
    if (std::abs(d) <= 1e-12 * wc[static_cast<std::size_t>(p)]) { // a single child
      other[q] = p;
      wp[q] = 1.0;
      wo[q] = 0.0;
      continue;
    }
    other[q] = d < 0 ? p - 1 : p + 1;
    wo[q] = std::abs(d) / std::abs(centre(other[q]) - centre(p));
    wp[q] = 1.0 - wo[q];
  }
  // Restriction of coarse g from fine images 2g-1 .. 2g+2: the weight with which P takes g into
  // that fine cell, times its width over g's.
  std::vector<double> rw(static_cast<std::size_t>(4 * nc), 0.0);
  for (long g = 0; g < nc; ++g)
    for (int t = 0; t < 4; ++t) {
      const long image = 2 * g - 1 + t;
      double weight = 0.0;
      if (periodic) {
        const long k = image < 0 ? -1 : image >= nf ? 1 : 0, f = image - k * nf;
        const std::size_t q = static_cast<std::size_t>(f);
        if (f / 2 + k * nc == g)
          weight += wp[q];
        if (other[q] + k * nc == g)
          weight += wo[q];
      } else if (image >= 0 && image < nf) {
        const std::size_t q = static_cast<std::size_t>(image);
        if (image / 2 == g)
          weight += wp[q];
        if (other[q] == g)
          weight += wo[q];
        if (other[q] == -1 && g == 0)
          weight += low_sign * wo[q];
        if (other[q] == nc && g == nc - 1)
          weight += high_sign * wo[q];
      }
      if (weight != 0.0) {
        const long f = ((image % nf) + nf) % nf;
        weight *= w[static_cast<std::size_t>(f)] / wc[static_cast<std::size_t>(g)];
      }
      rw[static_cast<std::size_t>(4 * g + t)] = weight;
    }
  auto to_device = [](const auto& v, const char* label) {
    Kokkos::View<typename std::decay_t<decltype(v)>::value_type*, MemorySpace> d(std::string(label),
                                                                                 v.size());
    auto h = Kokkos::create_mirror_view(d);
    for (std::size_t q = 0; q < v.size(); ++q)
      h(q) = v[q];
    Kokkos::deep_copy(d, h);
    return d;
  };
  TransferTable t;
  t.other = to_device(other, "mg::transfer_other");
  t.parent_weight = to_device(wp, "mg::transfer_parent_weight");
  t.other_weight = to_device(wo, "mg::transfer_other_weight");
  t.restrict_weight = to_device(rw, "mg::transfer_restrict_weight");
  return t;
}

/// The widths of the halving of `w`: pairs of cells, the last one alone if the count is odd.
std::vector<double> halved_widths(const std::vector<double>& w) {
  std::vector<double> c((w.size() + 1) / 2, 0.0);
  for (std::size_t f = 0; f < w.size(); ++f)
    c[f / 2] += w[f];
  return c;
}

bool all_equal(const std::vector<double>& w) {
  return std::all_of(w.begin(), w.end(), [&](double v) { return v == w.front(); });
}

} // namespace

std::string MultigridPlan::describe() const {
  if (levels.empty())
    return "no levels";
  const int dim = levels.front().cells[2] > 1 ? 3 : 2;
  std::size_t grids = levels.size();
  std::string moves;
  for (std::size_t l = 1; l < levels.size(); ++l)
    if (levels[l].agglomerated) {
      --grids; // the same grid, on fewer ranks
      moves += std::string(moves.empty()
                               ? "; " + std::to_string(levels.front().rank_count()) + " ranks to "
                               : ", to ") +
               std::to_string(levels[l].rank_count()) + " at " + shape(levels[l].cells, dim);
    }
  return shape(levels.front().cells, dim) + " -> " + shape(levels.back().cells, dim) + ", " +
         std::to_string(grids) + " levels" + moves;
}

namespace {

/// Empty if a grid of `cells` may be the coarsest, solved directly: at most max_coarsest_cells
/// cells and max_direct_entries band entries; else why not. Not collective.
std::string direct_solve_fits(const std::array<long, 3>& cells, const std::array<bool, 3>& periodic,
                              int dim, const MultigridSpec& spec) {
  const BandOrdering band(cells, periodic, dim);
  const double n = double(total(cells)), entries = n * double(band.bandwidth + 1);
  if (entries > double(spec.max_direct_entries) ||
      n * double(band.bandwidth) * double(band.bandwidth) > double(1L << 31))
    return "needs " + std::to_string(long(entries)) +
           " band entries in its direct solve, more than the limit of " +
           std::to_string(spec.max_direct_entries);
  if (n > double(spec.max_coarsest_cells))
    return "has more than " + std::to_string(spec.max_coarsest_cells) +
           " cells, the most a direct coarsest solve may have";
  return "";
}

} // namespace

MultigridPlan plan_multigrid(const DomainSpec& grid, const std::array<int, 3>& ranks,
                             const MultigridSpec& given) {
  MultigridSpec spec = given;
  if (spec.device_coarsest)
    spec.max_coarsest_cells =
        std::min(spec.max_coarsest_cells, MultigridSpec::kMaxDenseCoarsestCells);
  MultigridPlan plan;
  const int dim = grid.dim;
  std::array<long, 3> cells = grid.cells;
  std::array<std::vector<double>, 3> widths;
  for (int a = 0; a < 3; ++a)
    widths[a] = grid.cell_widths(a);
  std::array<int, 3> q = ranks;
  // The balanced split of the current grid on q (a new or agglomerated level's).
  auto balanced = [&]() {
    std::array<std::vector<long>, 3> split;
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c <= q[a]; ++c)
        split[a].push_back(split_offset(cells[a], q[a], c));
    return split;
  };
  plan.levels.push_back({cells, {false, false, false}, q, false, widths, balanced()});
  // The same grid on the process grid `to`, if that has fewer ranks.
  auto agglomerate = [&](const std::array<int, 3>& to) {
    if (to != q) {
      q = to;
      plan.levels.push_back({cells, {false, false, false}, q, true, widths, balanced()});
    }
  };
  for (;;) {
    // Which axes to halve depends on the grid alone, so every rank count has the same grids:
    // those whose (mean) spacing is within a factor 2 of the finest, the even ones first, the
    // odd ones too (their last coarse cell has one child) while the grid is too large to stop.
    // In 2D, line relaxation smooths along both axes, so with it both are halved together (full
    // coarsening), which keeps its iterations flat on any stretching. In 3D, cells much longer
    // along one axis than along the other two couple strongly in planes, which lines do not
    // solve: halving by spacing then does better (on the clustered duct grids of
    // test_multigrid, 8 and 20 iterations against 31 and 43 with full coarsening), though not
    // flat.
    const bool full_coarsening = spec.line_relaxation && dim == 2;
    std::array<double, 3> h{};
    double h_min = 0.0;
    for (int a = 0; a < dim; ++a) {
      h[a] = grid.length[a] / double(cells[a]);
      h_min = a == 0 ? h[a] : std::min(h_min, h[a]);
    }
    std::array<bool, 3> halve{false, false, false}, odd{false, false, false};
    bool any = false, any_odd = false;
    for (int a = 0; a < dim; ++a) {
      const bool candidate = cells[a] >= 2 && (full_coarsening || h[a] < 1.99 * h_min);
      halve[a] = candidate && cells[a] % 2 == 0;
      odd[a] = candidate && cells[a] % 2 == 1;
      any = any || halve[a];
      any_odd = any_odd || odd[a];
    }
    const bool too_large = !direct_solve_fits(cells, grid.periodic, dim, spec).empty();
    if (full_coarsening && (any || too_large)) {
      // Both axes together, odd counts too, so that neither runs down to one cell while the
      // other stays fine.
      for (int a = 0; a < dim; ++a)
        halve[a] = halve[a] || odd[a];
      any = any || any_odd;
    } else if (!any && any_odd && too_large) {
      halve = odd;
      any = true;
    }
    if (!any)
      break;
    std::array<long, 3> coarse = cells;
    for (int a = 0; a < dim; ++a)
      if (halve[a])
        coarse[a] = (cells[a] + 1) / 2;
    // Each coarse cell on the rank of its first child: a rank's coarse box is its fine box
    // halved, rounded up at both ends. A rank whose coarse box would be narrower than 2 cells
    // along an axis (restriction reads 2 ghost layers) goes onto fewer ranks first.
    auto halved_split = [&](const std::vector<long>& fine) {
      std::vector<long> coarse_split;
      for (long offset : fine)
        coarse_split.push_back((offset + 1) / 2);
      return coarse_split;
    };
    auto narrowest = [](const std::vector<long>& split) {
      long least = split.back();
      for (std::size_t c = 0; c + 1 < split.size(); ++c)
        least = std::min(least, split[c + 1] - split[c]);
      return least;
    };
    // The split checked is the level's own while it keeps its ranks (a halved level's split is
    // not the balanced one), the balanced one on fewer.
    std::array<int, 3> wide = q;
    for (int a = 0; a < dim; ++a)
      while (halve[a] && wide[a] > 1) {
        std::vector<long> fine = plan.levels.back().split[a];
        if (wide[a] != q[a]) {
          fine.clear();
          for (int c = 0; c <= wide[a]; ++c)
            fine.push_back(split_offset(cells[a], wide[a], c));
        }
        if (narrowest(halved_split(fine)) >= 2)
          break;
        --wide[a];
      }
    agglomerate(wide);
    std::array<std::vector<long>, 3> split = plan.levels.back().split;
    for (int a = 0; a < dim; ++a)
      if (halve[a])
        split[a] = halved_split(split[a]);
    cells = coarse;
    for (int a = 0; a < dim; ++a)
      if (halve[a])
        widths[a] = halved_widths(widths[a]);
    plan.levels.push_back({cells, halve, q, false, widths, split});
    // A small level goes onto fewer ranks: about half of them along the axis with the most.
    std::array<int, 3> fewer = q;
    while (fewer[0] * fewer[1] * fewer[2] > 1 &&
           total(cells) < spec.min_cells_per_rank * fewer[0] * fewer[1] * fewer[2]) {
      const int a = int(std::max_element(fewer.begin(), fewer.end()) - fewer.begin());
      fewer[a] = (fewer[a] + 1) / 2;
    }
    agglomerate(fewer);
  }
  agglomerate({1, 1, 1}); // the coarsest solve
  const std::string too_large = direct_solve_fits(cells, grid.periodic, dim, spec);
  if (!too_large.empty())
    plan.unavailable = "the coarsest grid (" + shape(cells, dim) + ") " + too_large;
  return plan;
}

MultigridPlan plan_multigrid(const Domain& domain, const MultigridSpec& spec) {
  return plan_multigrid(
      domain.spec(), {domain.ranks_along(0), domain.ranks_along(1), domain.ranks_along(2)}, spec);
}

namespace {

/// Global cell boxes [begin, end) per axis.
struct Box {
  std::array<long, 3> begin{0, 0, 0}, end{0, 0, 0};
  long size() const {
    long n = 1;
    for (int a = 0; a < 3; ++a)
      n *= std::max(end[a] - begin[a], 0L);
    return n;
  }
  Box operator&(const Box& o) const {
    Box c;
    for (int a = 0; a < 3; ++a) {
      c.begin[a] = std::max(begin[a], o.begin[a]);
      c.end[a] = std::max(c.begin[a], std::min(end[a], o.end[a]));
    }
    return c;
  }
};

/// The box of rank `r` of a level (ranks numbered x fastest, as Domain numbers them); empty for
/// a rank the level does not live on.
Box box_of(const MultigridPlan::Level& level, int r) {
  Box b;
  if (r >= level.rank_count())
    return b;
  const int c[3] = {r % level.ranks[0], (r / level.ranks[0]) % level.ranks[1],
                    r / (level.ranks[0] * level.ranks[1])};
  for (int a = 0; a < 3; ++a) {
    b.begin[a] = level.split[a][static_cast<std::size_t>(c[a])];
    b.end[a] = level.split[a][static_cast<std::size_t>(c[a] + 1)];
  }
  return b;
}

/// The all-to-all of one change of ranks of a grid: each rank sends the part of its box in the
/// `from` layout that each rank owns in the `to` layout. Sizes fixed at set-up.
struct Regrid {
  std::vector<Box> send, recv; ///< per rank of the communicator
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<double> send_buffer, recv_buffer;

  Regrid(const MultigridPlan::Level& from, const MultigridPlan::Level& to, int me, int size) {
    const Box mine_from = box_of(from, me), mine_to = box_of(to, me);
    for (int r = 0; r < size; ++r) {
      send.push_back(mine_from & box_of(to, r));
      recv.push_back(box_of(from, r) & mine_to);
      send_counts.push_back(static_cast<int>(send.back().size()));
      recv_counts.push_back(static_cast<int>(recv.back().size()));
    }
    send_displs.assign(send_counts.size(), 0);
    recv_displs.assign(recv_counts.size(), 0);
    std::partial_sum(send_counts.begin(), send_counts.end() - 1, send_displs.begin() + 1);
    std::partial_sum(recv_counts.begin(), recv_counts.end() - 1, recv_displs.begin() + 1);
    send_buffer.assign(static_cast<std::size_t>(send_displs.back() + send_counts.back()), 0.0);
    recv_buffer.assign(static_cast<std::size_t>(recv_displs.back() + recv_counts.back()), 0.0);
  }

  /// Moves the owned values of `in` (host array, local index = global - in_offset) into `out`.
  /// `out` is untouched on a rank that receives nothing. Collective over `comm`.
  void run(const Communicator& comm, const FieldView::HostMirror& in,
           const std::array<long, 3>& in_offset, const FieldView::HostMirror& out,
           const std::array<long, 3>& out_offset) {
    std::size_t p = 0;
    for (const Box& b : send)
      for (long k = b.begin[2]; k < b.end[2]; ++k)
        for (long j = b.begin[1]; j < b.end[1]; ++j)
          for (long i = b.begin[0]; i < b.end[0]; ++i)
            send_buffer[p++] = in(i - in_offset[0], j - in_offset[1], k - in_offset[2]);
    MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE,
                  recv_buffer.data(), recv_counts.data(), recv_displs.data(), MPI_DOUBLE,
                  comm.raw());
    p = 0;
    for (const Box& b : recv)
      for (long k = b.begin[2]; k < b.end[2]; ++k)
        for (long j = b.begin[1]; j < b.end[1]; ++j)
          for (long i = b.begin[0]; i < b.end[0]; ++i)
            out(i - out_offset[0], j - out_offset[1], k - out_offset[2]) = recv_buffer[p++];
  }
};

} // namespace

struct GeometricMultigrid::Level {
  std::unique_ptr<Communicator> own_comm; ///< an agglomerated level's ranks
  std::unique_ptr<Domain> own_domain;     ///< null on level 0, which uses the caller's domain
  const Domain* domain = nullptr;
  Field x, b, r;
  Field inv_diag; ///< 1 / diagonal of -L, boundary faces included
  /// Host copies of b and x (the views themselves on host memory spaces), for the changes of
  /// ranks and the coarsest solve, allocated once.
  FieldView::HostMirror b_host, x_host;
  std::unique_ptr<HaloPlan> halo, halo_r; ///< for 1 ghost layer (x, b) and r's
  CellLaplacian op;
  bool uniform = true; ///< every axis of one cell width: the smoother's fast kernels
  std::unique_ptr<LineRelaxation> lines; ///< MultigridSpec::line_relaxation's smoother
  /// From the previous level, per halved axis of varying widths (Transfer::tabled).
  std::array<bool, 3> tabled{false, false, false};
  std::array<TransferTable, 3> tables;
  /// On an agglomerated level: the moves of b onto its ranks and of x back, over the previous
  /// level's ranks.
  std::unique_ptr<Regrid> down, up;
};

GeometricMultigrid::GeometricMultigrid(const Domain& domain, const MultigridSpec& spec)
    : m_spec(spec), m_plan(plan_multigrid(domain, spec)) {
  if (!m_plan.unavailable.empty())
    throw Error("geometric multigrid is not available for this grid: " + m_plan.unavailable);
  m_singular = is_singular(domain, spec.faces);
  for (std::size_t l = 0; l < m_plan.levels.size(); ++l) {
    const MultigridPlan::Level& p = m_plan.levels[l];
    if (l > 0 && !active(static_cast<int>(l) - 1)) { // left out of a finer level already
      m_levels.push_back(nullptr);
      continue;
    }
    auto level = std::make_unique<Level>();
    if (l == 0) {
      level->domain = &domain;
    } else {
      const Communicator* comm = &m_levels.back()->domain->comm();
      if (p.agglomerated) {
        const Communicator& above = *comm;
        level->down = std::make_unique<Regrid>(m_plan.levels[l - 1], p, above.rank(), above.size());
        level->up = std::make_unique<Regrid>(p, m_plan.levels[l - 1], above.rank(), above.size());
        const bool in = above.rank() < p.rank_count();
        level->own_comm = std::make_unique<Communicator>(above.split(in ? 0 : 1, above.rank()));
        if (!in) {
          // Left out: keeps the moves (it sends its part of b, and receives its part of x).
          m_levels.push_back(std::move(level));
          continue;
        }
        comm = level->own_comm.get();
      }
      DomainSpec s = domain.spec();
      s.cells = p.cells;
      s.ranks = p.ranks;
      s.splits = p.split;
      s.faces = {}; // a coarse level's cell widths are the plan's (p.widths)
      level->own_domain = std::make_unique<Domain>(*comm, s);
      level->domain = level->own_domain.get();
    }
    const Domain& d = *level->domain;
    const std::string tag = "mg" + std::to_string(l);
    level->x = Field(d, Location::Cell, 1, tag + "::x");
    level->b = Field(d, Location::Cell, 1, tag + "::b");
    level->r = Field(d, Location::Cell, kRestrictionGhost, tag + "::r");
    level->halo = std::make_unique<HaloPlan>(d, Location::Cell, 1);
    level->halo_r = std::make_unique<HaloPlan>(d, Location::Cell, kRestrictionGhost);
    level->b_host = Kokkos::create_mirror_view(level->b.view());
    level->x_host = Kokkos::create_mirror_view(level->x.view());
    level->op = make_cell_laplacian(d, level->x.layout(), spec.faces, p.widths);
    for (int a = 0; a < d.dim(); ++a) {
      level->uniform = level->uniform && level->op.uniform[a];
      const std::vector<double>& fine = m_plan.levels[l > 0 ? l - 1 : 0].widths[a];
      level->tabled[a] = p.halved[a] && !(all_equal(fine) && fine.size() % 2 == 0);
      if (level->tabled[a]) {
        auto sign = [&](int q) {
          return spec.faces[q] == PressureBoundary::Dirichlet ? -1.0 : 1.0;
        };
        level->tables[a] = make_transfer_table(fine, d.periodic(a), sign(2 * a), sign(2 * a + 1));
      }
    }
    level->inv_diag = Field(d, Location::Cell, 1, tag + "::inv_diag");
    inverse_diagonal(level->op, level->x, level->inv_diag);
    if (spec.line_relaxation)
      level->lines = std::make_unique<LineRelaxation>(d, level->op, level->inv_diag);
    m_levels.push_back(std::move(level));
  }
  if (active(level_count() - 1))
    setup_coarsest();
}

GeometricMultigrid::~GeometricMultigrid() = default;

bool GeometricMultigrid::active(int l) const {
  const auto& level = m_levels.at(static_cast<std::size_t>(l));
  return level && level->domain;
}

const Domain& GeometricMultigrid::level_domain(int l) const {
  if (!active(l))
    throw Error("multigrid level " + std::to_string(l) + " does not live on this rank");
  return *m_levels[static_cast<std::size_t>(l)]->domain;
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
  m_direct_volume.clear();
  const CellLaplacian& op = level.op;
  // The couplings of the axes of varying widths, the same numbers as the kernels' (host copies).
  const auto& widths = m_plan.levels.back().widths;
  std::array<AxisCouplings, 3> varying;
  for (int a = 0; a < dim; ++a)
    if (!op.uniform[a])
      varying[a] =
          axis_couplings(widths[a], op.periodic[a], m_spec.faces[2 * a], m_spec.faces[2 * a + 1]);
  // Towards the lower (side 0) or upper neighbour of global cell g along a, or its boundary face.
  auto coupling = [&](int a, long g, int side) {
    if (op.uniform[a]) {
      const bool face = !op.periodic[a] && (side == 0 ? g == 0 : g == cells[a] - 1);
      return face ? op.face_diag[2 * a + side] : op.inv_h2[a];
    }
    const auto& c = side == 0 ? varying[a].lower : varying[a].upper;
    return c[static_cast<std::size_t>(g)];
  };
  long g[3];
  std::size_t cell = 0; // x fastest, as the owned box is walked in solve_coarsest
  for (g[2] = 0; g[2] < cells[2]; ++g[2])
    for (g[1] = 0; g[1] < cells[1]; ++g[1])
      for (g[0] = 0; g[0] < cells[0]; ++g[0], ++cell) {
        const long row = band.index(g);
        m_direct_index[cell] = row;
        // Cells of varying widths: the rows of volume x (-L), which is symmetric.
        double volume = 1.0;
        if (!level.uniform) {
          for (int a = 0; a < dim; ++a)
            volume *= widths[a][static_cast<std::size_t>(g[a])];
          m_direct_volume.push_back(volume);
        }
        const bool grounded = m_singular && row == 0;
        double diag = 0.0;
        for (int a = 0; a < dim; ++a)
          for (int side = 0; side < 2; ++side) {
            const double c = volume * coupling(a, g[a], side);
            long nb[3] = {g[0], g[1], g[2]};
            nb[a] += side == 0 ? -1 : 1;
            if (!op.periodic[a] && (nb[a] < 0 || nb[a] >= cells[a])) {
              diag += c;
              continue;
            }
            nb[a] = (nb[a] + cells[a]) % cells[a];
            diag += c;
            const long col = band.index(nb);
            if (grounded || (m_singular && col == 0))
              continue; // the grounded cell is decoupled: its value is fixed to 0
            if (col < row)
              m_direct->add(row, col, -c);
            else if (col == row)
              diag -= c; // a periodic axis of one cell couples a cell to itself
          }
        m_direct->add(row, row, grounded ? 1.0 : diag);
      }
  m_direct->factor();
  m_coarsest_b.assign(static_cast<std::size_t>(n), 0.0);
  m_coarsest_x.assign(static_cast<std::size_t>(n), 0.0);
  if (!m_spec.device_coarsest)
    return;
  // The solve is linear in b: its matrix, column m the solution for the unit vector e_m.
  m_dense_inverse = decltype(m_dense_inverse)("mg::coarsest_inverse", n, n);
  m_dense_b = Kokkos::View<double*, MemorySpace>("mg::coarsest_b", n);
  m_dense_x = Kokkos::View<double*, MemorySpace>("mg::coarsest_x", n);
  auto host = Kokkos::create_mirror_view(m_dense_inverse);
  for (long m = 0; m < n; ++m) {
    std::fill(m_coarsest_b.begin(), m_coarsest_b.end(), 0.0);
    m_coarsest_b[static_cast<std::size_t>(m)] = 1.0;
    solve_coarsest_host(m_coarsest_b, m_coarsest_x);
    for (long c = 0; c < n; ++c)
      host(c, m) = m_coarsest_x[static_cast<std::size_t>(c)];
  }
  Kokkos::deep_copy(m_dense_inverse, host);
}

void GeometricMultigrid::solve_coarsest_host(std::vector<double>& b, std::vector<double>& x) {
  const bool weighted = !m_direct_volume.empty(); // cells of varying widths
  const std::size_t cells = b.size();
  double mean = 0.0, volume = 0.0;
  for (std::size_t cell = 0; cell < cells; ++cell) {
    const double v = weighted ? m_direct_volume[cell] : 1.0;
    m_direct_rhs[static_cast<std::size_t>(m_direct_index[cell])] = weighted ? v * b[cell] : b[cell];
    mean += weighted ? v * b[cell] : b[cell];
    volume += v;
  }
  mean /= weighted ? volume : double(cells);
  if (m_singular) { // a consistent right-hand side, and the grounded cell's equation dropped
    if (weighted) {
      for (std::size_t cell = 0; cell < cells; ++cell)
        m_direct_rhs[static_cast<std::size_t>(m_direct_index[cell])] -=
            m_direct_volume[cell] * mean;
    } else {
      for (double& v : m_direct_rhs)
        v -= mean;
    }
    m_direct_rhs[0] = 0.0;
  }
  m_direct->solve(m_direct_rhs);
  double x_mean = 0.0;
  for (double v : m_direct_rhs)
    x_mean += v;
  x_mean = m_singular ? x_mean / double(cells) : 0.0;
  for (std::size_t cell = 0; cell < cells; ++cell)
    x[cell] = m_direct_rhs[static_cast<std::size_t>(m_direct_index[cell])] - x_mean;
}

namespace {

/// x(c) = sum over m of S(c, m) b(m) over the owned box, cells numbered x fastest: b is packed
/// into `packed_b`, the product is a plain matrix-vector product into `packed_x`, which is
/// unpacked into x.
void apply_dense(const Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace>& S, const Field& b,
                 const Kokkos::View<double*, MemorySpace>& packed_b,
                 const Kokkos::View<double*, MemorySpace>& packed_x, Field& x) {
  const IndexSpace own = x.owned();
  const long nx = own.end[0] - own.begin[0], ny = own.end[1] - own.begin[1];
  const long n = static_cast<long>(S.extent(1));
  const FieldView bv = b.view(), xv = x.view();
  const long i0 = own.begin[0], j0 = own.begin[1], k0 = own.begin[2];
  for_each(
      "mg::coarsest_pack", own, KOKKOS_LAMBDA(long i, long j, long k) {
        packed_b((i - i0) + nx * ((j - j0) + ny * (k - k0))) = bv(i, j, k);
      });
  Kokkos::parallel_for(
      "mg::coarsest_dense", Kokkos::RangePolicy<ExecutionSpace>(0, n), KOKKOS_LAMBDA(long c) {
        double sum = 0.0;
        for (long m = 0; m < n; ++m)
          sum += S(c, m) * packed_b(m);
        packed_x(c) = sum;
      });
  for_each(
      "mg::coarsest_unpack", own, KOKKOS_LAMBDA(long i, long j, long k) {
        xv(i, j, k) = packed_x((i - i0) + nx * ((j - j0) + ny * (k - k0)));
      });
}

} // namespace

void GeometricMultigrid::solve_coarsest(Level& level) {
  if (m_dense_inverse.extent(0) > 0) {
    apply_dense(m_dense_inverse, level.b, m_dense_b, m_dense_x, level.x);
    return;
  }
  const auto& b = level.b_host;
  Kokkos::deep_copy(b, level.b.view());
  const IndexSpace& own = level.b.owned();
  std::size_t cell = 0;
  for (long k = own.begin[2]; k < own.end[2]; ++k)
    for (long j = own.begin[1]; j < own.end[1]; ++j)
      for (long i = own.begin[0]; i < own.end[0]; ++i, ++cell)
        m_coarsest_b[cell] = b(i, j, k);
  solve_coarsest_host(m_coarsest_b, m_coarsest_x);
  const auto& x = level.x_host;
  cell = 0;
  for (long k = own.begin[2]; k < own.end[2]; ++k)
    for (long j = own.begin[1]; j < own.end[1]; ++j)
      for (long i = own.begin[0]; i < own.end[0]; ++i, ++cell)
        x(i, j, k) = m_coarsest_x[cell];
  Kokkos::deep_copy(level.x.view(), x);
}

namespace {

/// Off-diagonal part of -L with the boundary ghosts at zero: the neighbours' sum. The boundary
/// faces' share of the diagonal is in the level's inverse diagonal instead. Uniform: every axis
/// of one cell width (inv_h2); else per-cell couplings where an axis has varying widths (their
/// entry at a non-periodic end multiplies the zero ghost).
template <int Dim, bool Uniform>
KOKKOS_INLINE_FUNCTION double neighbour_sum(const CellLaplacian& op, const FieldView& x, long i,
                                            long j, long k) {
  if (Uniform) {
    double s = op.inv_h2[0] * (x(i - 1, j, k) + x(i + 1, j, k)) +
               op.inv_h2[1] * (x(i, j - 1, k) + x(i, j + 1, k));
    if (Dim == 3)
      s += op.inv_h2[2] * (x(i, j, k - 1) + x(i, j, k + 1));
    return s;
  }
  const long at[3] = {i, j, k};
  double s = 0.0;
  for (int a = 0; a < Dim; ++a) {
    const long g = at[a] + op.offset[a];
    const double below = x(i - (a == 0), j - (a == 1), k - (a == 2)),
                 above = x(i + (a == 0), j + (a == 1), k + (a == 2));
    s += op.uniform[a] ? op.inv_h2[a] * (below + above)
                       : op.lower[a](g) * below + op.upper[a](g) * above;
  }
  return s;
}

template <int Dim, bool Uniform>
void smooth_kernel(const CellLaplacian& op, const FieldView& x, const FieldView& b,
                   const FieldView& inv_diag, const IndexSpace& own, int colour) {
  for_each_colour(
      "mg::smooth_red_black", own, op.offset[0] + op.offset[1] + op.offset[2], colour,
      KOKKOS_LAMBDA(long i, long j, long k) {
        x(i, j, k) = (b(i, j, k) + neighbour_sum<Dim, Uniform>(op, x, i, j, k)) * inv_diag(i, j, k);
      });
}

/// r = b - (-L) x over x's owned cells; r has wider ghosts, so its local index is x's + shift.
template <int Dim, bool Uniform>
void residual_kernel(const CellLaplacian& op, const FieldView& x, const FieldView& b,
                     const FieldView& inv_diag, const FieldView& r, const IndexSpace& own,
                     const std::array<long, 3>& shift) {
  const long si = shift[0], sj = shift[1], sk = shift[2];
  for_each_rows(
      "mg::residual", own, KOKKOS_LAMBDA(long i, long j, long k) {
        r(i + si, j + sj, k + sk) = b(i, j, k) - (x(i, j, k) / inv_diag(i, j, k) -
                                                  neighbour_sum<Dim, Uniform>(op, x, i, j, k));
      });
}

} // namespace

void GeometricMultigrid::smooth(Level& level, int colour) {
  // The boundary ghosts of x stay zero while a level smooths (see vcycle).
  level.halo->fill(level.x);
  const auto args = std::make_tuple(level.op, level.x.view(), level.b.view(), level.inv_diag.view(),
                                    level.x.owned(), colour);
  const bool three = level.domain->dim() == 3;
  if (level.uniform)
    std::apply(three ? smooth_kernel<3, true> : smooth_kernel<2, true>, args);
  else
    std::apply(three ? smooth_kernel<3, false> : smooth_kernel<2, false>, args);
}

void GeometricMultigrid::smooth_all(Level& level, bool pre) {
  if (!level.lines) {
    for (int s = 0; s < (pre ? m_spec.pre_sweeps : m_spec.post_sweeps); ++s) {
      smooth(level, pre ? 0 : 1);
      smooth(level, pre ? 1 : 0);
    }
    return;
  }
  // Pre: x lines red then black, then y, (then z); post: the same half-sweeps in reverse order,
  // so that the V-cycle stays symmetric.
  const int dim = level.domain->dim();
  for (int s = 0; s < (pre ? m_spec.pre_sweeps : m_spec.post_sweeps); ++s)
    for (int n = 0; n < dim; ++n) {
      const int axis = pre ? n : dim - 1 - n;
      if (!level.lines->relaxes(axis))
        continue;
      for (int c = 0; c < 2; ++c) {
        level.halo->fill(level.x);
        level.lines->sweep(axis, pre ? c : 1 - c, level.x, level.b);
      }
    }
}

void GeometricMultigrid::residual(Level& level) {
  level.halo->fill(level.x);
  std::array<long, 3> shift{};
  for (int a = 0; a < 3; ++a)
    shift[a] = level.r.owned().begin[a] - level.x.owned().begin[a];
  const auto args = std::make_tuple(level.op, level.x.view(), level.b.view(), level.inv_diag.view(),
                                    level.r.view(), level.x.owned(), shift);
  const bool three = level.domain->dim() == 3;
  if (level.uniform)
    std::apply(three ? residual_kernel<3, true> : residual_kernel<2, true>, args);
  else
    std::apply(three ? residual_kernel<3, false> : residual_kernel<2, false>, args);
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

Transfer make_transfer(const MultigridPlan::Level& coarse_plan, const std::array<bool, 3>& tabled,
                       const std::array<TransferTable, 3>& tables, const Field& fine,
                       const Field& coarse) {
  Transfer t;
  for (int a = 0; a < 3; ++a) {
    t.halved[a] = coarse_plan.halved[a];
    t.tabled[a] = tabled[a];
    t.table[a] = tables[a];
    t.fine_offset[a] = fine.layout().global_offset[a];
    t.coarse_offset[a] = coarse.layout().global_offset[a];
  }
  return t;
}

} // namespace

void GeometricMultigrid::fill_ghosts(Level& level, Field& f) {
  require(f.layout().ghost == 1 || f.layout().ghost == kRestrictionGhost,
          "multigrid transfers take fields with 1 or kRestrictionGhost ghost layers");
  (f.layout().ghost == 1 ? level.halo : level.halo_r)->fill(f);
  fill_boundary_ghosts(*level.domain, m_spec.faces, f);
}

namespace {

/// The taps along axis `a` of prolongation (Taps = 2) or restriction (Taps = 4). Halved: every
/// active axis is halved without tables (cells of one width, even counts), so the taps take
/// their closed form: the same indices and weights as Transfer's, without its branches.
template <int Taps, bool Halved>
KOKKOS_INLINE_FUNCTION void transfer_taps(const Transfer& t, int a, long x, long* index,
                                          double* weight) {
  if constexpr (Halved && Taps == 2) {
    const long f = x + t.fine_offset[a];
    index[0] = f / 2 - t.coarse_offset[a];
    index[1] = index[0] + ((f & 1) ? 1 : -1);
    weight[0] = 0.75;
    weight[1] = 0.25;
  } else if constexpr (Halved) {
    const long first = 2 * (x + t.coarse_offset[a]) - 1 - t.fine_offset[a];
    for (int n = 0; n < 4; ++n)
      index[n] = first + n;
    weight[0] = weight[3] = 0.125;
    weight[1] = weight[2] = 0.375;
  } else if constexpr (Taps == 2) {
    t.prolong_taps(a, x, index, weight);
  } else {
    t.restrict_taps(a, x, index, weight);
  }
}

/// One transfer between levels, the pair prolongation (Taps = 2 per axis, added to `out`) and
/// restriction (Taps = 4, written to `out`): out(x) = sum over the tensor product of x's per-axis
/// taps of the weights (multiplied x, y, z) times `in`.
template <int Dim, int Taps, bool Halved>
void transfer_kernel(const char* label, const Transfer& t, const FieldView& in,
                     const FieldView& out, const IndexSpace& owned) {
  for_each_rows(
      label, owned, KOKKOS_LAMBDA(long i, long j, long k) {
        long ia[Taps], ja[Taps], ka[Taps];
        double wi[Taps], wj[Taps], wk[Taps];
        transfer_taps<Taps, Halved>(t, 0, i, ia, wi);
        transfer_taps<Taps, Halved>(t, 1, j, ja, wj);
        double sum = 0.0;
        if (Dim == 2) {
          for (int c2 = 0; c2 < Taps; ++c2)
            for (int c1 = 0; c1 < Taps; ++c1)
              sum += wi[c1] * wj[c2] * in(ia[c1], ja[c2], k);
        } else {
          transfer_taps<Taps, Halved>(t, 2, k, ka, wk);
          for (int c3 = 0; c3 < Taps; ++c3)
            for (int c2 = 0; c2 < Taps; ++c2)
              for (int c1 = 0; c1 < Taps; ++c1)
                sum += wi[c1] * wj[c2] * wk[c3] * in(ia[c1], ja[c2], ka[c3]);
        }
        // A plain if (Taps is a constant all the same): nvcc's extended lambdas may not capture a
        // variable first inside a constexpr-if.
        if (Taps == 2)
          out(i, j, k) += sum;
        else
          out(i, j, k) = sum;
      });
}

/// transfer_kernel for `dim`, in closed form where every active axis is halved untabled.
template <int Taps>
void transfer(const char* label, const Transfer& t, int dim, const FieldView& in,
              const FieldView& out, const IndexSpace& owned) {
  bool halved = true;
  for (int a = 0; a < dim; ++a)
    halved = halved && t.halved[a] && !t.tabled[a];
  if (dim == 2)
    (halved ? transfer_kernel<2, Taps, true> : transfer_kernel<2, Taps, false>)(label, t, in, out,
                                                                                owned);
  else
    (halved ? transfer_kernel<3, Taps, true> : transfer_kernel<3, Taps, false>)(label, t, in, out,
                                                                                owned);
}

} // namespace

void GeometricMultigrid::prolong_add(int coarse, Field& coarse_x, Field& fine) {
  Level& c = *m_levels.at(static_cast<std::size_t>(coarse));
  fill_ghosts(c, coarse_x);
  const Transfer t = make_transfer(m_plan.levels[static_cast<std::size_t>(coarse)], c.tabled,
                                   c.tables, fine, coarse_x);
  transfer<2>("mg::prolong_add", t, c.domain->dim(), coarse_x.view(), fine.view(), fine.owned());
}

void GeometricMultigrid::restrict_to(int coarse, Field& fine_r, Field& coarse_b) {
  Level& f = *m_levels.at(static_cast<std::size_t>(coarse - 1));
  fill_ghosts(f, fine_r);
  const Level& c = *m_levels.at(static_cast<std::size_t>(coarse));
  const Transfer t = make_transfer(m_plan.levels[static_cast<std::size_t>(coarse)], c.tabled,
                                   c.tables, fine_r, coarse_b);
  transfer<4>("mg::restrict", t, f.domain->dim(), fine_r.view(), coarse_b.view(), coarse_b.owned());
}

void GeometricMultigrid::agglomerate(int l) {
  Level& from = *m_levels[static_cast<std::size_t>(l - 1)];
  Level& to = *m_levels[static_cast<std::size_t>(l)];
  Kokkos::deep_copy(from.b_host, from.b.view());
  const bool in = to.domain != nullptr;
  to.down->run(from.domain->comm(), from.b_host, from.b.layout().global_offset,
               in ? to.b_host : from.b_host,
               in ? to.b.layout().global_offset : std::array<long, 3>{});
  if (in)
    Kokkos::deep_copy(to.b.view(), to.b_host);
}

void GeometricMultigrid::disperse(int l) {
  Level& to = *m_levels[static_cast<std::size_t>(l - 1)];
  Level& from = *m_levels[static_cast<std::size_t>(l)];
  const bool in = from.domain != nullptr;
  if (in)
    Kokkos::deep_copy(from.x_host, from.x.view());
  from.up->run(to.domain->comm(), in ? from.x_host : to.x_host,
               in ? from.x.layout().global_offset : std::array<long, 3>{}, to.x_host,
               to.x.layout().global_offset);
  Kokkos::deep_copy(to.x.view(), to.x_host);
}

void GeometricMultigrid::vcycle(int l) {
  Level& level = *m_levels[static_cast<std::size_t>(l)];
  const bool first_coarse = m_plan.levels[static_cast<std::size_t>(l)].rank_count() ==
                                m_plan.levels.front().rank_count() &&
                            l + 1 < level_count() &&
                            m_plan.levels[static_cast<std::size_t>(l + 1)].agglomerated;
  const auto start = std::chrono::steady_clock::now();
  if (l + 1 == level_count()) {
    solve_coarsest(level);
    if (m_plan.levels.front().rank_count() == 1)
      m_coarse_seconds += seconds_since(start);
    return;
  }
  if (m_plan.levels[static_cast<std::size_t>(l + 1)].agglomerated) {
    // The same grid on fewer ranks: those left out wait for its correction.
    agglomerate(l + 1);
    if (active(l + 1))
      vcycle(l + 1);
    disperse(l + 1);
    if (first_coarse)
      m_coarse_seconds += seconds_since(start);
    return;
  }
  Level& coarse = *m_levels[static_cast<std::size_t>(l + 1)];
  fill_value(level.x, level.x.ghosted(), 0.0); // boundary ghosts stay 0 until prolong_add
  smooth_all(level, true);
  residual(level);
  restrict_to(l + 1, level.r, coarse.b);
  vcycle(l + 1);
  prolong_add(l + 1, coarse.x, level.x);
  smooth_all(level, false);
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
  ++m_cycles;
  vcycle(0);
}

void GeometricMultigrid::apply(const Field& b, Field& x) {
  Level& top = *m_levels.front();
  copy(b, top.b);
  if (m_singular) // B = P V P with P the projection onto mean-zero fields: still symmetric
    remove_mean(top.b);
  ++m_cycles;
  vcycle(0);
  if (m_singular)
    remove_mean(top.x);
  copy(top.x, x);
}

} // namespace linear
} // namespace undertow
