#pragma once
/// \file
/// Velocity boundary conditions of the Navier-Stokes solver, one per face of the box
/// (x-, x+, y-, y+, z-, z+), and what each imposes on the MAC velocity and the pressure:
///
/// - periodic: halo exchange for everything.
/// - wall: normal velocity 0; tangential ghosts no-slip at the wall's velocity; pressure Neumann.
/// - slip: normal velocity 0; tangential ghosts zero-gradient (no shear); pressure Neumann.
/// - inflow: normal velocity profile * velocity; tangential ghosts no-slip at that velocity;
///   pressure Neumann.
/// - outflow: normal velocity evolves with the momentum equation (zero-gradient ghost beyond);
///   tangential ghosts zero-gradient; p = 0 on the face.
/// - convective: as outflow, but the normal velocity on the face is advected out (below).
///
/// A convective face is an outflow whose normal velocity obeys du/dt + U_c du/dn = 0 (n the
/// outward normal, first-order upwind difference) instead of the momentum equation, so that
/// vortices leave with speed U_c instead of reflecting; U_c is the magnitude of the normal
/// component of the face's `velocity`. Its tangential ghosts are zero-gradient, as for outflow.
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

enum class BoundaryKind { Periodic, Wall, Slip, Inflow, Outflow, Convective };

/// Outflow faces, zero-gradient or convective: p = 0 on the face, normal velocity not prescribed.
inline bool is_outflow(BoundaryKind k) {
  return k == BoundaryKind::Outflow || k == BoundaryKind::Convective;
}
enum class InflowProfile { Uniform, Parabolic };

struct FaceBoundary {
  BoundaryKind kind = BoundaryKind::Wall;
  /// Wall velocity (wall), peak inflow velocity (inflow), or convection speed U_c along the normal
  /// (convective) [m/s].
  double velocity[3] = {0, 0, 0};
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

/// Where the parabolic inflow factor 4 s (1 - s) applies on one face, per axis; callable on the
/// device.
struct Profile {
  double origin[3];
  double length[3];
  int parabolic[3];

  /// The factor at the face point with local indices (i, j, k) of geometry `g` (1 if uniform).
  KOKKOS_INLINE_FUNCTION double factor(const GridGeometry& g, long i, long j, long k) const {
    const long idx[3] = {i, j, k};
    double f = 1.0;
    for (int t = 0; t < 3; ++t)
      if (parabolic[t]) {
        const double s = (g.coordinate(t, idx[t]) - origin[t]) / length[t];
        f *= 4.0 * s * (1.0 - s);
      }
    return f;
  }
};

/// The profile of face `b` whose normal is axis `normal`.
Profile profile_of(const Domain& d, const FaceBoundary& b, int normal);

/// `space` reduced to one layer at index `at` along `axis`.
inline IndexSpace layer(IndexSpace space, int axis, long at) {
  space.begin[axis] = at;
  space.end[axis] = at + 1;
  return space;
}

} // namespace navier_stokes
} // namespace undertow
