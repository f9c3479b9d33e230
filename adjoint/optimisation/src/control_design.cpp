#include "undertow/optimisation/control_design.hpp"

#include "scalar_parameter_design.hpp"

#include "undertow/core/error.hpp"

#include <cmath>
#include <limits>

namespace undertow {
namespace optimisation {

namespace {

using adjoint::ScalarParameter;

constexpr int kEffortSamples = 1000;

class ControlDesign : public ScalarParameterDesign {
 public:
  ControlDesign(const Control& m, int obstacle, std::vector<ScalarParameter> parameters,
                double effort_weight, double horizon)
      : ScalarParameterDesign(std::move(parameters)), m_m(m), m_obstacle(obstacle),
        m_weight(effort_weight), m_horizon(horizon) {}

  std::string describe() const override {
    std::string s = "controls:";
    for (const auto& n : m_names)
      s += " " + n;
    if (m_weight > 0)
      s += format("; actuation effort weighted by %g", m_weight);
    return s;
  }

  double regulariser(const std::vector<double>& x, std::vector<double>* gradient) const override {
    if (m_weight == 0.0)
      return 0.0;
    Control m = m_m;
    apply(x, m);
    const auto& actuators = m.flow.actuators;
    double effort = 0;
    std::vector<double> d_scale(actuators.size(), 0.0);
    std::vector<std::vector<double>> d_signal(actuators.size());
    for (std::size_t k = 0; k < actuators.size(); ++k)
      d_signal[k].assign(actuators[k].signal.coefficients.size(), 0.0);
    const double w = m_weight / kEffortSamples;
    for (int q = 0; q < kEffortSamples; ++q) {
      const double t = (q + 0.5) * m_horizon / kEffortSamples;
      for (std::size_t k = 0; k < actuators.size(); ++k) {
        const auto& a = actuators[k];
        const double value = a.signal.value(t), amplitude = a.scale * value;
        effort += w * amplitude * amplitude;
        d_scale[k] += 2.0 * w * amplitude * value;
        if (!a.signal.varies())
          continue;
        const std::vector<double> phi = a.signal.basis(t);
        for (std::size_t j = 0; j < phi.size(); ++j)
          d_signal[k][j] += 2.0 * w * amplitude * a.scale * phi[j];
      }
    }
    if (gradient)
      for (std::size_t i = 0; i < m_parameters.size(); ++i) {
        const ScalarParameter& p = m_parameters[i];
        if (p.kind == ScalarParameter::Kind::ActuatorScale)
          (*gradient)[i] += d_scale.at(p.a);
        else if (p.kind == ScalarParameter::Kind::ActuatorSignal)
          (*gradient)[i] += d_signal.at(p.a).at(p.b);
      }
    return effort;
  }

  bool has_shape() const override { return false; }
  // The body does not change: its area and outline are those of the case (a circle's).
  double area(const std::vector<double>&) const override {
    return circle() ? M_PI * circle()->radius * circle()->radius : 0.0;
  }
  std::vector<double> area_gradient(const std::vector<double>& x) const override {
    return std::vector<double>(x.size(), 0.0);
  }
  std::vector<std::array<double, 2>> outline(const std::vector<double>&,
                                             int points) const override {
    std::vector<std::array<double, 2>> out;
    const navier_stokes::Shape* c = circle();
    for (int i = 0; c && i < points; ++i) {
      const double theta = 2.0 * M_PI * i / points;
      out.push_back(
          {c->centre[0] + c->radius * std::cos(theta), c->centre[1] + c->radius * std::sin(theta)});
    }
    return out;
  }
  double smallest_feature(const std::vector<double>&) const override {
    return circle() ? circle()->radius : std::numeric_limits<double>::infinity();
  }
  std::vector<double> thickness(const std::vector<double>&,
                                const std::vector<double>& stations) const override {
    return std::vector<double>(stations.size(), circle() ? 2.0 * circle()->radius : 0.0);
  }
  std::vector<std::vector<double>>
  thickness_gradient(const std::vector<double>& x,
                     const std::vector<double>& stations) const override {
    return std::vector<std::vector<double>>(stations.size(), std::vector<double>(x.size(), 0.0));
  }
  std::vector<double> default_thickness_stations() const override { return {}; }

 private:
  /// The reported body if it is a circle, else null.
  const navier_stokes::Shape* circle() const {
    if (m_obstacle < 0 || m_obstacle >= static_cast<int>(m_m.flow.obstacles.shapes.size()))
      return nullptr;
    const auto& s = m_m.flow.obstacles.shapes[static_cast<std::size_t>(m_obstacle)];
    return s.kind == navier_stokes::ShapeKind::Circle ? &s : nullptr;
  }

  const Control& m_m;
  int m_obstacle;
  double m_weight, m_horizon;
};

} // namespace

std::unique_ptr<ShapeDesign> make_control_design(const Control& m, int dim, int obstacle,
                                                 const std::vector<std::string>& variables,
                                                 double effort_weight, double horizon) {
  const auto list = adjoint::scalar_parameters(m, dim);
  std::string known;
  for (const auto& p : list)
    if (p.group == "control")
      known += (known.empty() ? "" : ", ") + p.name;
  if (variables.empty())
    throw ConfigError("design.variables is empty: name the controls to optimise (this case "
                      "has: " +
                      (known.empty() ? std::string("none") : known) + ")");
  std::vector<ScalarParameter> chosen;
  for (const std::string& name : variables) {
    bool found = false;
    // "policy.weight_*": every control whose name starts with what precedes the star.
    const bool prefix = !name.empty() && name.back() == '*';
    const std::string stem = prefix ? name.substr(0, name.size() - 1) : name;
    for (const auto& p : list)
      if ((prefix ? p.name.compare(0, stem.size(), stem) == 0 : p.name == name) &&
          p.group == "control") {
        chosen.push_back(p);
        found = true;
      }
    if (!found)
      throw ConfigError("design.variables: '" + name +
                        "' is not a control of this case (design.parameterisation = control "
                        "takes the coefficients of control signals, the actuators' rates and "
                        "velocities and the policy's weights, a trailing * matching a prefix); "
                        "it has: " +
                        (known.empty() ? std::string("none: give a face, the body force or an "
                                                     "actuator a signal (docs/control.md)")
                                       : known));
  }
  if (!(horizon > 0))
    throw ConfigError("design.parameterisation = control needs a finite time.t_end > 0");
  if (effort_weight > 0 && m.flow.policy.active())
    throw ConfigError("optimize.effort_weight measures actuation that signals in time set, but "
                      "policy.kind drives the actuators from the flow: bound the jets with "
                      "policy.saturate = true instead, or set optimize.effort_weight = 0");
  return std::make_unique<ControlDesign>(m, obstacle, std::move(chosen), effort_weight, horizon);
}

} // namespace optimisation
} // namespace undertow
