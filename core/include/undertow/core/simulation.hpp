#pragma once
/// \file
/// The one time loop of undertow (docs/architecture.md, "Simulation"): a Simulation drives any
/// TimeStepper under a clock policy (fixed or CFL-adaptive dt, to a time or a step count, with a
/// walltime budget) and calls callbacks on a schedule (every N steps, every T of simulated time,
/// on the last step, on a signal, after the loop). Progress lines, diagnostics rows, field
/// output, restart files, the divergence guard and the steady-state stop are such callbacks, so
/// an output kind is written once and every job that runs a Simulation gets it.

#include "undertow/core/communicator.hpp"
#include "undertow/core/error.hpp"

#include <chrono>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace undertow {

/// What a Simulation drives: a clock and a step. Every member is collective unless it says
/// otherwise.
class TimeStepper {
 public:
  virtual ~TimeStepper() = default;
  /// The simulated time of the current state [s]. Not collective.
  virtual double time() const = 0;
  /// Advances the state by dt [s].
  virtual void step(double dt) = 0;
  /// The largest dt [s] for the Courant number `cfl` (CFL-adaptive clocks only). The default
  /// throws Error: the model has no CFL condition.
  virtual double stable_dt(double cfl) const;
};

/// A TimeStepper over a model that has time(), step(dt) and stable_dt(cfl) of its own.
template <class Model>
class SteppedModel : public TimeStepper {
 public:
  explicit SteppedModel(Model& model) : m_model(model) {}
  double time() const override { return m_model.time(); }
  void step(double dt) override { m_model.step(dt); }
  double stable_dt(double cfl) const override { return m_model.stable_dt(cfl); }

 private:
  Model& m_model;
};

/// The clock policy: how big each step is and when the run ends.
struct Clock {
  /// End time [s]: the run ends at the step that reaches it (relative tolerance 1e-12), and the
  /// last dt is shortened to land on it. Infinite: no end time.
  double t_end = std::numeric_limits<double>::infinity();
  /// End after this many steps of this run (counted from its first step); < 0: no limit.
  long max_steps = -1;
  /// dt [s] of every step; 0: CFL-adaptive, TimeStepper::stable_dt(cfl) at each step.
  double fixed_dt = 0;
  double cfl = 0; ///< Courant number of the adaptive dt
  /// The size [s] of every step, given in advance (a gradient's frozen steps): the run takes
  /// exactly these steps; fixed_dt and cfl are then unused.
  std::vector<double> steps;
  /// Wall-clock budget [s] of the run (0: none). When it is spent, the Simulation ends the run
  /// after the current step as if a stop signal had arrived: the signal callbacks run (they
  /// write restart files) and stopped_by() says "walltime".
  double walltime = 0;
  /// Throws ConfigError for a clock that would never end or has no step size. Not collective.
  void validate() const;
};

/// When a callback runs: any of its conditions, checked after each step. Build with the static
/// functions and combine with |, e.g. `Cadence::steps(10) | Cadence::last_step()`. Within a
/// step, the callbacks run in the order they were added, except that the callbacks fired by a
/// signal run after all the others: so a pause (SIGTERM or the walltime, whose callback writes a
/// restart file and ends the process) comes after the step's snapshot, diagnostics row etc., and
/// the continued run's series are the uninterrupted run's.
struct Cadence {
  std::vector<long> step_periods;   ///< the step number is a multiple of one of these (0: none)
  std::vector<long> at_steps;       ///< the step number is one of these
  std::vector<double> time_periods; ///< the first step at or past each multiple of these [s]
  /// The step that completes the run (its end time or step count, a stop request); not a
  /// pause (a stop signal or a spent walltime, after which the run is continued).
  bool on_last_step = false;
  bool on_signal = false; ///< a stop or checkpoint signal (or the walltime) arrived

  static Cadence steps(long period);
  static Cadence at_step(long step);
  static Cadence interval(double seconds);
  static Cadence last_step();
  static Cadence signal();
  Cadence operator|(const Cadence& other) const;
  bool empty() const;
};

/// Runs a TimeStepper. Construct, add callbacks, run(); the accessors tell callbacks where the
/// run stands. A driver that takes the steps itself (the reverse sweep of a gradient, whose
/// checkpointing schedule orders the forward steps) calls after_step() after each step taken for
/// the first time instead of run(). Collective: every rank must build the same Simulation and
/// drive it together.
class Simulation {
 public:
  using Callback = std::function<void(Simulation&)>;
  /// Handler of an error thrown by the model's step (for example a diverging pressure solve):
  /// it may throw a clearer CollectiveError naming the step; if it returns, the error is
  /// rethrown as it was.
  using StepErrorHandler = std::function<void(Simulation&, const CollectiveError&)>;

