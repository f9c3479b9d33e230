#include "undertow/solvers/navier_stokes/sensors.hpp"

namespace undertow {
namespace navier_stokes {

bool set_probe_weight(const Domain& d, const std::array<double, 3>& x, int c, Field& weight) {
  const FieldView w = weight.view();
  fill_value(weight, weight.ghosted(), 0.0);
  // Local cell indices; face and cell fields share the offsets and ghost widths, so the cell's
  // lower face along c has the same local indices.
  const FieldLayout& l = weight.layout();
  const Field cells(d, Location::Cell, l.ghost, "ns::probe_cells");
  long idx[3];
  bool inside = true;
  for (int a = 0; a < 3; ++a) {
    const long global = a < d.dim() ? d.cell_containing(a, x[a]) : 0;
    idx[a] = global - cells.layout().global_offset[a];
    inside = inside && idx[a] >= cells.owned().begin[a] && idx[a] < cells.owned().end[a];
  }
  if (!inside)
    return false;
  auto host = Kokkos::create_mirror_view(w);
  Kokkos::deep_copy(host, 0.0);
  host(idx[0], idx[1], idx[2]) += 0.5;
  host(idx[0] + (c == 0), idx[1] + (c == 1), idx[2] + (c == 2)) += 0.5;
  Kokkos::deep_copy(w, host);
  return true;
}

std::vector<double> VelocitySensors::read(const Communicator& comm,
                                          const std::array<Field, 3>& u) const {
  std::vector<double> local;
  for (const auto& sensor : m_sensors) {
    const FieldView w = sensor.second.view(), v = u[sensor.first].view();
    local.push_back(local_sum(
        "ns::sensor_read", sensor.second.ghosted(),
        KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += w(i, j, k) * v(i, j, k); }));
  }
  return comm.sum(local);
}

void VelocitySensors::add_transpose(const std::vector<double>& g,
                                    std::array<Field, 3>& seed) const {
  for (std::size_t s = 0; s < m_sensors.size(); ++s) {
    const FieldView w = m_sensors[s].second.view(), out = seed[m_sensors[s].first].view();
    const double gs = g.at(s);
    for_each(
        "ns::sensor_transpose", m_sensors[s].second.ghosted(),
        KOKKOS_LAMBDA(long i, long j, long k) { out(i, j, k) += gs * w(i, j, k); });
  }
}

} // namespace navier_stokes
} // namespace undertow
