// The B-spline radii parameterisation (shape_design.hpp) without flow solves: its area against
// the exact area of a circle and against quadrature of the outline, the position of its tips
// (the body does not translate), and every derivative it gives
// the optimiser (the chain rule from dJ/d(body radii) to dJ/dx, the area's gradient, the
// thicknesses' gradients) against central finite differences, with the area held (the radii
// scaled together) and free; and the errors that name the fix.

#include "test_support.hpp"
#include "undertow/core/error.hpp"
#include "undertow/optimisation/shape_design.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using namespace undertow;
using namespace undertow::adjoint;
using namespace undertow::optimisation;
using navier_stokes::Shape;
using navier_stokes::ShapeKind;

const double kPi = 3.14159265358979323846;

/// A run's parameters with one spline body of n radii c_j = 0.5 + 0.1 sin(1.7 j), centred at
/// (2, 1).
Control spline_control(int n) {
  Control m;
  Shape s;
  s.kind = ShapeKind::Spline;
  s.centre[0] = 2.0;
  s.centre[1] = 1.0;
  s.harmonics = n;
  for (int j = 0; j < n; ++j)
    navier_stokes::shape_parameter(s, 12 + j) = 0.5 + 0.1 * std::sin(1.7 * j);
  m.flow.obstacles.shapes.push_back(s);
  return m;
}

std::vector<std::string> radius_names(int first, int last, int skip = -1) {
  std::vector<std::string> out;
  for (int j = first; j <= last; ++j)
    if (j != skip)
      out.push_back("spline_radius_" + std::to_string(j));
  return out;
}

/// A fixed dJ/dm: a made-up derivative for every shape parameter of the body (the centre too).
Gradient made_up_gradient(const Control& m) {
  Gradient g;
  const auto params = navier_stokes::shape_parameters(m.flow.obstacles.shapes[0], 2);
  std::vector<double> d;
  for (std::size_t p = 0; p < params.size(); ++p)
    d.push_back(std::cos(0.9 * double(p)) + 0.3);
  g.shape.push_back(d);
  return g;
}

/// L(x) = sum over the body's parameters of dJ/dm_p m_p(x): linear in the body, so dL/dx is
/// exactly what chain() must return.
double linear_functional(const ShapeDesign& design, const Control& m0, const Gradient& g,
                         const std::vector<double>& x) {
  Control m = m0;
  design.apply(x, m);
  const Shape& s = m.flow.obstacles.shapes[0];
  const auto params = navier_stokes::shape_parameters(s, 2);
  Shape copy = s;
  double sum = 0;
  for (std::size_t p = 0; p < params.size(); ++p)
    sum += g.shape[0][p] * navier_stokes::shape_parameter(copy, params[p].index);
  return sum;
}

TEST(SplineDesign, AreaIsExact) {
  Control m = spline_control(9);
  for (int j = 0; j < 9; ++j)
    navier_stokes::shape_parameter(m.flow.obstacles.shapes[0], 12 + j) = 0.7;
  const auto circle = make_spline_design(m, 2, 0, radius_names(0, 8));
  EXPECT_NEAR(circle->area(circle->values(m)), kPi * 0.49, 1e-14);
  // Any body: against the shoelace area of a fine outline.
  const Control body = spline_control(11);
  const auto design = make_spline_design(body, 2, 0, radius_names(0, 10));
  const auto x = design->values(body);
  const auto outline = design->outline(x, 200000);
  double shoelace = 0;
  for (std::size_t i = 0; i < outline.size(); ++i) {
    const auto& a = outline[i];
    const auto& b = outline[(i + 1) % outline.size()];
    shoelace += 0.5 * (a[0] * b[1] - b[0] * a[1]);
  }
  EXPECT_NEAR(design->area(x), shoelace, 1e-9);
}

