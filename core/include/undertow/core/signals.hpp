#pragma once
/// \file
/// The signals a batch system sends a running job: SIGUSR1 (write a checkpoint and go on) and
/// SIGTERM (write one and stop). Handlers only remember them; the time loop (Simulation) asks
/// at the end of a step, on every rank together.

#include "undertow/core/communicator.hpp"

namespace undertow {

/// Installs handlers that remember SIGUSR1 and SIGTERM (a SIGTERM is not overridden by a later
/// SIGUSR1). Not collective.
void install_stop_signals();

/// The signal received on any rank since the last call (SIGTERM before SIGUSR1), or 0; clears
/// it. Collective: call it at the same step on every rank.
int received_signal(const Communicator& comm);

} // namespace undertow
