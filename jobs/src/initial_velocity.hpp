#pragma once
// The initial velocity of a Navier-Stokes case: one of the analytic fields of initial.type, or
// (initial.type = file) the velocity of a restart file written on another grid, interpolated
// onto this one: a run refined from a coarser run's developed flow, as OpenFOAM's mapFields
// starts one.

#include "undertow/core/config.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>

namespace undertow {

/// What velocity_from_file tells of the file it read.
struct FileVelocityInfo {
  std::string description; ///< one line for the log: the file, its grid, step and time
  long values_held = 0;    ///< velocity values of the file this rank holds (around its points)
  long values_in_file = 0; ///< all the file's velocity values
};

/// The velocity of the Navier-Stokes restart file `path` (any grid: uniform or stretched, any
/// resolution, written on any number of ranks) as a function on the box: each component
/// multilinearly interpolated between its own staggered points of the file's grid, wrapped along
/// periodic axes, and extrapolated linearly by at most half a cell beyond the outermost points
/// (the first cell centres and faces next to a wall). Exact for velocity fields linear in each
/// coordinate, and on the file's own grid it returns the stored values bit for bit. The result
/// is not divergence-free on another grid: the caller projects it (a run's start does).
///
/// Throws ConfigError naming the file, the problem and the fix: missing, not a restart file,
/// another model, another dimension or periodicity, a box that does not cover this domain's, or
/// a corrupted dataset (checksums). `info` (if given) receives a line for the log and the
/// memory held.
///
/// The function may be evaluated only at this rank's owned points of each velocity component
/// of `domain` (what set_velocity does): the file is read in its grid's own decomposition and
/// redistributed with one all-to-all, so that each rank holds only the file's points around its
/// own (8 bytes per point, about its share of the file), never the whole field. Evaluating it
/// elsewhere throws std::logic_error. Collective.
navier_stokes::VelocityFunction velocity_from_file(const std::string& path, const Domain& domain,
                                                   FileVelocityInfo* info = nullptr);

/// The initial velocity that [initial] asks for: initial_field's analytic fields, or with
/// initial.type = file velocity_from_file(initial.file), said in `log`. `exact` tells whether it
/// is an exact solution (never for a file). Throws ConfigError for initial.file without
/// initial.type = file, or the reverse. Collective.
navier_stokes::VelocityFunction initial_velocity(const Config& config, const Domain& domain,
                                                 double nu, bool& exact, const Log& log);

} // namespace undertow
