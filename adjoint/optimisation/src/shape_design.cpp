/// Design parameterisations (shape_design.hpp).

#include "undertow/optimisation/shape_design.hpp"

#include "scalar_parameter_design.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <algorithm>
#include <cmath>

namespace undertow {
namespace optimisation {

using adjoint::ScalarParameter;

namespace {

using navier_stokes::BasicShape;
using navier_stokes::Shape;
using navier_stokes::ShapeKind;

/// The named shape parameters of obstacle `obstacle` that `variables` select among `allowed`
/// prefixes; ConfigError naming design.variables otherwise.
std::vector<ScalarParameter> select_parameters(const Control& m, int dim, int obstacle,
                                               const std::vector<std::string>& variables,
                                               const std::vector<std::string>& allowed,
                                               const std::string& what) {
  const auto all = scalar_parameters(m, dim);
  const std::string prefix = "obstacle" + std::to_string(obstacle + 1) + ".";
  std::vector<ScalarParameter> out;
  for (const std::string& v : variables) {
    bool found = false;
    for (const ScalarParameter& p : all) {
      bool ok = p.name == prefix + v && p.group == "shape";
      bool known = false;
      for (const std::string& a : allowed)
        known = known || v.rfind(a, 0) == 0;
      if (ok && known) {
        out.push_back(p);
        found = true;
      }
    }
    if (!found)
      throw ConfigError("design.variables: '" + v + "' is not a variable of the " + what +
                        " of obstacle" + std::to_string(obstacle + 1));
  }
  if (out.empty())
    throw ConfigError("design.variables is empty: name the design variables of the " + what);
  return out;
}

/// What the parameterisations by named shape parameters share: the variables are parameters of
/// one obstacle's shape (scalar_parameter_design.hpp), and its thickness follows from them.
class NamedParameterDesign : public ScalarParameterDesign {
 public:
  NamedParameterDesign(std::string label, const Control& m, int obstacle,
                       std::vector<ScalarParameter> parameters)
      : ScalarParameterDesign(std::move(parameters)), m_label(std::move(label)),
        m_obstacle(obstacle), m_shape(m.flow.obstacles.shapes[static_cast<std::size_t>(obstacle)]) {
  }
  std::string describe() const override {
    std::string s = m_label + " of obstacle " + std::to_string(m_obstacle + 1) + ":";
    for (const auto& n : m_names)
      s += " " + n.substr(n.find('.') + 1);
    return s;
  }

  std::vector<double> thickness(const std::vector<double>& x,
                                const std::vector<double>& stations) const override {
    const BasicShape<Dual> s = navier_stokes::seeded(shape(x), -1);
    std::vector<double> out;
    for (double station : stations)
      out.push_back(width(s, station).v);
    return out;
  }
  std::vector<std::vector<double>>
  thickness_gradient(const std::vector<double>& x,
                     const std::vector<double>& stations) const override {
    // Exact, with dual numbers: each parameter seeded in turn, as the mask's derivatives.
    const Shape s = shape(x);
    std::vector<std::vector<double>> out(stations.size(), std::vector<double>(x.size(), 0.0));
    for (std::size_t i = 0; i < x.size(); ++i) {
      const BasicShape<Dual> d = navier_stokes::seeded(s, m_parameters[i].b);
      for (std::size_t j = 0; j < stations.size(); ++j)
        out[j][i] = width(d, stations[j]).d;
    }
    for (std::size_t j = 0; j < stations.size(); ++j)
      add_dependent_derivatives(x, stations[j], out[j]);
    return out;
  }

 protected:
  /// The shape that x describes (with what follows from x, such as a held radius).
  virtual Shape shape(const std::vector<double>& x) const { return shape_with(x); }
  /// The thickness at one station of a shape (T = Dual: with its derivative).
  virtual Dual width(const BasicShape<Dual>& s, double station) const = 0;
  /// Adds the derivatives of the thickness through parameters that follow from x (a held
  /// radius) to `row`.
  virtual void add_dependent_derivatives(const std::vector<double>&, double,
                                         std::vector<double>&) const {}
  /// The shape of the case with x in its variables.
  Shape shape_with(const std::vector<double>& x) const {
    Shape s = m_shape;
    for (std::size_t i = 0; i < m_parameters.size(); ++i)
      navier_stokes::shape_parameter(s, m_parameters[i].b) = x[i];
    return s;
  }

