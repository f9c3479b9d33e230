#pragma once
/// \file
/// Helpers of the Navier-Stokes gradient driver's runs (internal to adjoint/).

#include "undertow/solvers/navier_stokes/adjoint.hpp"

namespace undertow {
namespace adjoint {

/// A prepared copy of the solver's velocity: what objectives read. Collective.
inline void prepared_state(navier_stokes::NavierStokes& ns, Velocity3& out) {
  for (int c = 0; c < ns.domain().dim(); ++c)
    copy(ns.velocity(c), out[c]);
  ns.prepare(out);
}

} // namespace adjoint
} // namespace undertow
