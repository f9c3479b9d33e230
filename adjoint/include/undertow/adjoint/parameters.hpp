#pragma once
/// \file
/// The parameters of a gradient by name, and the checks built on them: a Taylor remainder test
/// in a direction and central finite differences. Scalar parameters are named as in the case
/// file: "fluid.nu", "fluid.body_force_x", "boundary.x_lo.velocity_x", "obstacle1.radius", the
/// coefficients of a face's control signal "boundary.x_lo.signal_J", an actuator's scale and
/// signal "obstacle1.rotation_rate", "obstacle1.jet_signal_J", the feedback policy's weights
/// "policy.weight_J", ...; each belongs to a
/// group (nu, body_force, boundary, control, shape); the field-valued initial velocity
/// and Brinkman design field form the groups "initial" and "design".

#include "undertow/adjoint/gradient.hpp"
#include "undertow/adjoint/verification.hpp"

#include <map>
#include <string>
#include <vector>

namespace undertow {
namespace adjoint {

struct ScalarParameter {
  enum class Kind {
    Nu,
    BodyForce,
    BodyForceSignal,
    BoundaryVelocity,
    BoundarySignal,
    ActuatorScale,
    ActuatorSignal,
    PolicyWeight,
    Shape
  };
  std::string name;  ///< e.g. "obstacle1.radius", "boundary.x_lo.signal_2"
  std::string group; ///< nu, body_force, boundary, control (signal coefficients), shape
  double scale;      ///< a typical size of a change (for directions and finite differences)
  Kind kind;
  int a = 0;        ///< axis (body force), face (boundary, its signal), actuator, obstacle (shape)
  int b = 0;        ///< component (boundary), coefficient (signal), parameter index (shape)
  int position = 0; ///< shape: index in shape_parameters(), as in Gradient::shape
};

/// Where the parameter's value lives in m.
double& value_of(Control& m, const ScalarParameter& p);
/// Its entry in the gradient.
double derivative_of(const Gradient& g, const ScalarParameter& p);

/// Every scalar parameter of m that the forward run depends on (boundary velocities only where
/// a face prescribes them: inflow components, tangential wall components). Not collective.
std::vector<ScalarParameter> scalar_parameters(const Control& m, int dim);

/// The value of a named parameter in m. Throws ConfigError for an unknown name.
double& parameter_value(Control& m, const std::vector<ScalarParameter>& list,
                        const std::string& name);

/// A direction h in parameter space: scalar components by name, and optionally an initial
/// velocity field.
struct Direction {
  std::map<std::string, double> scalars;
  Velocity3 initial; ///< empty views: no initial-field component
  Field design;      ///< empty: no design-field component
};

/// m + eps h. Not collective.
Control perturbed(const Control& m, const Direction& h, double eps, int dim);
/// <dJ/dm, h>. Collective (the field part is a global dot product).
double directional_derivative(const Gradient& g, const Direction& h, const Domain& d,
                              const std::vector<ScalarParameter>& list);

/// A reproducible random direction over the parameters of `group` ("all" for every group):
/// scalars uniform in [-scale, scale]; the initial field uniform in [-amplitude, amplitude] and
/// the design field in [0, design_amplitude] (it must stay >= 0), from a hash of the global index,
/// so that it is the same on any number of ranks. Not collective.
Direction random_direction(const Control& m, const std::vector<ScalarParameter>& list,
                           const std::string& group, double amplitude, unsigned seed,
                           const Domain& d, double design_amplitude = 1e-3);

/// The Taylor test (verification.hpp) of the flow's J along h:
/// |J(m + eps h) - J(m) - eps <dJ/dm, h>| for eps = eps0, eps0/2, ... (`halvings` + 1 values),
/// and the observed rates log2(r_i / r_{i+1}), expected 2. Collective.
TaylorResult taylor_test(GradientDriver& driver, const Control& m, const StepSizes& dts,
                         const Gradient& g, const Direction& h, double eps0, int halvings,
                         const std::vector<ScalarParameter>& list);

/// dJ/dp of one scalar parameter by the extrapolated central difference of verification.hpp.
/// Collective.
FiniteDifference finite_difference(GradientDriver& driver, const Control& m, const StepSizes& dts,
                                   const ScalarParameter& p, double step);

} // namespace adjoint
} // namespace undertow
