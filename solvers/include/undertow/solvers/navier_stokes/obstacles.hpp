#pragma once
/// \file
/// Obstacles by Brinkman volume penalisation. Each obstacle is a signed distance phi (negative
/// inside) of a parametrised shape; its mask on the faces of velocity component c (face_mask) is
/// either the compactly supported smooth Heaviside brinkman_mask(phi, eps), eps =
/// obstacles.smoothing * min h, or the interpolated mask that puts the no-slip condition at the
/// true surface (MaskKind), both C^1 functions of the shape parameters (so that the optimiser
/// can move them). The fluid feels -(chi / eta) u; the solver treats it implicitly,
/// u_p = w / (1 + dt chi / eta), so dt is not limited by eta. The force of the fluid on obstacle k
/// is the momentum the penalty removes, F_k = sum over faces of (chi_k / eta) u_p dV.
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
/// | cst       | leading edge (centre), chord, angle of attack, upper and lower Bernstein weights |
/// | spline    | centre, control radii c_0 ... c_{n-1} of r(theta), 4 <= n <= 16 |
///
/// The CST (class-shape transformation, Kulfan 2008) airfoil: with psi = x / chord,
/// y_upper = C(psi) sum_i A_i B_i,N(psi), y_lower = -C(psi) sum_i L_i B_i,N(psi), the class
/// function C = sqrt(psi) (1 - psi) (a round nose and a sharp trailing edge) and the Bernstein
/// polynomials B_i,N of degree N = weights - 1. Positive lower weights put the lower surface below
/// the chord.
///
/// The spline (B-spline radii) is a body symmetric about the line y = centre_y: r(theta) for
/// theta = |atan2(y - y_c, x - x_c)| in [0, pi] (0 downstream, along +x; pi upstream) is the
/// clamped uniform cubic B-spline of the control radii c_0 ... c_{n-1} over n - 3 equal intervals
/// of theta. So r(0) = c_0 and r(pi) = c_{n-1} are the rear and front ends, and the slopes there,
/// r'(0) = 3 (c_1 - c_0) / (pi / (n - 3)) and r'(pi) = 3 (c_{n-1} - c_{n-2}) / (pi / (n - 3)), need
/// not vanish: c_1 < c_0 makes the rear a corner of half-angle atan(r / |r'|) (a pointed end),
/// c_1 = c_0 a smooth end. Equal radii give a circle. r is linear in the c_j, so the mask is as
/// smooth in them as in a star's coefficients. The angle is not used (nor by the star).

#include "undertow/core/bspline.hpp"
#include "undertow/core/config.hpp"
#include "undertow/core/dual.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/math.hpp"

#include <array>
#include <string>
#include <vector>

namespace undertow {
namespace navier_stokes {

constexpr int kMaxObstacles = 4;
constexpr int kMaxFourier = 8; ///< star: up to 8 harmonics

constexpr int kMaxSplineRadii = 2 * kMaxFourier; ///< spline: up to 16 control radii

enum class ShapeKind : int { Circle, Sphere, Ellipse, Rectangle, Naca, Star, Cst, Spline };

/// A shape and its signed distance, callable on the device. T is double, or Dual to
/// differentiate the distance with respect to a parameter (see shape_parameters).
template <class T>
struct BasicShape {
  ShapeKind kind = ShapeKind::Circle;
  T centre[3] = {0, 0, 0};
  T radius = 0.5;        ///< circle, sphere; r0 of a star
  T size[3] = {1, 1, 1}; ///< rectangle edges; ellipse semi-axes in size[0], size[1]
  T angle = 0;           ///< rotation about z [rad], counter-clockwise; for naca, the
                         ///< angle of attack (nose up, flow along +x)
  T chord = 1;           ///< naca
  T camber = 0, camber_position = 0, thickness = 0.12; ///< naca m, p, t (fractions)
  /// star: harmonics; cst: weights per surface (N + 1); spline: control radii n
  int harmonics = 0;
  T cos_coeff[kMaxFourier] = {0}; ///< star: a_k; cst: upper weights A_i; spline: c_0 .. c_7
  T sin_coeff[kMaxFourier] = {0}; ///< star: b_k; cst: lower weights L_i; spline: c_8 .. c_15

