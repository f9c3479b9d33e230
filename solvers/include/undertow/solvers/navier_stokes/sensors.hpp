#pragma once
/// \file
/// Velocity sensors: linear functionals of the velocity that a feedback policy reads and that
/// objective terms (probe_value, probe_misfit) measure. A sensor is u_c at the centre of the
/// cell containing a point, the mean of the cell's two faces along c, stored as a weight field
/// w, so that s = sum over every local value (ghosts included) of w u_c, summed over ranks. The
/// cell's upper face may be a ghost of the owning rank: read from a prepared velocity, whose
/// ghosts hold their owners' values, s is exact; the transpose's seed lands on that ghost, and
/// the adjoint's prepare_adjoint sends it home.

#include "undertow/core/domain.hpp"
#include "undertow/core/field.hpp"

#include <array>
#include <utility>
#include <vector>

namespace undertow {
namespace navier_stokes {

/// Sets `weight`, a face field of component c, to the sensor of u_c at x (zero elsewhere).
/// Returns whether this rank owns the cell containing x. x must lie inside the domain. Not
/// collective.
bool set_probe_weight(const Domain& domain, const std::array<double, 3>& x, int c, Field& weight);

class VelocitySensors {
 public:
  /// Adds a sensor of component c with its weight field (set_probe_weight). Not collective.
  void add(int component, Field weight) { m_sensors.emplace_back(component, std::move(weight)); }
  std::size_t size() const { return m_sensors.size(); }
  bool empty() const { return m_sensors.empty(); }
  /// The readings of a prepared velocity [m/s], the same on every rank. Collective (one
  /// reduction for all sensors).
  std::vector<double> read(const Communicator& comm, const std::array<Field, 3>& u) const;
  /// seed += sum_i g_i ds_i/du, on the sensors' faces (ghosts included). Not collective.
  void add_transpose(const std::vector<double>& g, std::array<Field, 3>& seed) const;

 private:
  std::vector<std::pair<int, Field>> m_sensors;
};

} // namespace navier_stokes
} // namespace undertow