// Central differences of the design's own functions in each variable, at a design away from the
// case's (so that the held-area scale differs from 1).
void check_derivatives(bool hold_area) {
  const Control m0 = spline_control(11);
  // With the area held, radius 5 stays out and sets the scale.
  const auto design =
      make_spline_design(m0, 2, 0, radius_names(0, 10, hold_area ? 5 : -1), hold_area);
  std::vector<double> x = design->values(m0);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] *= 1.0 + 0.2 * std::cos(2.3 * double(i)); // a pointed rear or front, unequal radii
  const Gradient g = made_up_gradient(m0);
  const std::vector<double> stations = {0, 30, 90, 135};
  const auto chain = design->chain(g, x);
  const auto area_gradient = design->area_gradient(x);
  const auto thickness_gradient = design->thickness_gradient(x, stations);
  const double h = 1e-6;
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<double> up = x, down = x;
    up[i] += h;
    down[i] -= h;
    const double fd_chain =
        (linear_functional(*design, m0, g, up) - linear_functional(*design, m0, g, down)) / (2 * h);
    EXPECT_NEAR(chain[i], fd_chain, 1e-8 * (1 + std::abs(fd_chain))) << design->names()[i];
    const double fd_area = (design->area(up) - design->area(down)) / (2 * h);
    EXPECT_NEAR(area_gradient[i], fd_area, 1e-8) << design->names()[i];
    const auto t_up = design->thickness(up, stations), t_down = design->thickness(down, stations);
    for (std::size_t k = 0; k < stations.size(); ++k)
      EXPECT_NEAR(thickness_gradient[k][i], (t_up[k] - t_down[k]) / (2 * h), 1e-8)
          << design->names()[i] << " at " << stations[k] << " deg";
  }
  // The body does not translate: the midpoint of its rear and front tips (theta = 0 and pi, the
  // outline's first and middle points) stays where the case's body has it, while its origin and
  // its tips move.
  const Shape& initial = m0.flow.obstacles.shapes[0];
  const double midpoint = 2.0 + 0.5 * (initial.spline_control(0) - initial.spline_control(10));
  const auto outline = design->outline(x, 3600);
  const double rear = outline[0][0], front = outline[1800][0];
  EXPECT_NEAR(0.5 * (front + rear), midpoint, 1e-12);
  EXPECT_GT(std::abs(rear - 2.0 - initial.spline_control(0)), 1e-3)
      << "the rear tip did not move: a vacuous check";
  if (hold_area) { // the body that apply() makes keeps the case's area
    Control m = m0;
    design->apply(x, m);
    const auto every = make_spline_design(m, 2, 0, radius_names(0, 10));
    EXPECT_NEAR(every->area(every->values(m)), design->area(design->values(m0)), 1e-13);
    for (double a : area_gradient)
      EXPECT_EQ(a, 0.0);
  }
}

TEST(SplineDesign, DerivativesWithTheAreaHeld) {
  check_derivatives(true);
}

TEST(SplineDesign, DerivativesWithTheAreaFree) {
  check_derivatives(false);
}

TEST(SplineDesign, ErrorsNameTheFix) {
  const Control m = spline_control(6);
  const auto message = [&](const std::vector<std::string>& variables, bool hold) {
    try {
      make_spline_design(m, 2, 0, variables, hold);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(radius_names(0, 5), true).find("must stay out of design.variables"),
            std::string::npos);
  EXPECT_NE(message({"spline_radius_6"}, false).find("is not a variable of the spline"),
            std::string::npos);
  EXPECT_NE(message({"cos_coeff_2"}, false).find("is not a variable of the spline"),
            std::string::npos);
  Control star = m;
  star.flow.obstacles.shapes[0].kind = ShapeKind::Star;
  try {
    make_spline_design(star, 2, 0, radius_names(0, 2));
    ADD_FAILURE() << "a star accepted as a spline";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("needs obstacle1.shape = spline"), std::string::npos);
  }
}

} // namespace