  std::string m_label;
  int m_obstacle;
  Shape m_shape; ///< the shape as the case gives it; the variables overwrite their entries
};

/// What star and spline bodies share: a radius r(theta) about the shape's centre, which gives the
/// outline, the least radius, and the width r(theta) + r(theta + pi) at stations every 10
/// degrees by default.
class PolarDesign : public NamedParameterDesign {
 public:
  using NamedParameterDesign::NamedParameterDesign;
  std::vector<std::array<double, 2>> outline(const std::vector<double>& x,
                                             int points) const override {
    const Shape s = shape(x);
    std::vector<std::array<double, 2>> out;
    for (int i = 0; i < points; ++i) {
      const double theta = 2 * M_PI * i / points, r = radius(s, theta);
      out.push_back({s.centre[0] + r * std::cos(theta), s.centre[1] + r * std::sin(theta)});
    }
    return out;
  }
  double smallest_feature(const std::vector<double>& x) const override {
    const Shape s = shape(x);
    double least = 1e300;
    for (int i = 0; i < 720; ++i)
      least = std::min(least, radius(s, 2 * M_PI * i / 720));
    return least;
  }
  std::vector<double> default_thickness_stations() const override {
    std::vector<double> out;
    for (int k = 0; k < 18; ++k)
      out.push_back(10.0 * k);
    return out;
  }

 protected:
  /// r(theta) [m] of a shape, theta [rad] of any sign (T = Dual: with its derivative).
  virtual double radius(const Shape& s, double theta) const = 0;
  virtual Dual radius(const BasicShape<Dual>& s, double theta) const = 0;
  Dual width(const BasicShape<Dual>& s, double station) const override {
    const double theta = station * M_PI / 180;
    return radius(s, theta) + radius(s, theta + M_PI);
  }
};

class StarDesign : public PolarDesign {
 public:
  StarDesign(const Control& m, int dim, int obstacle, const std::vector<std::string>& variables,
             bool hold_area, double coefficient_bound)
      : PolarDesign(
            "Fourier star", m, obstacle,
            select_parameters(
                m, dim, obstacle, variables, {"r0", "cos_coeff_", "sin_coeff_"},
                "star (r0, cos_coeff_K, sin_coeff_K with K up to its " +
                    std::to_string(
                        m.flow.obstacles.shapes[static_cast<std::size_t>(obstacle)].harmonics) +
                    " harmonics)")),
        m_hold_area(hold_area) {
    const std::string prefix = "obstacle" + std::to_string(obstacle + 1) + ".";
    m_radius.b = kRadius;
    if (!hold_area)
      return;
    for (const ScalarParameter& p : m_parameters)
      if (p.b == kRadius)
        throw ConfigError("design.variables names r0, but optimize.area = fixed sets r0 from the "
                          "area: remove r0, or use optimize.area = almm or free");
    for (const ScalarParameter& p : scalar_parameters(m, dim))
      if (p.name == prefix + "r0")
        m_radius = p;
    m_area0 = area(values(m));
    const double worst = 0.5 * double(m_parameters.size()) * coefficient_bound * coefficient_bound;
    if (!(worst < m_area0 / M_PI))
      throw ConfigError(format("design.coefficient_bound = %g lets the coefficients hold more "
                               "than the whole area (r0 would vanish): lower it below %.4g [m]",
                               coefficient_bound,
                               std::sqrt(2 * m_area0 / M_PI / double(m_parameters.size()))));
  }

