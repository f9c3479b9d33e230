#pragma once
/// \file
/// The subcommands of the `undertow` executable. Each takes its own arguments (after the
/// subcommand name) and returns the process exit code. All are collective over `comm`.

#include "undertow/core/communicator.hpp"

#include <string>
#include <vector>

namespace undertow {
namespace jobs {

/// Exit codes shared by every subcommand.
enum ExitCode : int {
  kSuccess = 0,
  kCheckFailed = 1, ///< ran, but --check found a mismatch against the reference
  kUsageError = 2,  ///< bad command line or case file
  kRunFailed = 3,   ///< the run itself failed (diverged, I/O, ...)
  /// Stopped on purpose with its state saved (SIGTERM, a spent --walltime): the printed command
  /// continues it, and a batch script requeues on this code. 75 is EX_TEMPFAIL of sysexits.h.
  kStopped = 75,
};

int command_info(const Communicator& comm, const std::vector<std::string>& args);
int command_run(const Communicator& comm, const std::vector<std::string>& args);
int command_gradient(const Communicator& comm, const std::vector<std::string>& args);
int command_optimize(const Communicator& comm, const std::vector<std::string>& args);
int command_submit(const Communicator& comm, const std::vector<std::string>& args);
/// Notes the names of the environment variables the process started with, before MPI_Init adds
/// its own (a singleton's runtime variables), which submit keeps out of the batch job: sbatch
/// and qsub pass the environment on, and mpiexec or srun in the job would take them for theirs.
/// Call first in main. Not collective.
void remember_start_environment();
int command_collect(const Communicator& comm, const std::vector<std::string>& args);
int command_keys(const Communicator& comm, const std::vector<std::string>& args);

} // namespace jobs
} // namespace undertow
