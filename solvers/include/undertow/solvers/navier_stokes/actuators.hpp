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
///   f(theta - theta_2), V(t) = jet_velocity a(t) and f(s) = cos(pi s / width) for |s| < width /
///   2: one blows what the other sucks (zero net mass flux by construction), as in Rabault et
///   al. (J. Fluid Mech. 865, 2019).
///
/// A pattern is zero beyond `reach` = 1.5 radii from the body's centre, so that it acts on its
/// body only; its centre is fixed when the case is read (moving the body in a shape gradient
/// does not move its actuators: the pattern is a fixed field).

#include "undertow/core/config.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/math.hpp"
#include "undertow/solvers/control/time_signal.hpp"
#include "undertow/solvers/navier_stokes/obstacles.hpp"

#include <string>
#include <vector>

namespace undertow {
namespace navier_stokes {

enum class ActuatorKind { Rotation, Jets };

/// One pattern G of an actuator, callable on the device: a rotation, or one jet with its sign.
struct ActuatorPattern {
  int rotation = 1; ///< 1: rigid rotation; 0: a radial jet
  double centre[2] = {0, 0};
  double reach = 0; ///< G = 0 beyond this distance from the centre [m]
  double angle = 0; ///< a jet's direction [rad], counter-clockwise from +x
  double width = 0; ///< a jet's angular width [rad]
  double sign = 1;  ///< +1 blows, -1 sucks

  /// Component c of G at (x, y) [m/s per unit amplitude: 1/s for a rotation, 1 for a jet].
  KOKKOS_INLINE_FUNCTION double value(int c, double x, double y) const {
    const double dx = x - centre[0], dy = y - centre[1];
    const double r = math::sqrt(dx * dx + dy * dy);
    if (c > 1 || !(r < reach))
      return 0.0;
    if (rotation)
      return c == 0 ? -dy : dx;
    if (!(r > 0.0))
      return 0.0;
    const double d = math::atan2(dy, dx) - angle;
    const double s = math::atan2(math::sin(d), math::cos(d)); // d wrapped to (-pi, pi]
    if (!(2.0 * math::abs(s) < width))
      return 0.0;
    const double profile = sign * math::cos(math::pi * s / width);
    return profile * (c == 0 ? dx : dy) / r;
  }
};

struct Actuator {
  ActuatorKind kind = ActuatorKind::Rotation;
  int body = 0;                          ///< the obstacle (0-based)
  double scale = 0;                      ///< rotation_rate [rad/s] or jet_velocity [m/s]
  control::TimeSignal signal;            ///< a(t)
  std::vector<ActuatorPattern> patterns; ///< one rotation, or the two jets

  /// A(t) = scale a(t) [rad/s or m/s]. Not collective.
  double amplitude(double t) const { return scale * signal.value(t); }
  /// "obstacle1.rotation" or "obstacle1.jet": the prefix of its keys and parameters.
  std::string name() const;
  /// The pattern's value at (x, y): the sum over its patterns. Device-callable through the
  /// patterns; this host form is for tests. Not collective.
  double pattern(int c, double x, double y) const;
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
