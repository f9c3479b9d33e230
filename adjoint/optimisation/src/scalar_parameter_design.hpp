#pragma once
/// \file
/// What the designs whose variables are named scalar parameters of a run share (the shape
/// parameterisations of shape_design.cpp and the controls of control_design.cpp): x_i is the
/// parameter `parameters[i]` of m, and dJ/dx_i its derivative. Private to this library.

#include "undertow/optimisation/shape_design.hpp"

#include <string>
#include <utility>
#include <vector>

namespace undertow {
namespace optimisation {

class ScalarParameterDesign : public ShapeDesign {
 public:
  explicit ScalarParameterDesign(std::vector<adjoint::ScalarParameter> parameters)
      : m_parameters(std::move(parameters)) {
    for (const adjoint::ScalarParameter& p : m_parameters)
      m_names.push_back(p.name);
  }
  const std::vector<std::string>& names() const override { return m_names; }
  std::vector<double> values(const Control& m) const override {
    Control copy = m;
    std::vector<double> x;
    for (const adjoint::ScalarParameter& p : m_parameters)
      x.push_back(adjoint::value_of(copy, p));
    return x;
  }
  void apply(const std::vector<double>& x, Control& m) const override {
    for (std::size_t i = 0; i < m_parameters.size(); ++i)
      adjoint::value_of(m, m_parameters[i]) = x[i];
  }
  std::vector<double> chain(const Gradient& g, const std::vector<double>&) const override {
    std::vector<double> out;
    for (const adjoint::ScalarParameter& p : m_parameters)
      out.push_back(adjoint::derivative_of(g, p));
    return out;
  }

 protected:
  std::vector<adjoint::ScalarParameter> m_parameters;
  std::vector<std::string> m_names; ///< the parameters' names, in the order of x
};

} // namespace optimisation
} // namespace undertow
