#include "undertow/solvers/linear/line_relaxation.hpp"

#include "undertow/core/error.hpp"

#include <algorithm>
#include <mpi.h>

namespace undertow {
namespace linear {

namespace {

constexpr int kForwardTag = 7301, kBackwardTag = 7302;

/// The two axes other than a, in increasing order.
KOKKOS_INLINE_FUNCTION void other_axes(int a, int& o1, int& o2) {
  o1 = a == 0 ? 1 : 0;
  o2 = a == 2 ? 1 : 2;
}

/// Where a line's per-line values sit in the message buffers, and which lines a half-sweep
/// takes.
struct Lines {
  int axis = 0, o1 = 1, o2 = 2;
  long begin1 = 0, begin2 = 0, count1 = 1;
  long first = 0, end = 0; ///< the owned local indices along the axis
  int colour = 0;

  KOKKOS_INLINE_FUNCTION long index(const long at[3]) const {
    return (at[o1] - begin1) + count1 * (at[o2] - begin2);
  }
  KOKKOS_INLINE_FUNCTION bool taken(const CellLaplacian& op, const long at[3]) const {
    return ((at[o1] + op.offset[o1] + at[o2] + op.offset[o2]) & 1) == colour;
  }
};

/// The couplings of cell `at` along the line's axis a, with a coupling that crosses a boundary
/// face or a periodic wrap (g = 0 or g = cells - 1) set to zero: that neighbour is not part of
/// the line's system.
KOKKOS_INLINE_FUNCTION void line_couplings(const CellLaplacian& op, int a, long g, double& lower,
                                           double& upper) {
  lower = g == 0 ? 0.0 : op.coupling(a, g, 0);
  upper = g == op.cells[a] - 1 ? 0.0 : op.coupling(a, g, 1);
}

/// The factorisation of every line along the axis, which depends on the operator alone: per
/// cell, inv_pivot = 1 / (diagonal - lower * scale of the cell before) and scale = upper *
/// inv_pivot. `from_previous` holds the previous rank's last scale per line (zero on the first
/// rank); `to_next` gets this rank's.
void factor_kernel(const CellLaplacian& op, const Lines& lines, const IndexSpace& starts,
                   const FieldView& inv_diag, const FieldView& scale, const FieldView& inv_pivot,
                   const Kokkos::View<double*, MemorySpace>& from_previous,
                   const Kokkos::View<double*, MemorySpace>& to_next) {
  for_each(
      "mg::line_factor", starts, KOKKOS_LAMBDA(long i, long j, long k) {
        long at[3] = {i, j, k};
        const int a = lines.axis;
        const long line = lines.index(at);
        double scale_before = from_previous(line);
        for (long s = lines.first; s < lines.end; ++s) {
          at[a] = s;
          double lower, upper;
          line_couplings(op, a, s + op.offset[a], lower, upper);
          const double p = 1.0 / (1.0 / inv_diag(at[0], at[1], at[2]) - lower * scale_before);
          scale_before = upper * p;
          scale(at[0], at[1], at[2]) = scale_before;
          inv_pivot(at[0], at[1], at[2]) = p;
        }
        to_next(line) = scale_before;
      });
}

/// Forward elimination over this rank's part of every line of the colour: rhs = (b + the
/// couplings to the other lines and across boundary faces or periodic wraps, + lower * rhs of the
/// cell before) * inv_pivot. `from_previous` holds the previous rank's last rhs per line (zero on
/// the first rank); `to_next` gets this rank's.
template <int Dim>
void eliminate_kernel(const CellLaplacian& op, const Lines& lines, const IndexSpace& starts,
                      const FieldView& x, const FieldView& b, const FieldView& inv_pivot,
                      const FieldView& rhs, const Kokkos::View<double*, MemorySpace>& from_previous,
                      const Kokkos::View<double*, MemorySpace>& to_next) {
  for_each(
      "mg::line_eliminate", starts, KOKKOS_LAMBDA(long i, long j, long k) {
        long at[3] = {i, j, k};
        if (!lines.taken(op, at))
          return;
        const int a = lines.axis;
        const long line = lines.index(at);
        double rhs_before = from_previous(line);
        for (long s = lines.first; s < lines.end; ++s) {
          at[a] = s;
          const long g = s + op.offset[a];
          double right = b(at[0], at[1], at[2]);
          for (int q = 0; q < Dim; ++q) {
            if (q == a)
              continue;
            const long gq = at[q] + op.offset[q];
            long below[3] = {at[0], at[1], at[2]}, above[3] = {at[0], at[1], at[2]};
            --below[q];
            ++above[q];
            right += op.coupling(q, gq, 0) * x(below[0], below[1], below[2]) +
                     op.coupling(q, gq, 1) * x(above[0], above[1], above[2]);
          }
          // The boundary ghost (zero here, see the multigrid) or the periodic wrap's value, with
          // the coupling there (AxisCouplings: at a non-periodic end the face's diagonal share).
          if (g == 0) {
            long ghost[3] = {at[0], at[1], at[2]};
            --ghost[a];
            right += op.coupling(a, g, 0) * x(ghost[0], ghost[1], ghost[2]);
          }
          if (g == op.cells[a] - 1) {
            long ghost[3] = {at[0], at[1], at[2]};
            ++ghost[a];
            right += op.coupling(a, g, 1) * x(ghost[0], ghost[1], ghost[2]);
          }
          double lower, upper;
          line_couplings(op, a, g, lower, upper);
          rhs_before = (right + lower * rhs_before) * inv_pivot(at[0], at[1], at[2]);
          rhs(at[0], at[1], at[2]) = rhs_before;
        }
        to_next(line) = rhs_before;
      });
}

/// Back substitution: x = rhs + scale * (x of the next cell), from this rank's last cell of every
/// line of the colour to its first. `from_next` holds the next rank's first x per line (zero on
/// the last rank, where scale is zero); `to_previous` gets this rank's first x.
void substitute_kernel(const CellLaplacian& op, const Lines& lines, const IndexSpace& starts,
                       const FieldView& x, const FieldView& scale, const FieldView& rhs,
                       const Kokkos::View<double*, MemorySpace>& from_next,
                       const Kokkos::View<double*, MemorySpace>& to_previous) {
  for_each(
      "mg::line_substitute", starts, KOKKOS_LAMBDA(long i, long j, long k) {
        long at[3] = {i, j, k};
        if (!lines.taken(op, at))
          return;
        const long line = lines.index(at);
        double next = from_next(line);
        for (long s = lines.end - 1; s >= lines.first; --s) {
          at[lines.axis] = s;
          next = rhs(at[0], at[1], at[2]) + scale(at[0], at[1], at[2]) * next;
          x(at[0], at[1], at[2]) = next;
        }
        to_previous(line) = next;
      });
}

long most_lines(const IndexSpace& own) {
  long n = 0;
  for (int a = 0; a < 3; ++a) {
    int o1, o2;
    other_axes(a, o1, o2);
    n = std::max(n, own.extent(o1) * own.extent(o2));
  }
  return n;
}

Lines lines_along(const IndexSpace& own, int axis, int colour) {
  Lines lines;
  lines.axis = axis;
  other_axes(axis, lines.o1, lines.o2);
  lines.begin1 = own.begin[lines.o1];
  lines.begin2 = own.begin[lines.o2];
  lines.count1 = own.extent(lines.o1);
  lines.first = own.begin[axis];
  lines.end = own.end[axis];
  lines.colour = colour;
  return lines;
}

} // namespace

LineRelaxation::LineRelaxation(const Domain& domain, const CellLaplacian& op, const Field& inv_diag)
    : m_domain(&domain), m_op(op), m_rhs(inv_diag.layout(), "mg::line_rhs"),
      m_send("mg::line_send", static_cast<std::size_t>(most_lines(inv_diag.owned()))),
      m_recv("mg::line_recv", static_cast<std::size_t>(most_lines(inv_diag.owned()))),
      m_zero("mg::line_zero", static_cast<std::size_t>(most_lines(inv_diag.owned()))) {
  m_send_host = Kokkos::create_mirror_view(m_send);
  m_recv_host = Kokkos::create_mirror_view(m_recv);
  for (int a = 0; a < domain.dim(); ++a) {
    if (!relaxes(a))
      continue;
    const std::string axis = std::to_string(a);
    m_scale[a] = Field(inv_diag.layout(), "mg::line_scale" + axis);
    m_inv_pivot[a] = Field(inv_diag.layout(), "mg::line_inv_pivot" + axis);
    const IndexSpace& own = inv_diag.owned();
    IndexSpace starts = own;
    starts.end[a] = starts.begin[a] + 1;
    const Neighbours n = neighbours(a);
    const Buffer& from_previous = receive(n.previous, kForwardTag, count(a));
    factor_kernel(op, lines_along(own, a, 0), starts, inv_diag.view(), m_scale[a].view(),
                  m_inv_pivot[a].view(), from_previous, m_send);
    send(n.next, kForwardTag, count(a));
  }
}

bool LineRelaxation::relaxes(int axis) const {
  for (int q = 0; q < m_domain->dim(); ++q)
    if (q != axis && m_domain->global_cells(q) > 1)
      return true;
  return false;
}

long LineRelaxation::count(int axis) const {
  int o1, o2;
  other_axes(axis, o1, o2);
  return m_domain->cell_count(o1) * (o2 < m_domain->dim() ? m_domain->cell_count(o2) : 1);
}

LineRelaxation::Neighbours LineRelaxation::neighbours(int axis) const {
  const Domain& d = *m_domain;
  std::array<int, 3> c{d.coord(0), d.coord(1), d.coord(2)};
  Neighbours n;
  // The wrap of a periodic axis is not one: its coupling is taken from the ghosts.
  --c[axis];
  if (c[axis] >= 0)
    n.previous = d.rank_of(c);
  c[axis] += 2;
  if (c[axis] < d.ranks_along(axis))
    n.next = d.rank_of(c);
  return n;
}

const LineRelaxation::Buffer& LineRelaxation::receive(int from, int tag, long count) {
  if (from < 0)
    return m_zero;
  MPI_Recv(m_recv_host.data(), static_cast<int>(count), MPI_DOUBLE, from, tag,
           m_domain->comm().raw(), MPI_STATUS_IGNORE);
  Kokkos::deep_copy(m_recv, m_recv_host);
  return m_recv;
}

void LineRelaxation::send(int to, int tag, long count) {
  if (to < 0)
    return;
  Kokkos::deep_copy(m_send_host, m_send);
  MPI_Send(m_send_host.data(), static_cast<int>(count), MPI_DOUBLE, to, tag,
           m_domain->comm().raw());
}

void LineRelaxation::sweep(int axis, int colour, Field& x, const Field& b) {
  require(relaxes(axis), "LineRelaxation::sweep along an axis whose lines are the whole grid");
  const IndexSpace& own = x.owned();
  const Lines lines = lines_along(own, axis, colour);
  IndexSpace starts = own;
  starts.end[axis] = starts.begin[axis] + 1;
  const Neighbours n = neighbours(axis);
  const Buffer& from_previous = receive(n.previous, kForwardTag, count(axis));
  if (m_domain->dim() == 3)
    eliminate_kernel<3>(m_op, lines, starts, x.view(), b.view(), m_inv_pivot[axis].view(),
                        m_rhs.view(), from_previous, m_send);
  else
    eliminate_kernel<2>(m_op, lines, starts, x.view(), b.view(), m_inv_pivot[axis].view(),
                        m_rhs.view(), from_previous, m_send);
  send(n.next, kForwardTag, count(axis));
  const Buffer& from_next = receive(n.next, kBackwardTag, count(axis));
  substitute_kernel(m_op, lines, starts, x.view(), m_scale[axis].view(), m_rhs.view(), from_next,
                    m_send);
  send(n.previous, kBackwardTag, count(axis));
}

} // namespace linear
} // namespace undertow
