#include "undertow/solvers/navier_stokes/sensors.hpp"

namespace undertow {
namespace navier_stokes {

IndexSpace probe_faces(const Domain& d, const std::array<double, 3>& x, int c, int ghost) {
  // Local cell indices; face and cell fields share the offsets and ghost widths, so the cell's
  // lower face along c has the same local indices.
  const FieldLayout cells = d.layout(Location::Cell, ghost);
  IndexSpace faces;
  for (int a = 0; a < 3; ++a) {
    const long global = a < d.dim() ? d.cell_containing(a, x[a]) : 0;
    const long local = global - cells.global_offset[a];
    if (local < cells.owned.begin[a] || local >= cells.owned.end[a])
      return IndexSpace{};
    faces.begin[a] = local;
    faces.end[a] = local + (a == c ? 2 : 1);
  }
  return faces;
}

std::vector<double> VelocitySensors::read(const Communicator& comm,
                                          const std::array<Field, 3>& u) const {
  std::vector<double> local(m_sensors.size(), 0.0);
  for (std::size_t s = 0; s < m_sensors.size(); ++s) {
    const IndexSpace& faces = m_sensors[s].second;
    if (faces.empty())
      continue;
    const FieldView v = u[m_sensors[s].first].view();
    local[s] = local_sum(
        "ns::sensor_read", faces,
        KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += 0.5 * v(i, j, k); });
  }
  return comm.sum(local);
}

void VelocitySensors::add_transpose(const std::vector<double>& g,
                                    std::array<Field, 3>& seed) const {
  for (std::size_t s = 0; s < m_sensors.size(); ++s) {
    const IndexSpace& faces = m_sensors[s].second;
    if (faces.empty())
      continue;
    const FieldView out = seed[m_sensors[s].first].view();
    const double gs = 0.5 * g.at(s);
    for_each(
        "ns::sensor_transpose", faces,
        KOKKOS_LAMBDA(long i, long j, long k) { out(i, j, k) += gs; });
  }
}

} // namespace navier_stokes
} // namespace undertow
