#pragma once
/// \file
/// The global numbering of the grid's nodes, which the stiffness matrix's rows follow. Each rank
/// numbers the nodes it owns contiguously, x fastest, after every node of the ranks before it
/// (ranks x fastest, as the decomposition and PETSc's DMDA order them); degree of freedom c of
/// node n is row dim n + c. Global numbers are integers computed from the decomposition, so a
/// ghost node's number needs no communication.

#include "undertow/core/domain.hpp"
#include "undertow/core/field.hpp"

#include <Kokkos_Core.hpp>

namespace undertow {
namespace elasticity {

/// Global node numbers of local node indices of the node layout, device-copyable.
struct GlobalNodeNumbers {
  /// begin[a](c): first global node owned along axis a by process-grid coordinate c; entry
  /// ranks[a] is the number of nodes along a.
  Kokkos::View<const long*, MemorySpace> begin[3];
  /// first(r): global number of the first node of rank r.
  Kokkos::View<const long*, MemorySpace> first;
  int ranks[3] = {1, 1, 1};
  long offset[3] = {0, 0, 0}; ///< global index of local index 0, per axis

  /// Global number of the node at local index (i, j, k) (owned or ghost, inside the box).
  KOKKOS_INLINE_FUNCTION long operator()(long i, long j, long k) const {
    return at_global(i + offset[0], j + offset[1], k + offset[2]);
  }
  /// Global number of the node at global index (gi, gj, gk).
  KOKKOS_INLINE_FUNCTION long at_global(long gi, long gj, long gk) const {
    const long g[3] = {gi, gj, gk};
    int c[3] = {0, 0, 0};
    long within = 0, stride = 1;
    for (int a = 0; a < 3; ++a) {
      while (c[a] + 1 < ranks[a] && g[a] >= begin[a](c[a] + 1))
        ++c[a];
      within += (g[a] - begin[a](c[a])) * stride;
      stride *= begin[a](c[a] + 1) - begin[a](c[a]);
    }
    return first(c[0] + ranks[0] * (c[1] + ranks[1] * c[2])) + within;
  }
};

class NodeNumbering {
 public:
  /// The numbering of `domain`'s nodes (ghost width 1). Not collective: every rank computes
  /// every rank's ranges from the decomposition.
  explicit NodeNumbering(const Domain& domain);

  /// Nodes this rank owns, and the global number of its first one.
  long owned_nodes() const { return m_owned_nodes; }
  long first_node() const { return m_first_node; }
  /// Nodes over all ranks.
  long global_nodes() const { return m_global_nodes; }
  /// Global number of any local node, in kernels.
  const GlobalNodeNumbers& numbers() const { return m_numbers; }

 private:
  GlobalNodeNumbers m_numbers;
  long m_owned_nodes = 0, m_first_node = 0, m_global_nodes = 0;
};

} // namespace elasticity
} // namespace undertow