  /// Signed distance (negative inside) at (x, y, z). Exact for circle, sphere and rectangle; a
  /// first-order estimate F / |grad F| for the ellipse; the radial gap for the star; distance to
  /// the camber line minus the half thickness for the airfoil.
  KOKKOS_INLINE_FUNCTION T distance(double x, double y, double z) const {
    const T dx = x - centre[0], dy = y - centre[1], dz = z - centre[2];
    const T c = math::cos(angle), s = math::sin(angle);
    // Body frame: rotate by -angle (for an airfoil: flow frame to chord frame, nose at the
    // origin, the angle of attack nose up).
    const bool airfoil = kind == ShapeKind::Naca || kind == ShapeKind::Cst;
    const T bx = airfoil ? c * dx - s * dy : c * dx + s * dy;
    const T by = airfoil ? s * dx + c * dy : -s * dx + c * dy;
    switch (kind) {
    case ShapeKind::Circle:
      return math::sqrt(dx * dx + dy * dy) - radius;
    case ShapeKind::Sphere:
      return math::sqrt(dx * dx + dy * dy + dz * dz) - radius;
    case ShapeKind::Ellipse: {
      const T a = size[0], b = size[1];
      const T f = math::sqrt(bx * bx / (a * a) + by * by / (b * b));
      const T gx = bx / (a * a), gy = by / (b * b);
      const T grad = math::sqrt(gx * gx + gy * gy) / (f > 1e-300 ? f : T(1e-300));
      return (f - 1.0) / (grad > 1e-300 ? grad : T(1e-300));
    }
    case ShapeKind::Rectangle: {
      const T q[3] = {math::abs(bx) - 0.5 * size[0], math::abs(by) - 0.5 * size[1],
                      size[2] > 0 ? math::abs(dz) - 0.5 * size[2] : T(-1e300)};
      T outside = 0, inside = -1e300;
      for (int d = 0; d < 3; ++d) {
        const T p = q[d] > 0 ? q[d] : T(0.0);
        outside += p * p;
        inside = q[d] > inside ? q[d] : inside;
      }
      return math::sqrt(outside) + (inside < 0 ? inside : T(0.0));
    }
    case ShapeKind::Naca: {
      // Chord coordinate xc in [0, 1]; beyond it, the distance to the nose or tail point.
      const T xc = bx / chord;
      const T xs = xc < 0 ? T(0.0) : (xc > 1 ? T(1.0) : xc);
      const T m = camber, p = camber_position, t = thickness;
      T yc = 0;
      if (p > 0) // (m = 0 gives yc = 0, with the derivative in m that the branch carries)
        yc = xs < p ? m / (p * p) * (2 * p * xs - xs * xs)
                    : m / ((1 - p) * (1 - p)) * (1 - 2 * p + 2 * p * xs - xs * xs);
      const T yt = 5 * t *
                   (0.2969 * math::sqrt(xs) - 0.1260 * xs - 0.3516 * xs * xs +
                    0.2843 * xs * xs * xs - 0.1036 * xs * xs * xs * xs);
      const T ex = (xc - xs) * chord, ey = by - yc * chord;
      return math::sqrt(ex * ex + ey * ey) - yt * chord;
    }
    case ShapeKind::Cst: {
      // The same construction as naca: the distance to the mean line minus the half thickness.
      const T xc = bx / chord;
      const T xs = xc < 0 ? T(0.0) : (xc > 1 ? T(1.0) : xc);
      T upper, lower;
      cst_surfaces(xs, upper, lower);
      const T yc = 0.5 * (upper - lower), yt = 0.5 * (upper + lower);
      const T ex = (xc - xs) * chord, ey = by - yc * chord;
      return math::sqrt(ex * ex + ey * ey) - yt * chord;
    }
    case ShapeKind::Star: {
      const T r = math::sqrt(dx * dx + dy * dy);
      return r - star_radius(math::atan2(dy, dx));
    }
    case ShapeKind::Spline: {
      const T r = math::sqrt(dx * dx + dy * dy);
      return r - spline_radius(math::abs(math::atan2(dy, dx)));
    }
    }
    return T(1e300);
  }

  /// star: r(theta) = r0 + sum_k a_k cos k theta + b_k sin k theta [m].
  KOKKOS_INLINE_FUNCTION T star_radius(const T& theta) const {
    T r = radius;
    for (int k = 0; k < harmonics && k < kMaxFourier; ++k)
      r += cos_coeff[k] * math::cos((k + 1) * theta) + sin_coeff[k] * math::sin((k + 1) * theta);
    return r;
  }

  /// spline: the control radius c_j [m] (stored in the coefficient arrays, parameter 12 + j).
  KOKKOS_INLINE_FUNCTION const T& spline_control(int j) const {
    return j < kMaxFourier ? cos_coeff[j] : sin_coeff[j - kMaxFourier];
  }