  void apply(const std::vector<double>& x, Control& m) const override {
    NamedParameterDesign::apply(x, m);
    if (m_hold_area)
      value_of(m, m_radius) = held_radius(x);
  }
  std::vector<double> chain(const Gradient& g, const std::vector<double>& x) const override {
    std::vector<double> out = NamedParameterDesign::chain(g, x);
    add_through_radius(x, derivative_of(g, m_radius), out);
    return out;
  }

  double area(const std::vector<double>& x) const override {
    if (m_hold_area && m_area0 > 0)
      return m_area0;
    const Shape s = shape(x);
    double a = M_PI * s.radius * s.radius;
    for (int k = 0; k < s.harmonics; ++k)
      a += 0.5 * M_PI * (s.cos_coeff[k] * s.cos_coeff[k] + s.sin_coeff[k] * s.sin_coeff[k]);
    return a;
  }
  std::vector<double> area_gradient(const std::vector<double>& x) const override {
    // A is pi r0^2 + pi/2 sum c^2: dA/dr0 = 2 pi r0, dA/dc = pi c.
    std::vector<double> out;
    for (std::size_t i = 0; i < x.size(); ++i)
      out.push_back(m_hold_area ? 0.0 : (m_parameters[i].b == kRadius ? 2.0 : 1.0) * M_PI * x[i]);
    return out;
  }

 private:
  Shape shape(const std::vector<double>& x) const override {
    Shape s = shape_with(x);
    if (m_hold_area && m_area0 > 0)
      s.radius = held_radius(x);
    return s;
  }
  double radius(const Shape& s, double theta) const override { return s.star_radius(theta); }
  Dual radius(const BasicShape<Dual>& s, double theta) const override {
    return s.star_radius(Dual(theta));
  }
  void add_dependent_derivatives(const std::vector<double>& x, double,
                                 std::vector<double>& row) const override {
    add_through_radius(x, 2.0, row); // the width holds r0 twice
  }
  /// With the area held, r0 = sqrt(A0/pi - 1/2 sum c^2) follows the coefficients c: adds
  /// d/dr0 dr0/dc = d/dr0 (-c / (2 r0)) to `row`.
  void add_through_radius(const std::vector<double>& x, double d_dr0,
                          std::vector<double>& row) const {
    if (!m_hold_area)
      return;
    const double r0 = held_radius(x);
    for (std::size_t i = 0; i < row.size(); ++i)
      row[i] += d_dr0 * (-x[i] / (2 * r0));
  }
  /// r0 that keeps the area A0 with the coefficients x (the others as in the case).
  double held_radius(const std::vector<double>& x) const {
    const Shape s = shape_with(x);
    double sum = 0;
    for (int k = 0; k < s.harmonics; ++k)
      sum += s.cos_coeff[k] * s.cos_coeff[k] + s.sin_coeff[k] * s.sin_coeff[k];
    return std::sqrt(std::max(m_area0 / M_PI - 0.5 * sum, 0.0));
  }

