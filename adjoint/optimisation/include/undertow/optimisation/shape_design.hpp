#pragma once
/// \file
/// Design parameterisations for shape optimisation (docs/optimization.md): a vector x of design
/// variables that sets part of the parameters m of a Navier-Stokes run, the chain rule from
/// dJ/dm to dJ/dx, and the geometry an optimiser constrains (the area and its gradient) and
/// shows (the outline). Every variable enters the Brinkman mask through a smooth signed distance
/// (obstacles.hpp), so J(x) is smooth.
///
/// To add a parameterisation: derive from ShapeDesign, give the shape's distance and its
/// parameters in obstacles.hpp (so that the adjoint differentiates the mask), and register it in
/// make_shape_design.

#include "undertow/adjoint/gradient.hpp"
#include "undertow/adjoint/parameters.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace optimisation {

// What this layer optimises with: the parameters m of a run, dJ/dm, and the driver of the
// forward and adjoint sweeps (undertow::adjoint).
using adjoint::Control;
using adjoint::Gradient;
using adjoint::GradientDriver;

class ShapeDesign {
 public:
  virtual ~ShapeDesign() = default;
  /// "Fourier star of obstacle 1: r0, a2, a3, a4" for logs. Not collective.
  virtual std::string describe() const = 0;
  /// The variables' names, as the gradient's parameters are named ("obstacle1.r0"). Not
  /// collective.
  virtual const std::vector<std::string>& names() const = 0;
  /// x read from m. Not collective.
  virtual std::vector<double> values(const Control& m) const = 0;
  /// Sets x into m. Not collective.
  virtual void apply(const std::vector<double>& x, Control& m) const = 0;
  /// dJ/dx at x from dJ/dm there. Not collective.
  virtual std::vector<double> chain(const Gradient& g, const std::vector<double>& x) const = 0;
  /// The area [m^2] of the body that x describes (in 3D: of its cross-section). Not collective.
  virtual double area(const std::vector<double>& x) const = 0;
  /// dA/dx. Not collective.
  virtual std::vector<double> area_gradient(const std::vector<double>& x) const = 0;
  /// `points` points (x, y) [m] of the body's outline, counter-clockwise. Not collective.
  virtual std::vector<std::array<double, 2>> outline(const std::vector<double>& x,
                                                     int points) const = 0;
  /// The smallest local size of the body [m] (the least radius of a star), which a grid must
  /// resolve. Not collective.
  virtual double smallest_feature(const std::vector<double>& x) const = 0;
  /// The body's thickness [m] at each of `stations`: for an airfoil, the distance between its
  /// surfaces at the chord fractions psi = stations (0 < psi < 1); for a star, its width
  /// through the centre, r(theta) + r(theta + pi), in the directions theta = stations [deg].
  /// Not collective.
  virtual std::vector<double> thickness(const std::vector<double>& x,
                                        const std::vector<double>& stations) const = 0;
  /// d thickness_j / dx_i, one row j per station (exact). Not collective.
  virtual std::vector<std::vector<double>>
  thickness_gradient(const std::vector<double>& x, const std::vector<double>& stations) const = 0;
  /// The stations of a thickness constraint whose case names none: every 10 degrees of a star,
  /// psi = 0.1, 0.2, ..., 0.6 of an airfoil. Not collective.
  virtual std::vector<double> default_thickness_stations() const = 0;
  /// False for a design that does not change a body (a control design, control_design.hpp):
  /// its area, outline and thickness are not reported. Not collective.
  virtual bool has_shape() const { return true; }
  /// A term the design adds to J(x) (the actuation effort of a control design; 0 for a shape),
  /// and its gradient added into `gradient` when not null. Not collective.
  virtual double regulariser(const std::vector<double>& x, std::vector<double>* gradient) const {
    (void)x;
    (void)gradient;
    return 0.0;
  }
};

/// A star-shaped body r(theta) = r0 + sum_k a_k cos k theta + b_k sin k theta (0-based index
/// `obstacle`,
/// shape = star) with the variables `variables`: any of "r0", "cos_coeff_K", "sin_coeff_K" up
/// to the obstacle's harmonics. Its area is pi r0^2 + pi/2 sum_k (a_k^2 + b_k^2) (exact while
/// r > 0). Throws ConfigError, naming design.variables or design.obstacle, for an obstacle that
/// is not a star or an unknown variable. Not collective.
///
/// With `hold_area`, r0 is not a variable: it follows from the coefficients so that the area
/// stays that of m, r0 = sqrt(A0 / pi - 1/2 sum_k (a_k^2 + b_k^2)), and the chain rule carries
/// dJ/dr0 into each coefficient (dr0/dc = -c / (2 r0)). `coefficient_bound` must then leave r0
/// real; ConfigError otherwise.
std::unique_ptr<ShapeDesign> make_star_design(const Control& m, int dim, int obstacle,
                                              const std::vector<std::string>& variables,
                                              bool hold_area = false, double coefficient_bound = 0);

/// A body of B-spline radii (obstacle `obstacle`, shape = spline; obstacles.hpp) with the
/// variables `variables`: any of "spline_radius_J", the control radii c_J [m]. Its area is the
/// integral of r^2 over [0, pi] (exact quadrature). With `hold_area`, the body is s c with
/// s = sqrt(A0 / A(c)): all radii scale together so that the area stays that of m, and at least
/// one radius must not be a variable (it sets the scale; ConfigError otherwise); the bounds then
/// apply to c. The body does not translate: its polar origin moves with the end radii so that
/// the midpoint of its front and rear tips stays where the case's body has it (a drag in a finite
/// domain depends a little on where the body sits, which an optimiser would otherwise exploit).
/// Throws ConfigError, naming design.variables or design.obstacle, for an obstacle that is not a
/// spline or an unknown variable. Not collective.
std::unique_ptr<ShapeDesign> make_spline_design(const Control& m, int dim, int obstacle,
                                                const std::vector<std::string>& variables,
                                                bool hold_area = false);

/// A CST airfoil (obstacle `obstacle`, shape = cst) with the variables `variables`: any of
/// "angle_of_attack" [rad], "cst_upper_I" and "cst_lower_I" (I from 0 to the weights - 1). Its
/// area is chord^2 sum_i (A_i + L_i) C(N, i) B(i + 3/2, N - i + 2), with B Euler's beta function
/// (the integral of the class function times each Bernstein polynomial). Throws ConfigError for
/// an obstacle that is not a cst airfoil or an unknown variable. Not collective.
std::unique_ptr<ShapeDesign> make_cst_design(const Control& m, int dim, int obstacle,
                                             const std::vector<std::string>& variables);

} // namespace optimisation
} // namespace undertow
