#pragma once
/// \file
/// Velocity sensors: linear functionals of the velocity that a feedback policy reads and that
/// objective terms (probe_value, probe_misfit) measure. A sensor is u_c at the centre of the
/// cell containing a point, the mean of the cell's two faces along c: s = (u_lower + u_upper) / 2
/// on the rank that owns the cell, summed over ranks. The upper face may be a ghost of that
/// rank: read from a prepared velocity, whose ghosts hold their owners' values, s is exact; the
/// transpose's seed lands on that ghost, and the adjoint's prepare_adjoint sends it home. Each
/// sensor touches its two faces alone, on the host's side only their index box.

#include "undertow/core/domain.hpp"
#include "undertow/core/field.hpp"

#include <array>
#include <utility>
#include <vector>

namespace undertow {
namespace navier_stokes {

/// The faces a sensor of u_c at x reads, in the local indices of face fields with `ghost`
/// layers: the two faces along c of the cell containing x, or an empty box where another rank
/// owns that cell. x must lie inside the domain. Not collective.
IndexSpace probe_faces(const Domain& domain, const std::array<double, 3>& x, int c, int ghost);

class VelocitySensors {
 public:
  /// Adds a sensor of component c reading `faces` (probe_faces). Not collective.
  void add(int component, const IndexSpace& faces) { m_sensors.emplace_back(component, faces); }
  std::size_t size() const { return m_sensors.size(); }
  /// The readings of a prepared velocity [m/s], the same on every rank. Collective (one
  /// reduction for all sensors).
  std::vector<double> read(const Communicator& comm, const std::array<Field, 3>& u) const;
  /// seed += sum_i g_i ds_i/du, on the sensors' faces (ghosts included). Not collective.
  void add_transpose(const std::vector<double>& g, std::array<Field, 3>& seed) const;

 private:
  std::vector<std::pair<int, IndexSpace>> m_sensors;
};

} // namespace navier_stokes
} // namespace undertow