  static constexpr int kRadius = 3; ///< shape_parameter index of r0
  bool m_hold_area;
  double m_area0 = 0; ///< the held area [m^2] (hold_area)
  ScalarParameter m_radius{};
};

/// The area of a spline body, 2 x the integral of r^2 / 2 over [0, pi] [m^2]: Gauss-Legendre with
/// 4 points per knot interval, exact for the piecewise sextic r^2. T = Dual: with its derivative.
template <class T>
T spline_area(const BasicShape<T>& s) {
  const double node[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563,
                          0.8611363115940526};
  const double weight[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461,
                            0.3478548451374538};
  const int intervals = s.harmonics - 3;
  const double width = M_PI / intervals;
  T sum = 0.0;
  for (int k = 0; k < intervals; ++k)
    for (int q = 0; q < 4; ++q) {
      const T r = s.spline_radius(T((k + 0.5 * (1 + node[q])) * width));
      sum += 0.5 * width * weight[q] * r * r;
    }
  return sum;
}

/// The direction theta [rad] of any sign folded onto [0, pi], where a spline body's r is given
/// (it is mirrored about the flow axis).
double folded(double theta) {
  const double t = std::remainder(theta, 2 * M_PI); // in [-pi, pi]
  return std::abs(t);
}

/// B-spline radii (shape = spline): x_i is the control radius c_{j(i)}. With the area held, the
/// body is s c with s = sqrt(A0 / A(c)): every radius scales, and the radii that are not
/// variables set the scale (so J(x) has no flat direction). The body does not translate: its
/// polar origin sits at m + (rho_{n-1} - rho_0) / 2 (rho = s c), so that the midpoint of its
/// rear and front tips stays at m, where the case's body has it.
class SplineDesign : public PolarDesign {
 public:
  SplineDesign(const Control& m, int dim, int obstacle, const std::vector<std::string>& variables,
               bool hold_area)
      : PolarDesign(
            "B-spline radii", m, obstacle,
            select_parameters(
                m, dim, obstacle, variables, {"spline_radius_"},
                "spline (spline_radius_J with J from 0 to " +
                    std::to_string(
                        m.flow.obstacles.shapes[static_cast<std::size_t>(obstacle)].harmonics - 1) +
                    ")")),
        m_hold_area(hold_area) {
    const std::string prefix = "obstacle" + std::to_string(obstacle + 1) + ".spline_radius_";
    for (const ScalarParameter& p : scalar_parameters(m, dim))
      if (p.name.rfind(prefix, 0) == 0)
        m_radii.push_back(p); // in the order of j
      else if (p.name == "obstacle" + std::to_string(obstacle + 1) + ".centre_x")
        m_centre_x = p;
    const int n = m_shape.harmonics;
    if (hold_area && m_parameters.size() == m_radii.size())
      throw ConfigError("design.variables names every spline radius, but optimize.area = fixed "
                        "scales them together to hold the area, so one of them must stay out "
                        "of design.variables to set the scale (e.g. the one at 90 degrees), or "
                        "use optimize.area = almm or free");
    m_area0 = spline_area(m_shape);
    m_tips_midpoint =
        m_shape.centre[0] + 0.5 * (m_shape.spline_control(0) - m_shape.spline_control(n - 1));
  }

  void apply(const std::vector<double>& x, Control& m) const override {
    const Shape s = shape(x);
    for (std::size_t j = 0; j < m_radii.size(); ++j)
      value_of(m, m_radii[j]) = s.spline_control(static_cast<int>(j));
    value_of(m, m_centre_x) = s.centre[0];
  }
  std::vector<double> chain(const Gradient& g, const std::vector<double>& x) const override {
    std::vector<double> d_dbody;
    for (const ScalarParameter& p : m_radii)
      d_dbody.push_back(derivative_of(g, p));
    // The origin m + (rho_{n-1} - rho_0) / 2 follows the end radii.
    const double d_dcentre = derivative_of(g, m_centre_x);
    d_dbody.back() += 0.5 * d_dcentre;
    d_dbody.front() -= 0.5 * d_dcentre;
    return through_radii(x, d_dbody);
  }
  std::vector<std::vector<double>>
  thickness_gradient(const std::vector<double>& x,
                     const std::vector<double>& stations) const override {
    const Shape s = shape(x);
    std::vector<std::vector<double>> out;
    for (double station : stations) {
      std::vector<double> d_dbody;
      for (int j = 0; j < s.harmonics; ++j)
        d_dbody.push_back(width(navier_stokes::seeded(s, 12 + j), station).d);
      out.push_back(through_radii(x, d_dbody));
    }
    return out;
  }
  double area(const std::vector<double>& x) const override {
    return m_hold_area ? m_area0 : spline_area(shape(x));
  }
  std::vector<double> area_gradient(const std::vector<double>& x) const override {
    std::vector<double> out;
    const Shape s = shape(x);
    for (const ScalarParameter& p : m_parameters)
      out.push_back(m_hold_area ? 0.0 : spline_area(navier_stokes::seeded(s, p.b)).d);
    return out;
  }

