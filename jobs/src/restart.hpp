#pragma once
// Restart files of a Navier-Stokes run: everything the next steps depend on (the solver's state
// fields, its clock and the driver's step count), the case they belong to, and checksums.
// Format "undertow restart" version 1; see docs/output.md.

#include "undertow/core/config.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>

namespace undertow {

/// The keys that define the problem a restart file belongs to ("key = value" lines): the model,
/// the domain, the fluid, the boundaries and the obstacles. Solver and output settings may change
/// between a run and its restart.
std::string case_signature(const Config& config);

/// Writes <dir>/restart_<step>.h5 (temporary name, then rename) and removes all but the newest
/// `keep` restart files of `dir`. `dt` is the last step's dt [s], recorded for the user (a
/// restarted run takes its dt from time.dt or the CFL condition, as the original did). Returns
/// the path. Collective.
std::string write_restart(const std::string& dir, navier_stokes::NavierStokes& ns,
                          const Domain& domain, const Config& config, long step, int keep,
                          double dt);

/// Loads `path` into `ns` and returns the step it was written at. Throws CollectiveError naming
/// the file and what does not match: missing or unreadable, not a restart file, another format
/// version, another case (listing the differing keys), another grid, or a checksum mismatch.
/// Collective.
long read_restart(const std::string& path, navier_stokes::NavierStokes& ns, const Domain& domain,
                  const Config& config);

} // namespace undertow
