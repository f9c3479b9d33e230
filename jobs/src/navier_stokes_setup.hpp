#pragma once
// What a Navier-Stokes case file sets up, shared by `undertow run` and `undertow gradient`.

#include "undertow/adjoint/gradient.hpp"
#include "undertow/core/config.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>

namespace undertow {
namespace jobs {

/// The flow parameters of [fluid], [boundary], [obstacles], [obstacle1..4] and [pressure]
/// (navier_stokes::flow_parameters), with the design field of obstacles.design, a number or an
/// HDF5 file. Throws ConfigError naming a bad key. Collective (reads a file).
navier_stokes::NavierStokesParams flow_parameters(const Config& config, const Domain& domain);
/// "feedback policy: linear 18 -> 1, saturated (19 weights), 9 sensors, driving
/// obstacle1.jet", or empty without a policy: for the start of a run's log.
std::string feedback_summary(const navier_stokes::NavierStokesParams& params);

/// Declares [adjoint]: the settings of `undertow gradient`. Not collective.
void declare_adjoint_keys(ConfigSchema& schema);

/// Declares [design] and [optimize]: the settings of `undertow optimize` (optimize.cpp). Not
/// collective.
void declare_optimize_keys(ConfigSchema& schema);

/// The parameters m of `undertow gradient` and `undertow optimize`: the flow parameters, and
/// the initial velocity of initial.* or, if `restart` is not empty, of that restart file, whose
/// time [s] goes to `start_time` if given (0 without a restart). Throws ConfigError.
/// Collective.
adjoint::Control control_from_case(const Config& config, const Domain& domain,
                                   const std::string& restart, const Log& log,
                                   double* start_time = nullptr);

} // namespace jobs
} // namespace undertow