 private:
  /// The body: c, or s c with the area held, its origin where its tips' midpoint stays.
  Shape shape(const std::vector<double>& x) const override {
    Shape s = shape_with(x); // c: the case's radii with x in the variables
    const double scale = m_hold_area ? std::sqrt(m_area0 / spline_area(s)) : 1.0;
    for (int j = 0; j < s.harmonics; ++j)
      navier_stokes::shape_parameter(s, 12 + j) *= scale;
    s.centre[0] = m_tips_midpoint + 0.5 * (s.spline_control(s.harmonics - 1) - s.spline_control(0));
    return s;
  }
  double radius(const Shape& s, double theta) const override {
    return s.spline_radius(folded(theta));
  }
  Dual radius(const BasicShape<Dual>& s, double theta) const override {
    return s.spline_radius(Dual(folded(theta)));
  }
  /// dF/dx from dF/drho, rho the body's radii: rho = s c, s = sqrt(A0 / A(c)) with the area
  /// held, so drho_j/dx_i = s delta_{j,j(i)} - rho_j dA/dc_{j(i)} / (2 A(c)).
  std::vector<double> through_radii(const std::vector<double>& x,
                                    const std::vector<double>& d_dbody) const {
    std::vector<double> out;
    const Shape c = shape_with(x);
    const double a = spline_area(c);
    const double scale = m_hold_area ? std::sqrt(m_area0 / a) : 1.0;
    double along = 0; // sum_j dF/drho_j rho_j
    for (int j = 0; j < c.harmonics; ++j)
      along += d_dbody[static_cast<std::size_t>(j)] * scale * c.spline_control(j);
    for (const ScalarParameter& p : m_parameters) { // radius j = p.b - 12
      double d = scale * d_dbody[static_cast<std::size_t>(p.b - 12)];
      if (m_hold_area)
        d -= along * spline_area(navier_stokes::seeded(c, p.b)).d / (2 * a);
      out.push_back(d);
    }
    return out;
  }

  bool m_hold_area;
  double m_area0;                       ///< the case's area [m^2], held with hold_area
  std::vector<ScalarParameter> m_radii; ///< every control radius of the body, c_0 ... c_{n-1}
  ScalarParameter m_centre_x{};         ///< the polar origin's x
  double m_tips_midpoint = 0;           ///< x of the midpoint of the tips, held [m]
};

/// sqrt(psi) (1 - psi) B_i,N(psi) integrated over [0, 1]: C(N, i) B(i + 3/2, N - i + 2).
double cst_area_factor(int i, int degree) {
  double binomial = 1;
  for (int k = 0; k < i; ++k)
    binomial = binomial * double(degree - k) / double(k + 1);
  return binomial * std::tgamma(i + 1.5) * std::tgamma(degree - i + 2.0) /
         std::tgamma(degree + 3.5);
}

class CstDesign : public NamedParameterDesign {
 public:
  CstDesign(const Control& m, int dim, int obstacle, const std::vector<std::string>& variables)
      : NamedParameterDesign(
            "CST airfoil", m, obstacle,
            select_parameters(m, dim, obstacle, variables,
                              {"angle_of_attack", "cst_upper_", "cst_lower_"},
                              "CST airfoil (angle_of_attack, cst_upper_I, cst_lower_I)")) {}
  double area(const std::vector<double>& x) const override {
    const Shape s = shape(x);
    double a = 0;
    for (int i = 0; i < s.harmonics; ++i)
      a += (s.cos_coeff[i] + s.sin_coeff[i]) * cst_area_factor(i, s.harmonics - 1);
    return a * s.chord * s.chord;
  }
  std::vector<double> area_gradient(const std::vector<double>&) const override {
    std::vector<double> out;
    for (const ScalarParameter& p : m_parameters) {
      const int i =
          p.b >= 12 + navier_stokes::kMaxFourier ? p.b - 12 - navier_stokes::kMaxFourier : p.b - 12;
      out.push_back(p.b >= 12
                        ? cst_area_factor(i, m_shape.harmonics - 1) * m_shape.chord * m_shape.chord
                        : 0.0); // the angle of attack does not change the area
    }
    return out;
  }
  std::vector<std::array<double, 2>> outline(const std::vector<double>& x,
                                             int points) const override {
    // Upper surface from the trailing edge to the nose, then the lower one back (cosine
    // spacing), in the flow frame.
    const Shape s = shape(x);
    std::vector<std::array<double, 2>> out;
    const int half = std::max(points / 2, 2);
    const double c = std::cos(s.angle), sn = std::sin(s.angle);
    for (int side = 0; side < 2; ++side)
      for (int k = 0; k < half; ++k) {
        const double t = side == 0 ? double(half - 1 - k) / (half - 1) : double(k) / (half - 1);
        const double psi = 0.5 * (1 - std::cos(M_PI * t));
        double upper, lower;
        s.cst_surfaces(psi, upper, lower);
        const double y = side == 0 ? upper : -lower;
        // chord frame (psi c, y c) to the flow frame: rotate by -angle (nose up).
        const double bx = psi * s.chord, by = y * s.chord;
        out.push_back({s.centre[0] + c * bx + sn * by, s.centre[1] - sn * bx + c * by});
      }
    return out;
  }
  double smallest_feature(const std::vector<double>& x) const override {
    const Shape s = shape(x);
    double thickest = 0;
    for (int k = 1; k < 100; ++k) {
      const double psi = k / 100.0;
      double upper, lower;
      s.cst_surfaces(psi, upper, lower);
      thickest = std::max(thickest, upper + lower);
    }
    return thickest * s.chord; // the largest thickness: the grid must resolve at least that
  }

