/// Design parameterisations (shape_design.hpp).

#include "undertow/adjoint/shape_design.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <algorithm>
#include <cmath>

namespace undertow {
namespace adjoint {

namespace {

using navier_stokes::Shape;
using navier_stokes::ShapeKind;

/// r(theta) of a star. Not collective.
double star_radius(const Shape& s, double theta) {
  double r = s.radius;
  for (int k = 0; k < s.harmonics; ++k)
    r += s.cos_coeff[k] * std::cos((k + 1) * theta) + s.sin_coeff[k] * std::sin((k + 1) * theta);
  return r;
}

class StarDesign : public ShapeDesign {
 public:
  StarDesign(const Control& m, int dim, int obstacle, const std::vector<std::string>& variables,
             bool hold_area, double coefficient_bound)
      : m_obstacle(obstacle), m_shape(m.flow.obstacles.shapes[static_cast<std::size_t>(obstacle)]),
        m_hold_area(hold_area) {
    const auto all = scalar_parameters(m, dim);
    const std::string prefix = "obstacle" + std::to_string(obstacle + 1) + ".";
    m_radius.b = kRadius;
    for (const std::string& v : variables) {
      const std::string name = prefix + v;
      bool found = false;
      for (const ScalarParameter& p : all)
        if (p.name == name && p.group == "shape" &&
            (v == "r0" || v.rfind("cos_coeff_", 0) == 0 || v.rfind("sin_coeff_", 0) == 0)) {
          m_parameters.push_back(p);
          found = true;
        }
      if (!found)
        throw ConfigError("design.variables: '" + v + "' is not a variable of the star " + prefix +
                          " use r0, cos_coeff_K or sin_coeff_K with K up to its " +
                          std::to_string(m_shape.harmonics) + " harmonics (obstacle" +
                          std::to_string(obstacle + 1) + ".fourier)");
      m_names.push_back(name);
    }
    if (m_names.empty())
      throw ConfigError("design.variables is empty: name the star's variables, e.g. r0 "
                        "cos_coeff_2 cos_coeff_3");
    if (!hold_area)
      return;
    for (const ScalarParameter& p : m_parameters)
      if (p.b == kRadius)
        throw ConfigError("design.variables names r0, but optimize.area = fixed sets r0 from the "
                          "area: remove r0, or use optimize.area = almm or free");
    for (const ScalarParameter& p : all)
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

  std::string describe() const override {
    std::string s = "Fourier star of obstacle " + std::to_string(m_obstacle + 1) + ":";
    for (const auto& n : m_names)
      s += " " + n.substr(n.find('.') + 1);
    return s;
  }
  const std::vector<std::string>& names() const override { return m_names; }

  std::vector<double> values(const Control& m) const override {
    Control copy = m;
    std::vector<double> x;
    for (const ScalarParameter& p : m_parameters)
      x.push_back(value_of(copy, p));
    return x;
  }
  void apply(const std::vector<double>& x, Control& m) const override {
    for (std::size_t i = 0; i < m_parameters.size(); ++i)
      value_of(m, m_parameters[i]) = x[i];
    if (m_hold_area)
      value_of(m, m_radius) = held_radius(x);
  }
  std::vector<double> chain(const Gradient& g, const std::vector<double>& x) const override {
    std::vector<double> out;
    for (const ScalarParameter& p : m_parameters)
      out.push_back(derivative_of(g, p));
    if (m_hold_area) {
      // r0 = sqrt(A0/pi - 1/2 sum c^2): dr0/dc = -c / (2 r0).
      const double dj_dr0 = derivative_of(g, m_radius), r0 = held_radius(x);
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] += dj_dr0 * (-x[i] / (2 * r0));
    }
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
  std::vector<std::array<double, 2>> outline(const std::vector<double>& x,
                                             int points) const override {
    const Shape s = shape(x);
    std::vector<std::array<double, 2>> out;
    for (int i = 0; i < points; ++i) {
      const double theta = 2 * M_PI * i / points, r = star_radius(s, theta);
      out.push_back({s.centre[0] + r * std::cos(theta), s.centre[1] + r * std::sin(theta)});
    }
    return out;
  }
  double smallest_feature(const std::vector<double>& x) const override {
    const Shape s = shape(x);
    double least = 1e300;
    for (int i = 0; i < 720; ++i)
      least = std::min(least, star_radius(s, 2 * M_PI * i / 720));
    return least;
  }

 private:
  Shape shape(const std::vector<double>& x) const {
    Shape s = m_shape;
    for (std::size_t i = 0; i < m_parameters.size(); ++i)
      navier_stokes::shape_parameter(s, m_parameters[i].b) = x[i];
    if (m_hold_area && m_area0 > 0)
      s.radius = held_radius(x);
    return s;
  }
  /// r0 that keeps the area A0 with the coefficients x (the others as in the case).
  double held_radius(const std::vector<double>& x) const {
    Shape s = m_shape;
    for (std::size_t i = 0; i < m_parameters.size(); ++i)
      navier_stokes::shape_parameter(s, m_parameters[i].b) = x[i];
    double sum = 0;
    for (int k = 0; k < s.harmonics; ++k)
      sum += s.cos_coeff[k] * s.cos_coeff[k] + s.sin_coeff[k] * s.sin_coeff[k];
    return std::sqrt(std::max(m_area0 / M_PI - 0.5 * sum, 0.0));
  }

  static constexpr int kRadius = 3; ///< shape_parameter index of r0
  int m_obstacle;
  Shape m_shape; ///< the star as the case gives it; the variables overwrite their entries
  bool m_hold_area;
  double m_area0 = 0; ///< the held area [m^2] (hold_area)
  ScalarParameter m_radius{};
  std::vector<ScalarParameter> m_parameters;
  std::vector<std::string> m_names;
};

} // namespace

std::unique_ptr<ShapeDesign> make_star_design(const Control& m, int dim, int obstacle,
                                              const std::vector<std::string>& variables,
                                              bool hold_area, double coefficient_bound) {
  const auto& shapes = m.flow.obstacles.shapes;
  if (obstacle < 0 || obstacle >= static_cast<int>(shapes.size()))
    throw ConfigError("design.obstacle = " + std::to_string(obstacle + 1) +
                      " is not an obstacle of the case (it has " + std::to_string(shapes.size()) +
                      ")");
  if (shapes[static_cast<std::size_t>(obstacle)].kind != ShapeKind::Star)
    throw ConfigError("design.parameterisation = fourier_star needs obstacle" +
                      std::to_string(obstacle + 1) +
                      ".shape = star (set its radius and fourier coefficients; zeros give a "
                      "circle)");
  return std::make_unique<StarDesign>(m, dim, obstacle, variables, hold_area, coefficient_bound);
}

} // namespace adjoint
} // namespace undertow
