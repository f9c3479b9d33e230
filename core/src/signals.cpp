#include "undertow/core/signals.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>

namespace undertow {

namespace {

volatile std::sig_atomic_t g_signal = 0;      ///< SIGTERM (to stop) or SIGUSR1
volatile std::sig_atomic_t g_stop_signal = 0; ///< the signal that asked to stop: SIGTERM, SIGUSR2

using Clock = std::chrono::steady_clock;
double g_budget = 0; ///< the walltime budget [s]; 0: none
Clock::time_point g_budget_start;
Clock::time_point g_last_call; ///< of received_signal
bool g_polled = false;         ///< received_signal was called since the budget was set
double g_longest = 0;          ///< the longest interval between two calls [s]
bool g_budget_spent = false;   ///< the budget, not a signal, stopped the run

extern "C" void remember_signal(int signal) {
  if (signal == SIGTERM || signal == SIGUSR2) {
    g_stop_signal = signal;
    g_signal = SIGTERM;
  } else if (g_signal != SIGTERM) { // a stop is not overridden by a later SIGUSR1
    g_signal = signal;
  }
}

} // namespace

void install_stop_signals() {
  std::signal(SIGUSR1, remember_signal);
  std::signal(SIGTERM, remember_signal);
  std::signal(SIGUSR2, remember_signal);
}

void set_walltime_budget(double seconds) {
  g_budget = seconds;
  g_budget_start = Clock::now();
  g_polled = false;
  g_longest = 0;
  g_budget_spent = false;
}

int received_signal(const Communicator& comm) {
  long long mine = g_signal == SIGTERM ? 3 : g_signal == SIGUSR1 ? 1 : 0;
  g_signal = 0;
  if (g_budget > 0) {
    // The intervals between polls, not the set-up before the first one, say how long a step
    // (and the writing of the state after it) takes.
    const auto now = Clock::now();
    if (g_polled)
      g_longest = std::max(g_longest, std::chrono::duration<double>(now - g_last_call).count());
    g_polled = true;
    g_last_call = now;
    const double used = std::chrono::duration<double>(now - g_budget_start).count();
    if (used + 2 * g_longest >= g_budget)
      mine = std::max(mine, 2LL);
  }
  const long long any = comm.max(mine);
  if (any == 2)
    g_budget_spent = true;
  return any >= 2 ? SIGTERM : any == 1 ? SIGUSR1 : 0;
}

double walltime_budget() {
  return g_budget;
}

std::string stop_reason() {
  if (!g_budget_spent)
    return g_stop_signal == SIGUSR2 ? "SIGUSR2" : "SIGTERM";
  char text[96];
  std::snprintf(text, sizeof text, "the --walltime budget of %g s", g_budget);
  return text;
}

} // namespace undertow
