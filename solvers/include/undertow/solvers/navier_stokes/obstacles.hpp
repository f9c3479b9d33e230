#pragma once
/// \file
/// Obstacles by Brinkman volume penalisation. Each obstacle is a signed distance phi (negative
/// inside) of a parametrised shape; its mask on the faces of velocity component c is the
/// compactly supported smooth Heaviside brinkman_mask(phi, eps), eps = obstacles.smoothing * min h,
/// a smooth function of the shape parameters (so the optimiser can move them later). The fluid
/// feels -(chi / eta) u; the solver treats it implicitly, u_p = w / (1 + dt chi / eta), so dt is
/// not limited by eta. The force of the fluid on obstacle k is the momentum the penalty removes,
/// F_k = sum over faces of (chi_k / eta) u_p dV.
///
/// Shapes ("2D" shapes are extruded along z in 3D):
/// | shape     | parameters                                   |
/// |-----------|----------------------------------------------|
/// | circle    | centre, radius (a cylinder along z in 3D)    |
/// | sphere    | centre, radius (3D)                          |
/// | ellipse   | centre, semi-axes a b, angle                 |
/// | rectangle | centre, size (2 or 3 entries), angle (2D)    |
/// | naca      | leading edge (centre), chord, 4 digits, angle of attack |
/// | star      | centre, r(theta) = r0 + sum_k a_k cos k theta + b_k sin k theta |

#include "undertow/core/config.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/math.hpp"

#include <array>
#include <string>
#include <vector>

namespace undertow {
namespace navier_stokes {

constexpr int kMaxObstacles = 4;
constexpr int kMaxFourier = 8; ///< star: up to 8 harmonics

enum class ShapeKind : int { Circle, Sphere, Ellipse, Rectangle, Naca, Star };

/// A shape and its signed distance, callable on the device.
struct Shape {
  ShapeKind kind = ShapeKind::Circle;
  double centre[3] = {0, 0, 0};
  double radius = 0.5;        ///< circle, sphere; r0 of a star
  double size[3] = {1, 1, 1}; ///< rectangle edges; ellipse semi-axes in size[0], size[1]
  double angle = 0;           ///< rotation about z [rad], counter-clockwise; for naca, the
                              ///< angle of attack (nose up, flow along +x)
  double chord = 1;           ///< naca
  double camber = 0, camber_position = 0, thickness = 0.12; ///< naca m, p, t (fractions)
  int harmonics = 0;                                        ///< star
  double cos_coeff[kMaxFourier] = {0};
  double sin_coeff[kMaxFourier] = {0};

  /// Signed distance (negative inside) at (x, y, z). Exact for circle, sphere and rectangle; a
  /// first-order estimate F / |grad F| for the ellipse; the radial gap for the star; distance to
  /// the camber line minus the half thickness for the airfoil.
  KOKKOS_INLINE_FUNCTION double distance(double x, double y, double z) const {
    const double dx = x - centre[0], dy = y - centre[1], dz = z - centre[2];
    const double c = math::cos(angle), s = math::sin(angle);
    // Body frame: rotate by -angle (for naca: flow frame to chord frame, nose at the origin).
    const double bx = kind == ShapeKind::Naca ? c * dx - s * dy : c * dx + s * dy;
    const double by = kind == ShapeKind::Naca ? s * dx + c * dy : -s * dx + c * dy;
    switch (kind) {
    case ShapeKind::Circle:
      return math::sqrt(dx * dx + dy * dy) - radius;
    case ShapeKind::Sphere:
      return math::sqrt(dx * dx + dy * dy + dz * dz) - radius;
    case ShapeKind::Ellipse: {
      const double a = size[0], b = size[1];
      const double f = math::sqrt(bx * bx / (a * a) + by * by / (b * b));
      const double gx = bx / (a * a), gy = by / (b * b);
      const double grad = math::sqrt(gx * gx + gy * gy) / (f > 1e-300 ? f : 1e-300);
      return (f - 1.0) / (grad > 1e-300 ? grad : 1e-300);
    }
    case ShapeKind::Rectangle: {
      const double q[3] = {math::abs(bx) - 0.5 * size[0], math::abs(by) - 0.5 * size[1],
                           size[2] > 0 ? math::abs(dz) - 0.5 * size[2] : -1e300};
      double outside = 0, inside = -1e300;
      for (int d = 0; d < 3; ++d) {
        const double p = q[d] > 0 ? q[d] : 0.0;
        outside += p * p;
        inside = q[d] > inside ? q[d] : inside;
      }
      return math::sqrt(outside) + (inside < 0 ? inside : 0.0);
    }
    case ShapeKind::Naca: {
      // Chord coordinate xc in [0, 1]; beyond it, the distance to the nose or tail point.
      const double xc = bx / chord;
      const double xs = xc < 0 ? 0.0 : (xc > 1 ? 1.0 : xc);
      const double m = camber, p = camber_position, t = thickness;
      double yc = 0;
      if (m > 0 && p > 0)
        yc = xs < p ? m / (p * p) * (2 * p * xs - xs * xs)
                    : m / ((1 - p) * (1 - p)) * (1 - 2 * p + 2 * p * xs - xs * xs);
      const double yt = 5 * t *
                        (0.2969 * math::sqrt(xs) - 0.1260 * xs - 0.3516 * xs * xs +
                         0.2843 * xs * xs * xs - 0.1036 * xs * xs * xs * xs);
      const double ex = (xc - xs) * chord, ey = by - yc * chord;
      return math::sqrt(ex * ex + ey * ey) - yt * chord;
    }
    case ShapeKind::Star: {
      const double r = math::sqrt(dx * dx + dy * dy);
      const double theta = math::atan2(dy, dx);
      double rt = radius;
      for (int k = 0; k < harmonics; ++k)
        rt += cos_coeff[k] * math::cos((k + 1) * theta) + sin_coeff[k] * math::sin((k + 1) * theta);
      return r - rt;
    }
    }
    return 1e300;
  }
};

/// Compactly supported smooth Heaviside of -phi: 1 for phi <= -eps, 0 for phi >= eps, and
/// (1 - phi/eps - sin(pi phi/eps)/pi) / 2 between (C^1 in phi, so in the shape parameters). A
/// mask without compact support (tanh) would not do: with a stiff penalty even a tail value of
/// 1e-4 acts as solid and widens the body by several cells.
KOKKOS_INLINE_FUNCTION double brinkman_mask(double phi, double eps) {
  if (phi <= -eps)
    return 1.0;
  if (phi >= eps)
    return 0.0;
  const double s = phi / eps;
  return 0.5 * (1.0 - s - math::sin(math::pi * s) / math::pi);
}

struct ObstacleSet {
  std::vector<Shape> shapes;
  double eta = 1e-6;      ///< penalty time scale [s]
  double smoothing = 1.0; ///< mask width in cells

  /// Declares [obstacles] and [obstacle1] ... [obstacle4]. Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// Reads them; throws ConfigError naming the key. Not collective.
  static ObstacleSet from_config(const Config& config, int dim);
};

} // namespace navier_stokes
} // namespace undertow
