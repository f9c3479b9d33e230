#pragma once
// [checkpoint] of `undertow gradient`: the settings, the plan printed before the run and what
// happened, printed after it (docs/checkpointing.md).

#include "undertow/adjoint/gradient.hpp"
#include "undertow/core/config.hpp"

#include <string>

namespace undertow {
namespace jobs {

/// Declares [checkpoint]. Not collective.
void declare_checkpoint_keys(ConfigSchema& schema);

/// "2GiB", "512 MiB", "1.5e9" (bytes), "800MB" as bytes; throws ConfigError naming `key`.
double parse_bytes(const std::string& key, const std::string& text);

/// The checkpointing of a gradient run from [checkpoint]: ram_slots derived from the memory
/// budget checkpoint.ram if it is given, the HDF5 file in checkpoint.disk_dir (default: the
/// output directory), or in `resume_dir` to resume a killed run there (empty: a new run).
/// Throws ConfigError naming the key and the fix. Collective (the budget uses the largest
/// rank's state).
adjoint::Checkpointing checkpointing_from(const Config& config, navier_stokes::NavierStokes& ns,
                                          long steps, const std::string& output_dir,
                                          const std::string& resume_dir);

/// Prints the plan: steps, slots, predicted recomputations and peak memory per rank. Rank 0.
void print_plan(const Log& log, const adjoint::Checkpointing& c, navier_stokes::NavierStokes& ns,
                long steps);

/// Prints what happened: recomputations, peak memory, disk traffic and bandwidth, the time
/// split. Collective (maxima over ranks).
void print_outcome(const Log& log, const Communicator& comm, const adjoint::Checkpointing& c,
                   const adjoint::Gradient& g, long steps);

} // namespace jobs
} // namespace undertow
