#pragma once
/// \file
/// Zebra line relaxation for the cell-centred pressure operator -L (cell_laplacian.hpp): the
/// multigrid smoother for stretched grids, where cells far from the refined box are many times
/// longer along one axis than along another and point smoothing no longer damps the errors that
/// vary slowly along the strongly coupled axis.
///
/// One half-sweep along axis a solves every a-line of one colour exactly: the tridiagonal system
/// of -L restricted to the line's cells, with the cells of the other lines held at their current
/// values (block Gauss-Seidel). The colour of a line is the parity of the sum of its global
/// indices along the other axes, so lines of one colour do not touch each other and can be solved
/// at once. At a non-periodic end the line sees its boundary ghost (kept at zero by the
/// multigrid); across a periodic wrap it sees the ghost's value from before the half-sweep.
///
/// Lines that cross ranks are solved by the Thomas algorithm pipelined along the process grid:
/// each rank eliminates its part once the rank before it has sent the last modified
/// coefficients of its part, and substitutes back once the rank after it has sent its first
/// values. The arithmetic is the single-rank Thomas algorithm's, operation for operation, so the
/// result does not depend on the number of ranks (bitwise). The price is latency: the ranks
/// along the axis work one after the other, which is acceptable on the multigrid's levels (few
/// ranks per axis; the messages carry all lines of a colour at once).

#include "undertow/solvers/linear/cell_laplacian.hpp"

#include <array>

namespace undertow {
namespace linear {

class LineRelaxation {
 public:
  /// Factors the lines of every axis of `domain` for the operator `op`, whose inverse diagonal
  /// (the boundary faces' share included) is `inv_diag`, a cell field with one ghost layer.
  /// Collective over the domain's communicator (pipelined along each axis).
  LineRelaxation(const Domain& domain, const CellLaplacian& op, const Field& inv_diag);

  /// One half-sweep: every line along `axis` of colour `colour` (0 or 1) is solved for x, with
  /// b the right-hand side of (-L) x = b. x's halo ghosts must be filled, and its boundary
  /// ghosts hold what the operator expects of them (zero in the multigrid's smoothing). Updates
  /// x's owned cells only. Requires relaxes(axis). Collective over the ranks along `axis`
  /// (blocking point-to-point messages).
  void sweep(int axis, int colour, Field& x, const Field& b);

  /// Whether lines along `axis` are worth solving: false if every other axis of the grid has a
  /// single cell (the line is the whole grid, singular when -L is). Not collective.
  bool relaxes(int axis) const;

 private:
  struct Neighbours {
    int previous = -1, next = -1; ///< ranks along the axis; -1 at a (non-periodic) end
  };
  Neighbours neighbours(int axis) const;
  long count(int axis) const; ///< the lines along `axis` on this rank
  using Buffer = Kokkos::View<double*, MemorySpace>;
  /// `count` values from rank `from` (in m_recv), or zeros (m_zero) if from < 0.
  const Buffer& receive(int from, int tag, long count);
  /// The first `count` values of m_send to rank `to`, if to >= 0.
  void send(int to, int tag, long count);

  const Domain* m_domain;
  CellLaplacian m_op;
  /// Per axis, per cell: the factorisation of the lines (coupling above / pivot, 1 / pivot).
  std::array<Field, 3> m_scale, m_inv_pivot;
  Field m_rhs;           ///< per cell: the right-hand side after forward elimination
  Buffer m_send, m_recv; ///< per line: what the next (previous) rank along the axis needs
  Buffer m_zero;         ///< per line: zeros, for the ends of the lines' pipeline
  Buffer::HostMirror m_send_host, m_recv_host;
};

} // namespace linear
} // namespace undertow
