#pragma once
// What a Navier-Stokes case file sets up, shared by `undertow run` and `undertow gradient`.

#include "undertow/adjoint/gradient.hpp"
#include "undertow/core/config.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>

namespace undertow {
namespace jobs {

/// The flow parameters of [fluid], [boundary], [obstacles], [obstacle1..4] and [pressure].
/// Throws ConfigError naming a bad key. Not collective.
navier_stokes::NavierStokesParams flow_parameters(const Config& config, const Domain& domain);

/// Declares [adjoint]: the settings of `undertow gradient`. Not collective.
void declare_adjoint_keys(ConfigSchema& schema);

/// Declares [design] and [optimize]: the settings of `undertow optimize` (optimize.cpp). Not
/// collective.
void declare_optimize_keys(ConfigSchema& schema);

/// The initial velocity of initial.type with amplitude [m/s] (nu for the decay of the exact
/// solutions); `exact` tells whether it is an exact solution of the equations.
navier_stokes::VelocityFunction initial_field(const std::string& type, double amplitude,
                                              const Domain& d, double nu, bool& exact);

/// The parameters m of `undertow gradient` and `undertow optimize`: the flow parameters, and
/// the initial velocity of initial.* or, if `restart` is not empty, of that restart file.
/// Throws ConfigError. Collective.
adjoint::Control control_from_case(const Config& config, const Domain& domain,
                                   const std::string& restart, const Log& log);

} // namespace jobs
} // namespace undertow
