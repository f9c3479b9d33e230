#include "undertow/core/log.hpp"

#include "undertow/core/error.hpp"

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

namespace undertow {

namespace {
/// The file the last attach_file opened: the command's log, kept open for write_to_command_log.
std::shared_ptr<std::ofstream>& command_log() {
  static std::shared_ptr<std::ofstream> file;
  return file;
}
} // namespace

Log::Log(const Communicator& comm) : m_root(comm.is_root()) {}

void write_to_command_log(const std::string& line) {
  if (const auto& file = command_log())
    *file << line << '\n' << std::flush;
}

void Log::attach_file(const std::string& path) {
  if (!m_root)
    return;
  auto file = std::make_shared<std::ofstream>(path, std::ios::trunc);
  if (!*file)
    throw Error("cannot open the run log '" + path +
                "' for writing; check that the output "
                "directory is writable");
  m_file = file;
  command_log() = file;
}

void Log::info(const std::string& line) const {
  if (!m_root)
    return;
  if (m_echo)
    std::cout << line << '\n' << std::flush;
  if (m_file)
    *m_file << line << '\n' << std::flush;
}

Timers::Scope::Scope(Timers& timers, const std::string& phase)
    : m_timers(timers), m_phase(phase), m_start(std::chrono::steady_clock::now()) {
  Kokkos::Profiling::pushRegion(phase);
}

Timers::Scope::~Scope() {
  Kokkos::fence();
  Kokkos::Profiling::popRegion();
  m_timers.add(m_phase, seconds_since(m_start));
}

double Timers::seconds(const std::string& phase) const {
  const auto it = m_seconds.find(phase);
  return it == m_seconds.end() ? 0.0 : it->second;
}

std::string Timers::report(const Communicator& comm) const {
  // Rank 0's phase list decides the rows, so every rank takes part in the same reductions.
  std::string names;
  for (const auto& kv : m_seconds)
    names += kv.first + "\n";
  names = comm.broadcast(names);
  std::ostringstream out;
  char line[160];
  std::snprintf(line, sizeof line, "  %-24s %12s %12s %12s", "phase", "min [s]", "mean [s]",
                "max [s]");
  out << line << "\n";
  std::istringstream in(names);
  std::string phase;
  while (std::getline(in, phase)) {
    const double t = seconds(phase);
    const double lo = comm.min(t), hi = comm.max(t), mean = comm.sum(t) / comm.size();
    std::snprintf(line, sizeof line, "  %-24s %12.4f %12.4f %12.4f", phase.c_str(), lo, mean, hi);
    out << line << "\n";
  }
  return out.str();
}

Progress::Progress(const Log& log, double t_end, long every, double t_start, long step_start)
    : m_log(log), m_t_end(t_end), m_every(every), m_t_start(t_start), m_step_start(step_start),
      m_start(std::chrono::steady_clock::now()) {}

void Progress::update(long step, double time, double dt, const std::string& extra, bool force) {
  if (m_every <= 0 || !m_log.is_root() || (step % m_every != 0 && !force))
    return;
  const double elapsed = seconds_since(m_start);
  const double eta = estimate_eta(elapsed, m_t_start, time, m_t_end);
  char line[320];
  std::snprintf(line, sizeof line,
                "step %7ld  t = %.5e (%5.1f%%)  dt = %.3e  %s  %.1f steps/s  ETA %s", step, time,
                100.0 * time / m_t_end, dt, extra.c_str(), step_rate(m_step_start, step, elapsed),
                format_duration(eta).c_str());
  m_log.info(line);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double step_rate(long step_start, long step, double elapsed) {
  return step > step_start ? (step - step_start) / std::max(elapsed, 1e-12) : 0.0;
}

double estimate_eta(double elapsed, double t_start, double time, double t_end) {
  const double done = time - t_start, left = t_end - time;
  return done > 0 ? elapsed * std::max(left, 0.0) / done : 0.0;
}

std::string format(const char* fmt, double a, double b, double c) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0))
    return "--:--:--"; // not yet known
  if (seconds > 1e8)
    return "> 3 years";
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

} // namespace undertow
