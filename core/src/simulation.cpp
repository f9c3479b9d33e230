#include "undertow/core/simulation.hpp"

#include "undertow/core/log.hpp"
#include "undertow/core/signals.hpp"

#include <cmath>
#include <csignal>

namespace undertow {

namespace {

/// Relative tolerance of "the time has reached t" (round-off of summed dt).
constexpr double kTimeTolerance = 1e-12;

template <class T>
std::vector<T> joined(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

} // namespace

double TimeStepper::stable_dt(double) const {
  throw Error("this model has no CFL condition: give it a fixed time step (time.dt)");
}

void Clock::validate() const {
  for (double dt : steps)
    if (!(dt > 0))
      throw ConfigError("a given time step is not positive: " + std::to_string(dt) + " s");
  if (!steps.empty())
    return;
  if (!(fixed_dt > 0) && !(cfl > 0))
    throw ConfigError("the time step is undefined: set time.dt > 0 or time.cfl > 0");
  if (std::isinf(t_end) && max_steps < 0 && !(walltime > 0))
    throw ConfigError("the run would never end: set time.t_end");
  // A step count that no machine finishes is a typo (dt = 1e-300), not a run to start.
  constexpr double kMostSteps = 1e10;
  if (fixed_dt > 0 && std::isfinite(t_end) && max_steps < 0 &&
      std::abs(t_end) / fixed_dt > kMostSteps)
    throw ConfigError(format("time.t_end = %g with time.dt = %g asks for ", t_end, fixed_dt) +
                      format("%.3g steps, more than any run can take (at most %.0e): raise "
                             "time.dt or lower time.t_end",
                             std::abs(t_end) / fixed_dt, kMostSteps));
  if (walltime < 0)
    throw ConfigError("the walltime budget must be positive, got " + std::to_string(walltime));
}

Cadence Cadence::steps(long period) {
  Cadence s;
  if (period > 0)
    s.step_periods.push_back(period);
  return s;
}

Cadence Cadence::at_step(long step) {
  Cadence s;
  if (step > 0)
    s.at_steps.push_back(step);
  return s;
}

Cadence Cadence::interval(double seconds) {
  Cadence s;
  if (seconds > 0)
    s.time_periods.push_back(seconds);
  return s;
}

Cadence Cadence::last_step() {
  Cadence s;
  s.on_last_step = true;
  return s;
}

Cadence Cadence::signal() {
  Cadence s;
  s.on_signal = true;
  return s;
}

Cadence Cadence::operator|(const Cadence& other) const {
  Cadence s;
  s.step_periods = joined(step_periods, other.step_periods);
  s.at_steps = joined(at_steps, other.at_steps);
  s.time_periods = joined(time_periods, other.time_periods);
  s.on_last_step = on_last_step || other.on_last_step;
  s.on_signal = on_signal || other.on_signal;
  return s;
}

bool Cadence::empty() const {
  return step_periods.empty() && at_steps.empty() && time_periods.empty() && !on_last_step &&
         !on_signal;
}

Simulation::Simulation(const Communicator& comm, TimeStepper& model, Clock clock, long first_step)
    : m_comm(comm), m_model(model), m_clock(clock), m_first_step(first_step), m_step(first_step),
      m_started(std::chrono::steady_clock::now()) {
  m_clock.validate();
}

void Simulation::add_callback(const std::string& name, Cadence when, Callback callback) {
  if (when.empty())
    throw Error("Simulation: callback '" + name + "' has an empty schedule");
  Entry e{name, std::move(when), std::move(callback), {}};
  // The first multiple of each period after the start time.
  for (double period : e.when.time_periods) {
    double next = period;
    while (next <= m_model.time() * (1 + kTimeTolerance))
      next += period;
    e.next_times.push_back(next);
  }
  m_callbacks.push_back(std::move(e));
}

void Simulation::add_finish(const std::string& name, Callback callback) {
  m_finish.emplace_back(name, std::move(callback));
}

void Simulation::watch_signals() {
  install_stop_signals();
  m_watch_signals = true;
}

double Simulation::next_dt() const {
  if (!m_clock.steps.empty()) {
    const auto n = static_cast<std::size_t>(m_step - m_first_step);
    return n < m_clock.steps.size() ? m_clock.steps[n] : m_clock.steps.back();
  }
  return m_clock.fixed_dt > 0 ? m_clock.fixed_dt : m_model.stable_dt(m_clock.cfl);
}

bool Simulation::steps_done() const {
  const long taken = m_step - m_first_step;
  return (m_clock.max_steps >= 0 && taken >= m_clock.max_steps) ||
         (!m_clock.steps.empty() && taken >= static_cast<long>(m_clock.steps.size()));
}

bool Simulation::time_reached() const {
  return m_model.time() >= m_clock.t_end * (1 - kTimeTolerance);
}

int Simulation::poll_signal() const {
  int mine = 0;
  if (m_watch_signals) {
    const int s = received_signal(m_comm);
    mine = s == SIGTERM ? 3 : s == SIGUSR1 ? 1 : 0;
  }
  if (m_clock.walltime > 0 && seconds_since(m_started) >= m_clock.walltime)
    mine = std::max(mine, 2);
  return static_cast<int>(m_comm.max(static_cast<long long>(mine)));
}

bool Simulation::fires(Entry& e) const {
  bool fire = (e.when.on_last_step && m_last && !m_paused) || (e.when.on_signal && m_signal != 0);
  for (long period : e.when.step_periods)
    fire = fire || m_step % period == 0;
  for (long at : e.when.at_steps)
    fire = fire || m_step == at;
  // Every period's next time moves on at every step, whether or not the callback fires now.
  const double t = m_model.time();
  for (std::size_t q = 0; q < e.next_times.size(); ++q) {
    double& next = e.next_times[q];
    fire = fire || t >= next * (1 - kTimeTolerance);
    while (next <= t * (1 + kTimeTolerance))
      next += e.when.time_periods[q];
  }
  return fire;
}

void Simulation::request_stop(const std::string& reason) {
  if (m_stopped_by.empty())
    m_stopped_by = reason;
  m_last = true;
}

void Simulation::run() {
  m_started = std::chrono::steady_clock::now();
  while (!time_reached() && !steps_done() && m_stopped_by.empty()) {
    double dt = next_dt();
    if (m_model.time() + dt > m_clock.t_end)
      dt = m_clock.t_end - m_model.time();
    m_dt = dt;
    try {
      m_model.step(dt);
    } catch (const CollectiveError& e) {
      step_failed(dt, e);
      throw;
    }
    after_step(dt);
  }
  if (!m_finished)
    finish();
}

void Simulation::step_failed(double dt, const CollectiveError& e) {
  m_dt = dt;
  if (m_step_error)
    m_step_error(*this, e);
}

void Simulation::after_step(double dt) {
  ++m_step;
  m_dt = dt;
  m_last = time_reached() || steps_done();
  if (m_last) {
    m_stopped_by = time_reached() ? "end time" : "steps";
  } else if (m_done && m_done()) {
    m_last = true;
    m_stopped_by = m_done_reason;
  }
  const bool poll = m_watch_signals || m_clock.walltime > 0;
  const int code = poll ? poll_signal() : 0;
  m_signal = code == 3 || code == 2 ? SIGTERM : code == 1 ? SIGUSR1 : 0;
  if (code >= 2 && m_last) {
    // The stop came with the last step: the run is complete, so it ends as a finished run (a
    // restart file and exit 75 here would leave a part with nothing to continue).
    m_signal = 0;
  } else if (code >= 2) {
    m_last = true;
    m_paused = true;
    m_stopped_by = code == 3 ? "signal" : "walltime";
  }
  // The step's scheduled callbacks, then those on the signal: a signal callback may save the
  // state and end the process (a pause), after which the step must be complete as in an
  // uninterrupted run (its snapshot, its diagnostics row).
  std::vector<Entry*> on_signal;
  for (Entry& e : m_callbacks)
    if (fires(e)) {
      if (e.when.on_signal && m_signal != 0)
        on_signal.push_back(&e);
      else
        e.callback(*this);
    }
  for (Entry* e : on_signal)
    e->callback(*this);
  if (m_last)
    finish();
}

void Simulation::finish() {
  m_finished = true;
  for (auto& f : m_finish)
    f.second(*this);
}

} // namespace undertow
