#pragma once
/// \file
/// Small helpers of the gradient driver's runs (internal to adjoint/).

#include "undertow/adjoint/navier_stokes_adjoint.hpp"

#include <chrono>

namespace undertow {
namespace adjoint {

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// A prepared copy of the solver's velocity: what objectives read. Collective.
inline void prepared_state(navier_stokes::NavierStokes& ns, Velocity3& out) {
  for (int c = 0; c < ns.domain().dim(); ++c)
    copy(ns.velocity(c), out[c]);
  ns.prepare(out);
}

} // namespace adjoint
} // namespace undertow
