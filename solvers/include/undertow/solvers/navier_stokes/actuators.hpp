#pragma once
/// \file
/// Actuators of penalised bodies: what the Brinkman penalty drives the flow inside a body
/// towards. Without actuators the target velocity is zero (a body at rest); with them it is
///
///   U(x, t) = sum_k A_k(t) G_k(x),   A_k(t) = scale_k a_k(t),
///
/// G_k a fixed pattern and a_k a control signal in time (control/time_signal.hpp). The penalty
/// then reads -(chi / eta) (u - U): the implicit penalised step becomes u_p = (e + dt chi U / eta)
/// / (1 + dt chi / eta), and the force on the body (chi_k / eta) (u_p - U). U is linear in the
/// amplitudes, so the adjoint's derivative with respect to A_k(t) is sum dJ/dU . G_k over the
/// faces, and to the scale and the signal's coefficients follows by a(t) and phi_j(t).
///
/// Kinds (bodies of shape circle; about the z axis in 3D, where the circle is a cylinder):
/// - rotation: rigid rotation at Omega(t) = rotation_rate a(t) [rad/s] counter-clockwise,
///   G = (-(y - y_c), x - x_c, 0).
/// - jets: a pair of synthetic jets at two angles theta_1, theta_2 of the body's surface, each
///   jet_width wide, blowing radially with velocity +V(t) f(theta - theta_1) and -V(t)
///   f(theta - theta_2) at the surface r = R, V(t) = jet_velocity a(t) and f(s) = cos(pi s /
///   width) for |s| < width / 2: one blows what the other sucks (zero net mass flux by
///   construction), as in Rabault et al. (J. Fluid Mech. 865, 2019). Each jet's flux is
///   Q = V R width 2 / pi per unit depth. The field is the curl of a stream function
///
///     psi(r, theta) = g(r / R) Psi(theta),  g(s) = 2 s^2 - s^4 (s < 1), 1 (s >= 1),
///     Psi'(theta) = R (f(theta - theta_1) - f(theta - theta_2)),  Psi of mean zero,
///
///   (u_r = psi_theta / r, u_theta = -psi_r): divergence-free, radial outside the body, with no
///   slip along the surface (g'(1) = 0); inside the body it carries the flux from the sucking
///   jet to the blowing one (on both sides, Psi's mean being zero). On the grid a face's value is
///   the difference of psi between its two ends over its length, so that the discrete target is
///   divergence-free to round-off on any rectilinear grid and each jet delivers exactly Q. (A
///   radial field within each jet's sector, the form before, has a source inside the body that
///   the projection removes: the jets then deliver a fraction of Q; docs/control.md.)
///
/// A pattern is zero beyond `reach` = 1.5 radii from the body's centre, so that it acts on its
/// body only; its centre is fixed when the case is read (moving the body in a shape gradient
/// does not move its actuators: the pattern is a fixed field).

#include "undertow/core/config.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/math.hpp"
#include "undertow/solvers/control/time_signal.hpp"
#include "undertow/solvers/navier_stokes/obstacles.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace undertow {
namespace navier_stokes {

enum class ActuatorKind { Rotation, Jets };

/// The pattern G of an actuator, callable on the device: a rotation, or a jet pair.
struct ActuatorPattern {
  int rotation = 1; ///< 1: rigid rotation; 0: a jet pair
  double centre[2] = {0, 0};
  double reach = 0;  ///< G = 0 beyond this distance from the centre [m]
  double radius = 0; ///< jets: the body's radius R [m]
  double width = 0;  ///< jets: each jet's angular width [rad]
  /// Jets: the direction from which the angles phi are measured (the middle of the arc from
  /// the blowing jet counter-clockwise to the sucking one) [rad, counter-clockwise from +x].
  double reference = 0;
  double phi[2] = {0, 0}; ///< jets: the blowing and the sucking jet's angles from `reference`,
                          ///< in (width / 2, 2 pi - width / 2) [rad]
  double mean = 0;        ///< jets: the mean over theta of the unshifted Psi [m]

  /// Jets: Psi(theta) [m^2/s per m/s of V] and its derivative Psi'(theta) [m], for theta the
  /// direction of (dx, dy).
  KOKKOS_INLINE_FUNCTION void angular(double dx, double dy, double& psi, double& dpsi) const {
    const double d = math::atan2(dy, dx) - reference;
    double a = math::atan2(math::sin(d), math::cos(d)); // in (-pi, pi]
    if (a < 0.0)
      a += 2.0 * math::pi; // in [0, 2 pi)
    psi = -mean;
    dpsi = 0.0;
    for (int j = 0; j < 2; ++j) {
      const double s = a - phi[j], sign = j == 0 ? 1.0 : -1.0;
      if (2.0 * s >= width) {
        psi += sign * radius * 2.0 * width / math::pi;
      } else if (2.0 * s > -width) {
        psi += sign * radius * width / math::pi * (1.0 + math::sin(math::pi * s / width));
        dpsi += sign * radius * math::cos(math::pi * s / width);
      }
    }
  }

  /// Jets: the stream function psi at (x, y) [m^2/s per m/s of V]; 0 at the centre. Not
  /// limited to the reach (the caller is).
  KOKKOS_INLINE_FUNCTION double stream(double x, double y) const {
    const double dx = x - centre[0], dy = y - centre[1];
    const double s = math::sqrt(dx * dx + dy * dy) / radius;
    double psi = 0, dpsi = 0;
    angular(dx, dy, psi, dpsi);
    return (s < 1.0 ? s * s * (2.0 - s * s) : 1.0) * psi;
  }

