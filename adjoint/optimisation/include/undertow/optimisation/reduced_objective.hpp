#pragma once
/// \file
/// The reduced objective of a shape optimisation: J(x) = J(m(x)) of a design x, with its
/// gradient by the chain rule through the parameterisation (shape_design.hpp) and the flow
/// constraints TAO holds. The objectives an optimisation can take are composed here from forward
/// runs and adjoint sweeps of one GradientDriver:
///
/// - weighted:      the case's objective sum;
/// - lift_to_drag:  J = -L/D of the terms (lift, drag); its gradient is that of the
///                  linearisation at x, -dL/D + L dD/D^2: the objective with the weights
///                  (-1/D, L/D^2) that a forward run finds first;
/// - drag_at_lift:  J = D with the equality constraint L - L* = 0, one adjoint sweep each.

#include "undertow/adjoint/gradient.hpp"
#include "undertow/optimisation/shape_design.hpp"
#include "undertow/optimisation/shape_optimiser.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace optimisation {

class ReducedObjective {
 public:
  /// Evaluates designs of `design` applied to `m0`, over the frozen steps `dts`, with `driver`
  /// (all must outlive this). Not collective.
  ReducedObjective(GradientDriver& driver, const ShapeDesign& design, const Control& m0,
                   adjoint::StepSizes dts)
      : m_driver(driver), m_design(design), m_m0(m0), m_dts(std::move(dts)) {}
  virtual ~ReducedObjective() = default;

  /// J(x), dJ/dx and the flow constraints with their gradients. Collective.
  virtual Evaluation evaluate(const std::vector<double>& x) = 0;
  /// The functions a Taylor test checks, from forward runs only: J(x) first, then e.g. the lift
  /// a constraint holds. Collective.
  virtual std::vector<double> values(const std::vector<double>& x) = 0;
  /// Their names ("J", "C_L") and their values and gradients in an evaluation. Not collective.
  virtual std::vector<std::string> value_names() const { return {"J"}; }
  virtual std::vector<double> values_of(const Evaluation& e) const { return {e.objective}; }
  virtual std::vector<std::vector<double>> gradients_of(const Evaluation& e) const {
    return {e.gradient};
  }
  /// The names of the flow constraints evaluate() returns (OptimiserSettings::flow_constraints).
  virtual std::vector<std::string> flow_constraints() const { return {}; }

  /// The parameters of design x. Not collective.
  Control parameters(const std::vector<double>& x) const;

 protected:
  /// The lift and drag terms of J at m (objective.terms = lift drag), from one forward run.
  /// Throws CollectiveError if `positive_drag` and the drag is not positive. Collective.
  std::array<double, 2> lift_and_drag(const Control& m, bool positive_drag);

  GradientDriver& m_driver;
  const ShapeDesign& m_design;
  const Control& m_m0;
  adjoint::StepSizes m_dts;
};

/// The objective of optimize.objective (weighted, lift_to_drag, drag_at_lift; the lift target
/// `lift_target` of drag_at_lift: a number, or "initial" for that of m0, one forward run).
/// Throws ConfigError for an unknown goal or target. Collective (an initial lift target runs
/// the flow).
std::unique_ptr<ReducedObjective>
make_reduced_objective(const std::string& goal, const std::string& lift_target,
                       GradientDriver& driver, const ShapeDesign& design, const Control& m0,
                       const adjoint::StepSizes& dts);

/// The lift coefficient a drag_at_lift objective holds; throws Error for another objective.
double lift_target_of(const ReducedObjective& J);

} // namespace optimisation
} // namespace undertow