  /// spline: r(theta) [m] for theta in [0, pi], by de Boor's algorithm on the clamped knots
  /// u_i = min(max(i - 3, 0), n - 3), i = 0 ... n + 3, in units of the intervals pi / (n - 3).
  KOKKOS_INLINE_FUNCTION T spline_radius(const T& theta) const {
    const int intervals = harmonics - 3;
    const T t = theta * (intervals / math::pi);
    const int first = clamped_interval(value_of(t), intervals);
    T d[4];
    for (int j = 0; j < 4; ++j)
      d[j] = spline_control(first + j);
    return clamped_de_boor(d, first, intervals, t);
  }

  /// cst: the heights, in chords, of the upper surface above the chord and of the lower one
  /// below it at psi = x / chord in [0, 1]: sqrt(psi) (1 - psi) sum_i w_i B_i,N(psi).
  KOKKOS_INLINE_FUNCTION void cst_surfaces(const T& psi, T& upper, T& lower) const {
    upper = 0;
    lower = 0;
    const int degree = (harmonics < kMaxFourier ? harmonics : kMaxFourier) - 1;
    double binomial = 1; // N choose i
    for (int i = 0; i <= degree; ++i) {
      T basis = binomial;
      for (int p = 0; p < i; ++p)
        basis = basis * psi;
      for (int p = 0; p < degree - i; ++p)
        basis = basis * (1.0 - psi);
      upper += cos_coeff[i] * basis;
      lower += sin_coeff[i] * basis;
      binomial = binomial * double(degree - i) / double(i + 1);
    }
    const T cls = math::sqrt(psi) * (1.0 - psi);
    upper = upper * cls;
    lower = lower * cls;
  }
};

using Shape = BasicShape<double>;

/// Compactly supported smooth Heaviside of -phi: 1 for phi <= -eps, 0 for phi >= eps, and
/// (1 - phi/eps - sin(pi phi/eps)/pi) / 2 between (C^1 in phi, so in the shape parameters). A
/// mask without compact support (tanh) would not do: with a stiff penalty even a tail value of
/// 1e-4 acts as solid and widens the body by several cells.
template <class T>
KOKKOS_INLINE_FUNCTION T brinkman_mask(const T& phi, double eps) {
  if (phi <= -eps)
    return T(1.0);
  if (phi >= eps)
    return T(0.0);
  const T s = phi / eps;
  return 0.5 * (1.0 - s - math::sin(math::pi * s) / math::pi);
}

/// How the masks are formed (obstacles.mask).
enum class MaskKind : int {
  /// brinkman_mask of the distance: a smooth step of half-width obstacles.smoothing cells. With
  /// the stiff penalty every face it touches is solid, so the body acts about half a cell larger:
  /// forces converge at first order.
  Smooth,
  /// Solid (1) inside; on a fluid face next to the body, the penalty rate chi / eta that the
  /// second-order Dirichlet condition of Gibou et al. (J. Comput. Phys. 176, 2002) adds to the
  /// viscous term: a solid neighbour n at distance h_a along axis a, the wall crossing the link at
  /// theta = phi_f / (phi_f - phi_n) of it, contributes nu (1 - theta) / (theta h_a^2) =
  /// nu (-phi_n) / (phi_f h_a^2). With Q = sum over solid neighbours of -phi_n / h_a^2 [1/m],
  /// chi = Q / (Q + phi_f / (eta nu)): eta nu Q / phi_f on fluid faces, 1 at the wall and inside.
  /// The velocity then vanishes at the true surface, not on the outermost solid faces.
  Interpolated
};

/// What face_mask needs to know about the grid and the flow. Callable on the device.
struct MaskSpec {
  MaskKind kind = MaskKind::Smooth;
  /// Smooth: the half-width of the step [m]. Interpolated: the width over which the kinks of
  /// max(phi, 0) and max(-phi_n, 0) are rounded (C^1), so that the mask stays differentiable in
  /// the shape parameters [m].
  double eps = 0;
  double eta_nu = 0;            ///< interpolated: eta * nu [m^2]
  double inv_h2[3] = {0, 0, 0}; ///< interpolated: 1 / h_a^2 along the axes of the grid [1/m^2]
  /// Interpolated, per axis: uniform cells (inv_h2), or stretched ones, where h_a^2 becomes the
  /// distance to the neighbour times the width of the face's control volume along a.
  bool uniform[3] = {true, true, true};
  int dim = 2;
};

/// max(x, 0) rounded over |x| < delta: (x + delta)^2 / (4 delta) there (C^1).
template <class T>
KOKKOS_INLINE_FUNCTION T rounded_positive(const T& x, double delta) {
  if (x >= delta)
    return x;
  if (x <= -delta)
    return T(0.0);
  return (x + delta) * (x + delta) / (4.0 * delta);
}

/// The mask of `shape` at the point (i, j, k) of a face grid g (see MaskKind). T is double, or
/// Dual for the derivative with respect to a seeded shape parameter.
template <class T>
KOKKOS_INLINE_FUNCTION T face_mask(const BasicShape<T>& shape, const GridGeometry& g, long i,
                                   long j, long k, const MaskSpec& m) {
  const long index[3] = {i, j, k};
  const double x[3] = {g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k)};
  const T phi = shape.distance(x[0], x[1], x[2]);
  if (m.kind == MaskKind::Smooth)
    return brinkman_mask(phi, m.eps);
  const T p = rounded_positive(phi, m.eps);
  if (p <= 0.0)
    return T(1.0);
  T q = 0.0;
  for (int a = 0; a < m.dim; ++a)
    for (int side = -1; side <= 1; side += 2) {
      double y[3] = {x[0], x[1], x[2]};
      y[a] = g.coordinate(a, index[a] + side);
      const double inv_h2 =
          m.uniform[a]
              ? m.inv_h2[a]
              : 1.0 / ((side < 0 ? x[a] - y[a] : y[a] - x[a]) * g.control_width(a, index[a]));
      q += rounded_positive(-shape.distance(y[0], y[1], y[2]), m.eps) * inv_h2;
    }
  return q / (q + p / m.eta_nu);
}

/// A differentiable parameter of a shape: its name in the case file and where it lives.
struct ShapeParameter {
  std::string name; ///< e.g. "centre_x", "radius", "cos_coeff_2"
  int index;        ///< argument of shape_parameter()
};

/// The parameters of `shape` that its distance depends on (in `dim` dimensions). Not collective.
std::vector<ShapeParameter> shape_parameters(const Shape& shape, int dim);

/// The parameter with this index (see shape_parameters) of a shape, for reading or seeding.
template <class T>
KOKKOS_INLINE_FUNCTION T& shape_parameter(BasicShape<T>& s, int index) {
  if (index < 3)
    return s.centre[index];
  if (index == 3)
    return s.radius;
  if (index < 7)
    return s.size[index - 4];
  if (index == 7)
    return s.angle;
  if (index == 8)
    return s.chord;
  if (index == 9)
    return s.camber;
  if (index == 10)
    return s.camber_position;
  if (index == 11)
    return s.thickness;
  if (index < 12 + kMaxFourier)
    return s.cos_coeff[index - 12];
  return s.sin_coeff[index - 12 - kMaxFourier];
}

/// `shape` with T = Dual, parameter `index` seeded with derivative 1.
inline BasicShape<Dual> seeded(const Shape& shape, int index) {
  BasicShape<Dual> d;
  d.kind = shape.kind;
  d.harmonics = shape.harmonics;
  Shape copy = shape;
  for (int p = 0; p < 12 + 2 * kMaxFourier; ++p)
    shape_parameter(d, p) = Dual(shape_parameter(copy, p), p == index ? 1.0 : 0.0);
  return d;
}

/// "obstacle1" for k = 0: the case-file section of obstacle k.
std::string obstacle_section(int k);

struct ObstacleSet {
  std::vector<Shape> shapes;
  /// Brinkman design field: one value per cell in [0, 1] (a cell field, ghost width 1; empty:
  /// none), on each face the mean of its two cells, joined to the masks like one more body
  /// (fluid topology optimisation: 0 is fluid, 1 solid). Not counted in any obstacle's force.
  Field design;
  double eta = 1e-6;      ///< penalty time scale [s]
  double smoothing = 1.0; ///< mask width in cells
  MaskKind mask = MaskKind::Smooth;

  /// The mask's parameters on `domain` for kinematic viscosity nu [m^2/s]. Not collective.
  MaskSpec mask_spec(const Domain& domain, double nu) const;

  /// Declares [obstacles] and [obstacle1] ... [obstacle4]. Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// Reads them, except the design field (see design_field). Throws ConfigError naming the key.
  /// Not collective.
  static ObstacleSet from_config(const Config& config, int dim);
  /// The design field obstacles.design asks for: none (empty), a uniform value, or the dataset
  /// "design" of an HDF5 file on this grid (read by the caller). Not collective.
  bool has_design() const { return design.view().data() != nullptr; }
};

} // namespace navier_stokes
} // namespace undertow
