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
  /// Also writes every later line to `path` (rank 0). Throws Error if the file cannot be opened.
  void attach_file(const std::string& path);
  void info(const std::string& line) const;
  bool is_root() const { return m_root; }

 private:
  bool m_root;
  std::shared_ptr<std::ofstream> m_file;
};

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

/// The progress line: step, time, dt, extra figures (CFL, ...), rate and ETA. Rank 0 prints.
class Progress {
 public:
  /// `every`: print every that many steps (and always at the last step); 0 disables.
  Progress(const Log& log, long total_steps, long every);
  void update(long step, double time, double dt, const std::string& extra);

 private:
  const Log& m_log;
  long m_total;
  long m_every;
  std::chrono::steady_clock::time_point m_start;
};

/// "1:02:03" from seconds.
std::string format_duration(double seconds);

} // namespace undertow