  std::vector<double> default_thickness_stations() const override {
    return {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  }

 private:
  Dual width(const BasicShape<Dual>& s, double station) const override {
    Dual upper, lower;
    s.cst_surfaces(Dual(station), upper, lower);
    return (upper + lower) * s.chord;
  }
};

/// ConfigError unless obstacle `obstacle` (0-based) exists and has the shape `kind` that the
/// parameterisation `name` designs (`shape` says how to set it up).
void require_shape(const Control& m, int obstacle, ShapeKind kind, const std::string& name,
                   const std::string& shape) {
  const auto& shapes = m.flow.obstacles.shapes;
  if (obstacle < 0 || obstacle >= static_cast<int>(shapes.size()))
    throw ConfigError("design.obstacle = " + std::to_string(obstacle + 1) +
                      " is not an obstacle of the case (it has " + std::to_string(shapes.size()) +
                      ")");
  if (shapes[static_cast<std::size_t>(obstacle)].kind != kind)
    throw ConfigError("design.parameterisation = " + name + " needs obstacle" +
                      std::to_string(obstacle + 1) + ".shape = " + shape);
}

} // namespace

std::unique_ptr<ShapeDesign> make_spline_design(const Control& m, int dim, int obstacle,
                                                const std::vector<std::string>& variables,
                                                bool hold_area) {
  require_shape(m, obstacle, ShapeKind::Spline, "spline_radii",
                "spline (with its radii; equal radii give a circle)");
  return std::make_unique<SplineDesign>(m, dim, obstacle, variables, hold_area);
}

std::unique_ptr<ShapeDesign> make_cst_design(const Control& m, int dim, int obstacle,
                                             const std::vector<std::string>& variables) {
  require_shape(m, obstacle, ShapeKind::Cst, "cst_airfoil",
                "cst (with its cst_upper and cst_lower weights)");
  return std::make_unique<CstDesign>(m, dim, obstacle, variables);
}

std::unique_ptr<ShapeDesign> make_star_design(const Control& m, int dim, int obstacle,
                                              const std::vector<std::string>& variables,
                                              bool hold_area, double coefficient_bound) {
  require_shape(m, obstacle, ShapeKind::Star, "fourier_star",
                "star (set its radius and fourier coefficients; zeros give a circle)");
  return std::make_unique<StarDesign>(m, dim, obstacle, variables, hold_area, coefficient_bound);
}

} // namespace optimisation
} // namespace undertow
