#pragma once
/// \file
/// A control design (docs/control.md): the design variables are time-dependent controls of a
/// run, named as the gradient names them (the coefficients of control signals,
/// "obstacle1.jet_signal_3", "boundary.x_lo.signal_0", "fluid.body_force_signal_1", and the
/// actuators' scales, "obstacle1.rotation_rate", "obstacle1.jet_velocity"), for open-loop
/// optimal control with `undertow optimize` (design.parameterisation = control). The bodies do
/// not change.
///
/// Its regulariser is the actuation effort
///
///   R(x) = w (1 / T) int_0^T sum_k A_k(t)^2 dt,
///
/// A_k = scale_k a_k(t) the amplitude of actuator k (actuators.hpp: a rotation rate [rad/s], a
/// jet velocity [m/s]), over the run's horizon [0, T], by the mean over 1000 equally spaced times
/// (the midpoints of 1000 equal intervals); its gradient is that of the same sum.

#include "undertow/optimisation/shape_design.hpp"

#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace optimisation {

/// The control design of `variables` (control parameters of m, adjoint::scalar_parameters'
/// group "control"), with effort weight `effort_weight` [J per (rad/s)^2 or (m/s)^2] over the
/// horizon [0, `horizon`] [s]; `obstacle` (0-based, or -1 for none) is the body its area and
/// outline report (a circle; it does not change). Throws ConfigError naming design.variables
/// for a name that is not a control parameter of the case (listing those it has). Not
/// collective.
std::unique_ptr<ShapeDesign> make_control_design(const Control& m, int dim, int obstacle,
                                                 const std::vector<std::string>& variables,
                                                 double effort_weight, double horizon);

} // namespace optimisation
} // namespace undertow
