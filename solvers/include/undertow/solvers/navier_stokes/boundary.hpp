#pragma once
/// \file
/// Velocity boundary conditions of the Navier-Stokes solver, one per face of the box
/// (x-, x+, y-, y+, z-, z+), and what each imposes on the MAC velocity and the pressure:
///
/// | kind     | normal velocity on the face      | tangential ghosts                     | pressure
/// |
/// |----------|----------------------------------|---------------------------------------|---------------|
/// | periodic | (halo exchange)                  | (halo exchange)                       | periodic
/// | | wall     | 0                                | no-slip at the wall's velocity        |
/// Neumann       | | slip     | 0                                | zero gradient (no shear) |
/// Neumann       | | inflow   | profile * velocity               | no-slip at profile * velocity |
/// Neumann       | | outflow  | evolves (zero-gradient ghost)    | zero gradient | p = 0 (face)  |
///
/// A moving lid is a wall with a tangential velocity. An inflow profile is uniform or parabolic
/// (4 s (1 - s) along every non-periodic tangential axis, s the relative position, so the
/// velocity given is the peak velocity).

#include "undertow/core/config.hpp"
#include "undertow/core/domain.hpp"
#include "undertow/solvers/linear/pressure_poisson.hpp"

#include <array>
#include <string>

namespace undertow {
namespace navier_stokes {

enum class BoundaryKind { Periodic, Wall, Slip, Inflow, Outflow };
enum class InflowProfile { Uniform, Parabolic };

struct FaceBoundary {
  BoundaryKind kind = BoundaryKind::Wall;
  double velocity[3] = {0, 0, 0}; ///< wall velocity (wall) or peak inflow velocity (inflow) [m/s]
  InflowProfile profile = InflowProfile::Uniform;
};

/// The six faces, indexed 2 * axis + side (side 0 = lower, 1 = upper).
struct BoundarySet {
  FaceBoundary face[6];

  /// Declares [boundary] keys. Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// Reads them; throws ConfigError if a face contradicts domain.periodic. Not collective.
  static BoundarySet from_config(const Config& config, const DomainSpec& domain);
  /// What the pressure Poisson equation sees on each face.
  std::array<linear::PressureBoundary, 6> pressure_faces() const;
  /// True if the face with `axis`/`side` fixes the normal velocity (wall, slip, inflow).
  bool fixes_normal_velocity(int axis, int side) const;
};

std::string to_string(BoundaryKind kind);

} // namespace navier_stokes
} // namespace undertow