  /// Drives `model` from step `first_step` (e.g. the step of a restart file) under `clock`.
  /// Throws ConfigError for an invalid clock. Not collective.
  Simulation(const Communicator& comm, TimeStepper& model, Clock clock, long first_step = 0);

  /// Calls `callback` after the steps that `when` selects, in the order callbacks were added.
  /// Throws Error for an empty schedule. Not collective.
  void add_callback(const std::string& name, Cadence when, Callback callback);
  /// Calls `callback` once after the loop, whether it ended by time, steps, a stop request or a
  /// signal (not after an error). Not collective.
  void add_finish(const std::string& name, Callback callback);
  void on_step_error(StepErrorHandler handler) { m_step_error = std::move(handler); }
  /// Watches SIGUSR1 (checkpoint and go on) and SIGTERM (checkpoint and stop) on every rank;
  /// the on_signal callbacks see them. Installs the process's handlers. Not collective.
  void watch_signals();

  /// Runs the loop to its end: steps, callbacks after each, the finish callbacks. Collective.
  void run();
  /// For a driver that steps the model itself: the model has just taken a step of `dt` [s];
  /// counts it and runs the callbacks due, then the finish callbacks if it was the last step.
  /// Collective.
  void after_step(double dt);
  /// For a driver that steps the model itself: the step of `dt` [s] after step() threw `e`.
  /// Calls the on_step_error handler, which may throw a clearer error; otherwise returns, and
  /// the driver rethrows `e`. Collective as the handler is.
  void step_failed(double dt, const CollectiveError& e);

  /// Ends the run after the current step (e.g. at a steady state); the callbacks after this one
  /// in the current step see it as the last step. `reason` is what stopped_by() returns. Must be
  /// called on every rank alike. Not collective.
  void request_stop(const std::string& reason);

  /// Ends the run after the first step at which `done()` holds (e.g. a converged iteration),
  /// with stopped_by() = `reason`. Unlike request_stop from a callback, it is known before the
  /// signals are polled: a stop that arrives with that step finds the run finished. `done()`
  /// must agree on every rank. Not collective.
  void stop_when(const std::string& reason, std::function<bool()> done) {
    m_done_reason = reason;
    m_done = std::move(done);
  }

  const Communicator& comm() const { return m_comm; }
  long step() const { return m_step; }             ///< steps taken, the first step's included
  long first_step() const { return m_first_step; } ///< the step the run started from
  double time() const { return m_model.time(); }   ///< [s]
  /// The dt [s] of the step being taken or last taken (0 before the first step).
  double dt() const { return m_dt; }
  /// The dt [s] the clock would take from the current state, before shortening to t_end.
  double next_dt() const;
  /// Whether the current step ends the run (time or steps reached, or a stop requested), a
  /// pause included.
  bool last_step() const { return m_last; }
  /// Whether the run ends here by a pause: a stop signal or a spent walltime, after which it is
  /// continued from a restart file. Cadence::last_step() does not fire on a pause.
  bool paused() const { return m_paused; }
  /// The signal this step's callbacks answer: SIGTERM, SIGUSR1, or 0. The walltime budget
  /// reads as SIGTERM. A stop (SIGTERM or the walltime) that arrives with the last step reads
  /// as 0: the run is complete and ends as finished.
  int signal() const { return m_signal; }
  /// Why the run ended: "end time", "steps", "walltime", "signal", or a request_stop reason
  /// (empty while running).
  const std::string& stopped_by() const { return m_stopped_by; }
  const Clock& clock() const { return m_clock; }

 private:
  struct Entry {
    std::string name;
    Cadence when;
    Callback callback;
    std::vector<double> next_times; ///< per time period: the next multiple to reach [s]
  };
  bool fires(Entry& e) const;
  bool time_reached() const;
  bool steps_done() const;
  void finish();
  /// Any rank's signal or a spent walltime, agreed on by all ranks. Collective.
  int poll_signal() const;

  const Communicator& m_comm;
  TimeStepper& m_model;
  Clock m_clock;
  long m_first_step;
  long m_step;
  double m_dt = 0;
  bool m_last = false;
  bool m_paused = false;
  bool m_watch_signals = false;
  bool m_finished = false;
  int m_signal = 0;
  std::string m_stopped_by;
  std::vector<Entry> m_callbacks;
  std::vector<std::pair<std::string, Callback>> m_finish;
  StepErrorHandler m_step_error;
  std::function<bool()> m_done; ///< stop_when's condition
  std::string m_done_reason;
  std::chrono::steady_clock::time_point m_started;
};

} // namespace undertow