  /// Component c of G at (x, y) [m/s per unit amplitude: 1/s for a rotation, 1 for jets]: the
  /// field itself (the grid's jets are differences of `stream`, see above).
  KOKKOS_INLINE_FUNCTION double value(int c, double x, double y) const {
    const double dx = x - centre[0], dy = y - centre[1];
    const double r = math::sqrt(dx * dx + dy * dy);
    if (c > 1 || !(r < reach))
      return 0.0;
    if (rotation)
      return c == 0 ? -dy : dx;
    if (!(r > 0.0))
      return 0.0;
    double psi = 0, dpsi = 0;
    angular(dx, dy, psi, dpsi);
    const double s = r / radius;
    const double ur = (s < 1.0 ? s * (2.0 - s * s) / radius : 1.0 / r) * dpsi; // g(s) / r Psi'
    const double ut = s < 1.0 ? -4.0 * s * (1.0 - s * s) / radius * psi : 0.0; // -g'(s) / R Psi
    const double cx = dx / r, cy = dy / r;
    return c == 0 ? ur * cx - ut * cy : ur * cy + ut * cx;
  }
};

/// The pattern of a jet pair on a circle of radius `radius` at `centre`, zero beyond `reach`:
/// the first jet at `first_angle` blows, the second at `second_angle` sucks [rad,
/// counter-clockwise from +x], each `width` wide [rad]; the jets must not overlap. Angles are
/// measured from the middle of the arc that runs from the blowing jet counter-clockwise to the
/// sucking one, so that neither jet straddles their origin. Not collective.
inline ActuatorPattern jet_pair_pattern(const double centre[2], double radius, double reach,
                                        double first_angle, double second_angle, double width) {
  ActuatorPattern p;
  p.rotation = 0;
  p.centre[0] = centre[0];
  p.centre[1] = centre[1];
  p.reach = reach;
  p.radius = radius;
  p.width = width;
  const double turn = 2 * math::pi;
  const double arc = std::fmod(std::fmod(second_angle - first_angle, turn) + turn, turn);
  p.reference = first_angle + 0.5 * arc;
  p.phi[0] = turn - 0.5 * arc;
  p.phi[1] = 0.5 * arc;
  // The mean of R (F(phi - phi_1) - F(phi - phi_2)) over [0, 2 pi), F the clamped integral of
  // the profile (0 below the jet, 2 width / pi above it): each term's integral is
  // (2 width / pi) (2 pi - phi_j).
  p.mean = radius * (2 * width / math::pi) * (p.phi[1] - p.phi[0]) / turn;
  return p;
}

/// Component c of pattern p on the face (i, j) of a c-face layout `g` (local indices) [as
/// ActuatorPattern::value]: a rotation at the face's centre; jets as the difference of their
/// stream function between the face's two ends over its length, so that the faces' field is
/// divergence-free to round-off and carries each jet's exact flux. Zero beyond the reach.
KOKKOS_INLINE_FUNCTION double pattern_on_face(const ActuatorPattern& p, const GridGeometry& g,
                                              int c, long i, long j) {
  const double x = g.coordinate(0, i), y = g.coordinate(1, j);
  if (p.rotation || c > 1)
    return p.value(c, x, y);
  const double dx = x - p.centre[0], dy = y - p.centre[1];
  if (!(dx * dx + dy * dy < p.reach * p.reach))
    return 0.0;
  if (c == 0) { // u = d psi / dy across the face's extent in y
    const double lo = g.cell_face(1, j), hi = g.cell_face(1, j + 1);
    return (p.stream(x, hi) - p.stream(x, lo)) / (hi - lo);
  }
  const double lo = g.cell_face(0, i), hi = g.cell_face(0, i + 1); // v = -d psi / dx
  return -(p.stream(hi, y) - p.stream(lo, y)) / (hi - lo);
}

struct Actuator {
  ActuatorKind kind = ActuatorKind::Rotation;
  int body = 0;               ///< the obstacle (0-based)
  double scale = 0;           ///< rotation_rate [rad/s] or jet_velocity [m/s]
  control::TimeSignal signal; ///< a(t)
  ActuatorPattern pattern;    ///< G: the rotation, or the jet pair

  /// A(t) = scale a(t) [rad/s or m/s]. Not collective.
  double amplitude(double t) const { return scale * signal.value(t); }
  /// "obstacle1.rotation" or "obstacle1.jet": the prefix of its keys and parameters.
  std::string name() const;
};

/// Rigid rotation of body `body` (0-based; a circle `shape`) at `rate` [rad/s] times its signal
/// (constant until set). Not collective.
Actuator rotation_actuator(int body, const Shape& shape, double rate);
/// A jet pair on body `body` (a circle `shape`): the first at `first_angle` blows, the second at
/// `second_angle` sucks [rad, counter-clockwise from +x], each `width` wide [rad], peak
/// velocity `velocity` [m/s] times its signal (constant until set). Not collective.
Actuator jet_pair(int body, const Shape& shape, double first_angle, double second_angle,
                  double width, double velocity);

/// Declares obstacleK.rotation_rate, obstacleK.rotation_signal*, obstacleK.jet_angles,
/// obstacleK.jet_width, obstacleK.jet_velocity and obstacleK.jet_signal* for K = 1 ... 4. Not
/// collective.
void declare_actuator_keys(ConfigSchema& schema);
/// The actuators the keys ask for, for the obstacles read from the same configuration. Throws
/// ConfigError naming the key and the fix: an actuated body that is not a circle, jet angles
/// that are not a pair, a signal without its rate or velocity, another obstacle within an
/// actuator's reach. Not collective.
std::vector<Actuator> actuators_from_config(const Config& config, const ObstacleSet& obstacles);

} // namespace navier_stokes
} // namespace undertow
