#include "undertow/optimisation/reduced_objective.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <cmath>
#include <cstdlib>

namespace undertow {
namespace optimisation {

Control ReducedObjective::parameters(const std::vector<double>& x) const {
  Control m = m_m0;
  m_design.apply(x, m);
  return m;
}

std::array<double, 2> ReducedObjective::lift_and_drag(const Control& m, bool positive_drag) {
  std::vector<double> terms;
  m_driver.objective(m, m_dts, &terms);
  if (positive_drag && !(terms[1] > 0))
    throw CollectiveError(
        format("the drag %.3e is not positive, so -lift/drag is undefined", terms[1]));
  return {terms[0], terms[1]};
}

namespace {

/// The case's objective sum, plus the design's regulariser (a control design's effort).
class WeightedObjective : public ReducedObjective {
 public:
  using ReducedObjective::ReducedObjective;
  Evaluation evaluate(const std::vector<double>& x) override {
    const Gradient g = m_driver.gradient(parameters(x), m_dts);
    Evaluation e;
    e.x = x;
    e.gradient = m_design.chain(g, x);
    e.objective = g.objective + m_design.regulariser(x, &e.gradient);
    return e;
  }
  std::vector<double> values(const std::vector<double>& x) override {
    return {m_driver.objective(parameters(x), m_dts) + m_design.regulariser(x, nullptr)};
  }
};

/// -lift/drag, by the gradient of its linearisation at x.
class LiftToDragObjective : public ReducedObjective {
 public:
  using ReducedObjective::ReducedObjective;
  Evaluation evaluate(const std::vector<double>& x) override {
    const Control m = parameters(x);
    const auto ld = lift_and_drag(m, true);
    const std::vector<double> linearised = {-1.0 / ld[1], ld[0] / (ld[1] * ld[1])};
    const Gradient g = m_driver.gradient(m, m_dts, &linearised);
    Evaluation e;
    e.x = x;
    e.objective = -ld[0] / ld[1];
    e.gradient = m_design.chain(g, x);
    return e;
  }
  std::vector<double> values(const std::vector<double>& x) override {
    const auto ld = lift_and_drag(parameters(x), true);
    return {-ld[0] / ld[1]};
  }
};

/// The drag, with the lift held at a target by an equality constraint.
class DragAtLiftObjective : public ReducedObjective {
 public:
  DragAtLiftObjective(GradientDriver& driver, const ShapeDesign& design, const Control& m0,
                      adjoint::StepSizes dts, const std::string& target)
      : ReducedObjective(driver, design, m0, std::move(dts)) {
    if (target == "initial") {
      m_target = lift_and_drag(m0, false)[0];
      return;
    }
    char* end = nullptr;
    m_target = std::strtod(target.c_str(), &end);
    if (end == target.c_str() || *end != '\0' || !std::isfinite(m_target))
      throw ConfigError("optimize.lift_target = '" + target +
                        "' is neither a number (the lift coefficient to keep) nor initial");
  }
  Evaluation evaluate(const std::vector<double>& x) override {
    const Control m = parameters(x);
    const std::vector<double> only_drag = {0.0, 1.0}, only_lift = {1.0, 0.0};
    const Gradient drag = m_driver.gradient(m, m_dts, &only_drag);
    const Gradient lift = m_driver.gradient(m, m_dts, &only_lift);
    Evaluation e;
    e.x = x;
    e.objective = drag.objective;
    e.gradient = m_design.chain(drag, x);
    e.constraints = {lift.objective - m_target};
    e.constraint_gradients = {m_design.chain(lift, x)};
    return e;
  }
  std::vector<double> values(const std::vector<double>& x) override {
    const auto ld = lift_and_drag(parameters(x), false);
    return {ld[1], ld[0]};
  }
  std::vector<std::string> value_names() const override { return {"J", "C_L"}; }
  std::vector<double> values_of(const Evaluation& e) const override {
    return {e.objective, m_target + e.constraints[0]};
  }
  std::vector<std::vector<double>> gradients_of(const Evaluation& e) const override {
    return {e.gradient, e.constraint_gradients[0]};
  }
  std::vector<std::string> flow_constraints() const override { return {"lift_deviation"}; }
  double target() const { return m_target; }

 private:
  double m_target = 0;
};

} // namespace

std::unique_ptr<ReducedObjective>
make_reduced_objective(const std::string& goal, const std::string& lift_target,
                       GradientDriver& driver, const ShapeDesign& design, const Control& m0,
                       const adjoint::StepSizes& dts) {
  if (goal == "weighted")
    return std::make_unique<WeightedObjective>(driver, design, m0, dts);
  if (goal == "lift_to_drag")
    return std::make_unique<LiftToDragObjective>(driver, design, m0, dts);
  if (goal == "drag_at_lift")
    return std::make_unique<DragAtLiftObjective>(driver, design, m0, dts, lift_target);
  throw ConfigError("optimize.objective = '" + goal +
                    "' is not weighted, lift_to_drag or drag_at_lift");
}

double lift_target_of(const ReducedObjective& J) {
  const auto* at_lift = dynamic_cast<const DragAtLiftObjective*>(&J);
  if (!at_lift)
    throw Error("lift_target_of: the objective holds no lift");
  return at_lift->target();
}

} // namespace optimisation
} // namespace undertow
