#pragma once
/// \file
/// A Navier-Stokes flow as a case file gives it: the keys of [fluid], [boundary], [obstacles],
/// [obstacle1..4], [initial] and [pressure], the parameters they set, and the initial fields,
/// some of them exact solutions of the equations (for the reference checks).

#include "undertow/core/config.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>

namespace undertow {
namespace navier_stokes {

/// Declares the flow's keys. Not collective.
void declare_flow_keys(ConfigSchema& schema);

/// The flow parameters of those keys, without a design field (obstacles.design names a number
/// or a file: the caller, which can read files, sets params.obstacles.design). Throws
/// ConfigError naming a bad key. Not collective.
NavierStokesParams flow_parameters(const Config& config, const Domain& domain);

/// The initial velocity of initial.type with amplitude [m/s] (nu [m^2/s] for the decay of the
/// exact solutions): rest, taylor_green (exact in 2D), abc (exact, a 3D cube), poiseuille
/// (exact when driven consistently). `exact` tells whether it is an exact solution. Throws
/// ConfigError for abc off a cube. Not collective.
VelocityFunction initial_field(const std::string& type, double amplitude, const Domain& d,
                               double nu, bool& exact);

} // namespace navier_stokes
} // namespace undertow
