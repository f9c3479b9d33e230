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
/// A moving lid is a wall with a tangential velocity. The velocity of an inflow or wall face may
/// vary in time: it is multiplied by the face's control signal a(t) (control/time_signal.hpp),
/// evaluated at the time of each stage (NavierStokes::set_boundary_time). An inflow profile is
/// uniform or parabolic (4 s (1 - s) along every non-periodic tangential axis, s the relative
/// position, so the velocity given is the peak velocity).

#include "undertow/core/config.hpp"
#include "undertow/core/domain.hpp"
#include "undertow/solvers/control/time_signal.hpp"
#include "undertow/solvers/linear/pressure_poisson.hpp"

#include <array>
#include <string>
#include <vector>

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
  /// a(t): the face's velocity at time t is `velocity` * a(t) (inflow and wall faces).
  control::TimeSignal signal;
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
  /// a(t) of each face (1 where constant). Not collective.
  std::array<double, 6> amplitudes(double t) const;
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

/// One thing a boundary sets, on this rank's part of one face: the one table of boundary
/// conditions that NavierStokes::prepare applies in order and NavierStokesAdjoint::prepare_adjoint
/// transposes in reverse order.
struct BoundaryRule {
  enum class Kind {
    NormalFace,            ///< the normal velocity on the face: value * profile (wall: 0)
    NormalGhost,           ///< the normal component beyond the face: zero gradient
    TangentialDirichlet,   ///< a tangential ghost of a wall or inflow: no-slip at value (* profile)
    TangentialZeroGradient ///< a tangential ghost of a slip or outflow face: the first value inside
  } kind;
  int axis; ///< the face's normal
  int side; ///< 0: lower, 1: upper
  int face() const { return 2 * axis + side; }
  int component; ///< the velocity component set
  long inward;   ///< +1 at the lower side, -1 at the upper
  double value;  ///< the prescribed velocity [m/s] (times the profile where `scaled`, and the
                 ///< face's a(t))
  bool scaled;   ///< an inflow face: the value follows its profile
  Profile profile;
  /// TangentialDirichlet on a stretched axis: the ghost is w[0] wall + w[1] first + w[2] second
  /// (the quadratic through the wall and the first two values inside, at the mirrored ghost
  /// centre). On a uniform axis no_slip_ghost, whose weights are 8/3, -2 and 1/3.
  bool stretched = false;
  double weights[3] = {0, 0, 0};

  /// The layer of local indices of the component's field (owned space `own`) it sets.
  IndexSpace layer_of(const IndexSpace& own, const IndexSpace& ghosted) const {
    const long face = side == 0 ? own.begin[axis] : own.end[axis] - 1;
    switch (kind) {
    case Kind::NormalFace:
      return layer(ghosted, axis, face);
    case Kind::NormalGhost:
      return layer(ghosted, axis, face - inward);
    default:
      return layer(ghosted, axis, side == 0 ? own.begin[axis] - 1 : own.end[axis]);
    }
  }
};

/// The rules of the faces this rank touches, in the order prepare() applies them: the
/// prescribed normal velocities (before the halo exchange) if `faces`, else the ghosts beyond
/// the boundary (after it). Not collective.
std::vector<BoundaryRule> boundary_rules(const Domain& d, const BoundarySet& b, bool faces);

} // namespace navier_stokes
} // namespace undertow
