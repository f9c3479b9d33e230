#include "undertow/solvers/elasticity/node_numbering.hpp"

#include <vector>

namespace undertow {
namespace elasticity {

NodeNumbering::NodeNumbering(const Domain& domain) {
  const FieldLayout layout = domain.layout(Location::Node, 1);
  std::array<std::vector<long>, 3> begin;
  for (int a = 0; a < 3; ++a) {
    const int n = domain.ranks_along(a);
    m_numbers.ranks[a] = n;
    m_numbers.offset[a] = layout.global_offset[a];
    for (int c = 0; c < n; ++c)
      begin[a].push_back(domain.owned_interval(Location::Node, a, c).first);
    begin[a].push_back(domain.owned_interval(Location::Node, a, n - 1).second);
    Kokkos::View<long*, MemorySpace> device("elasticity::node_begin", begin[a].size());
    Kokkos::deep_copy(
        device,
        Kokkos::View<const long*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            begin[a].data(), begin[a].size()));
    m_numbers.begin[a] = device;
  }
  // Ranks in order, x fastest: each one's first node follows every node of the ranks before it.
  const int ranks = m_numbers.ranks[0] * m_numbers.ranks[1] * m_numbers.ranks[2];
  std::vector<long> first(static_cast<std::size_t>(ranks) + 1, 0);
  for (int r = 0; r < ranks; ++r) {
    const int c[3] = {r % m_numbers.ranks[0], (r / m_numbers.ranks[0]) % m_numbers.ranks[1],
                      r / (m_numbers.ranks[0] * m_numbers.ranks[1])};
    long count = 1;
    for (int a = 0; a < 3; ++a)
      count *= begin[a][c[a] + 1] - begin[a][c[a]];
    first[r + 1] = first[r] + count;
  }
  const int me = domain.rank_of({domain.coord(0), domain.coord(1), domain.coord(2)});
  m_first_node = first[me];
  m_owned_nodes = first[me + 1] - first[me];
  m_global_nodes = first[ranks];
  Kokkos::View<long*, MemorySpace> device("elasticity::first_node", first.size());
  Kokkos::deep_copy(
      device, Kokkos::View<const long*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                  first.data(), first.size()));
  m_numbers.first = device;
}

} // namespace elasticity
} // namespace undertow
