#pragma once
/// \file
/// The signals a batch system sends a running job: SIGUSR1 (write a checkpoint and go on) and
/// SIGTERM (write one and stop), and a walltime budget that ends like SIGTERM. Handlers only
/// remember them; the time loop (Simulation) and the adjoint sweep ask at the end of a step, on
/// every rank together.

#include "undertow/core/communicator.hpp"

#include <string>

namespace undertow {

/// Installs handlers that remember SIGUSR1 and SIGTERM (a SIGTERM is not overridden by a later
/// SIGUSR1). SIGUSR2 stops as SIGTERM does: launchers that end the job on SIGTERM, such as
/// Open MPI's mpirun, pass USR1 and USR2 on to the ranks. Not collective.
void install_stop_signals();

/// The signal received on any rank since the last call (SIGTERM before SIGUSR1), or 0; clears
/// it. A spent walltime budget (set_walltime_budget) counts as SIGTERM. Collective: call it at
/// the same step on every rank.
int received_signal(const Communicator& comm);

/// A wall-clock budget of `seconds` from now (a batch job's time limit, `--walltime`): once less
/// than twice the longest interval between two received_signal() calls is left (a step, and
/// the writing of the state, must still fit), received_signal() answers SIGTERM. 0: none.
/// Not collective (every rank sets it alike; received_signal agrees on the answer).
void set_walltime_budget(double seconds);

/// The budget of set_walltime_budget [s]; 0: none. Not collective.
double walltime_budget();

/// What stopped the run: "SIGTERM", "SIGUSR2", or "the --walltime budget of N s" once it is
/// spent. Not collective.
std::string stop_reason();

} // namespace undertow
