#pragma once
/// \file
/// Run log (rank 0 prints; optionally also to a log file), per-phase timers and the progress line.

#include "undertow/core/communicator.hpp"

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <string>

namespace undertow {

/// Prints on rank 0 only, to stdout and, once attached, to a run log file. Not collective.
class Log {
 public:
  explicit Log(const Communicator& comm);
  /// Also writes every later line to `path` (rank 0), replacing an older log of that name. Throws
  /// Error if the file cannot be opened.
  void attach_file(const std::string& path);
  void info(const std::string& line) const;
  bool is_root() const { return m_root; }
  /// Whether lines go to stdout (default true); the attached file gets them either way. A
  /// quiet Log is for library use, e.g. the Python package's calls in a training loop.
  void set_echo(bool echo) { m_echo = echo; }

 private:
  bool m_root;
  bool m_echo = true;
  std::shared_ptr<std::ofstream> m_file;
};

/// Appends `line` to the log file that a Log last attached (the command's run.log), if any,
/// also after that Log is gone: for the error that ends a command. Not collective.
void write_to_command_log(const std::string& line);

/// Accumulated wall time per named phase. Each scope is also a Kokkos profiling region, so tools
/// such as the Kokkos simple kernel timer see the same phases.
class Timers {
 public:
  /// Times its lifetime; fences Kokkos at the end so that asynchronous kernels are counted.
  class Scope {
   public:
    Scope(Timers& timers, const std::string& phase);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Timers& m_timers;
    std::string m_phase;
    std::chrono::steady_clock::time_point m_start;
  };

  Scope scope(const std::string& phase) { return Scope(*this, phase); }
  void add(const std::string& phase, double seconds) { m_seconds[phase] += seconds; }
  double seconds(const std::string& phase) const;
  const std::map<std::string, double>& all() const { return m_seconds; }
  /// Table of min / mean / max seconds over ranks per phase. Collective.
  std::string report(const Communicator& comm) const;

 private:
  std::map<std::string, double> m_seconds;
};

/// The progress line: step, time (and its fraction of t_end), dt, extra figures (CFL, solver
/// iterations, objective, ...), step rate and ETA. The ETA is extrapolated from simulated time, so
/// it also holds with an adaptive dt; the step rate counts the steps this process has taken, so a
/// continued run (from step `step_start` at time `t_start`) reports its own rate. Rank 0 prints.
class Progress {
 public:
  /// The run goes from `t_start` [s] at step `step_start` to `t_end` [s]; print every `every`
  /// steps (and whenever `update` is forced); 0 disables.
  Progress(const Log& log, double t_end, long every, double t_start = 0.0, long step_start = 0);
  /// Prints if `step` is a multiple of `every`, or if `force`. Not collective.
  void update(long step, double time, double dt, const std::string& extra, bool force = false);

 private:
  const Log& m_log;
  double m_t_end;
  long m_every;
  double m_t_start;
  long m_step_start;
  std::chrono::steady_clock::time_point m_start;
};

/// Steps per second of wall time for a run that went from step `step_start` to `step` in
/// `elapsed` seconds; 0 before any step.
double step_rate(long step_start, long step, double elapsed);

/// Seconds left for a run from t_start to t_end that has reached `time` after `elapsed` seconds,
/// extrapolating its rate in simulated time; 0 before any progress.
double estimate_eta(double elapsed, double t_start, double time, double t_end);

/// Seconds of wall time since `start`. Not collective.
double seconds_since(std::chrono::steady_clock::time_point start);

/// "h:mm:ss"; "--:--:--" for a negative or unknown duration, "> 3 years" beyond 1e8 s.
std::string format_duration(double seconds);

/// printf-style formatting of up to three numbers into a string, e.g.
/// format("t = %.3e, dt = %.2e", t, dt). The conversions must all be for doubles. Not collective.
std::string format(const char* fmt, double a, double b = 0, double c = 0);

} // namespace undertow
