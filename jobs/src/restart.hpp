#pragma once
// Restart files of a run: everything the next steps depend on (the model's state fields, its
// clock and the driver's step count), the case they belong to, and checksums. Format "undertow
// restart" version 2; see docs/output.md.

#include "undertow/core/config.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/simulation.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>
#include <utility>
#include <vector>

namespace undertow {

/// True if two configuration values mean the same: word by word, numbers compared as numbers
/// (0.01 and 1e-2 alike), other words as text. Not collective.
bool same_value(const std::string& a, const std::string& b);

/// The keys that define the problem a restart file belongs to ("key = value" lines): the model,
/// the domain, the fluid, the boundaries and the obstacles. Solver and output settings may change
/// between a run and its restart.
std::string case_signature(const Config& config);

/// What a restart file holds of a model: its state fields, the numbers of its position beyond
/// the step and dt (its time first, then e.g. the solver's step count, a run's running totals),
/// and records that are not grid fields (e.g. a probe's history), which a restarted run sets
/// back.
struct RestartState {
  std::string model; ///< case.model
  std::string units; ///< what the fields and numbers are measured in, for a reader of the file
  std::vector<std::pair<std::string, Field*>> fields;
  std::vector<std::pair<std::string, double>> numbers; ///< "time" [s] first
  /// Records the same on every rank, stored whole (written by rank 0).
  std::vector<std::pair<std::string, std::vector<double>*>> series;
};

/// Writes <dir>/restart_<step>.h5 of `state` (temporary name, then rename) and removes all but
/// the newest `keep` restart files of `dir`. `dt` is the last step's dt [s]. Returns the path.
/// Collective.
std::string write_restart(const std::string& dir, const RestartState& state, const Domain& domain,
                          const Config& config, long step, int keep, double dt);

/// Throws ConfigError, starting with `given_as` (how the user named the file, e.g. "--restart
/// x.h5"), unless `path` is a regular file. Collective.
void require_restart_file(const Communicator& comm, const std::string& path,
                          const std::string& given_as);

/// Throws CollectiveError unless `file` is an undertow restart file of the format version this
/// build reads (its 'format' and 'format_version' attributes). Collective.
void check_restart_format(const io::FieldFile& file);

/// Loads `path` into `state` (its fields and numbers, named as written) and returns the step it
/// was written at. Throws ConfigError naming the file and what does not match: missing or
/// unreadable, not a restart file, another format version, another case (listing the differing
/// keys), another grid, a changed position or a checksum mismatch. Collective.
long read_restart(const std::string& path, RestartState& state, const Domain& domain,
                  const Config& config);

/// The checks of a run of `n_steps` fixed steps of `dt` [s] continued from restart file `path`,
/// read at `step` and `time` [s] with the solver's own step count `solver_steps`: the counts
/// agree, the time is `step` steps of this dt, and steps are left to run. Throws ConfigError
/// naming the file and what to do. Not collective.
void check_restart_step(const std::string& path, long step, double solver_steps, double time,
                        double dt, long n_steps);

/// restart.every, restart.at_step and restart.keep, for every model that writes restart files.
/// Not collective.
void declare_restart_keys(ConfigSchema& schema);

/// The steps after which restart.every and restart.at_step ask for a restart file (an empty
/// cadence if neither does). Not collective.
Cadence restart_cadence(const Config& config);

/// Writes the restart file of `state` after step sim.step() into <output_dir>/restart (keeping
/// the newest restart.keep), says so in `log`, and after a stop (sim.signal() == SIGTERM:
/// SIGTERM, or the --walltime budget spent) throws Stopped with the command that continues the
/// run. Collective.
void write_restart_file(const Simulation& sim, const RestartState& state, const Domain& domain,
                        const Config& config, const std::string& output_dir,
                        const std::string& case_file, const Log& log);

/// A bitwise fingerprint of the state, the same on any number of ranks ("name:checksum " per
/// field), for reports: restarted and uninterrupted runs can be compared exactly. Collective.
std::string state_checksum(const Communicator& comm, const RestartState& state);

/// The restart state of a Navier-Stokes solver: its state fields, time, step count and psi
/// scale (shares the solver's fields).
RestartState restart_state(navier_stokes::NavierStokes& ns);

/// read_restart of restart_state(ns), then the solver's clock set back. Throws ConfigError as
/// read_restart does. Collective.
long read_restart(const std::string& path, navier_stokes::NavierStokes& ns, const Domain& domain,
                  const Config& config);

} // namespace undertow
