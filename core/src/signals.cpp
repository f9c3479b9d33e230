#include "undertow/core/signals.hpp"

#include <csignal>

namespace undertow {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void remember_signal(int signal) {
  if (g_signal != SIGTERM) // SIGTERM is not overridden by a later SIGUSR1
    g_signal = signal;
}

} // namespace

void install_stop_signals() {
  std::signal(SIGUSR1, remember_signal);
  std::signal(SIGTERM, remember_signal);
}

int received_signal(const Communicator& comm) {
  const long long mine = g_signal == SIGTERM ? 2 : g_signal == SIGUSR1 ? 1 : 0;
  g_signal = 0;
  const long long any = comm.max(mine);
  return any == 2 ? SIGTERM : any == 1 ? SIGUSR1 : 0;
}

} // namespace undertow
