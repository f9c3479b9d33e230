#include "restart.hpp"

#include "command_line.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/hash.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/signals.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/files.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

namespace undertow {

namespace {

const char* kFormat = "undertow restart";
/// 2: the position attributes (step, time, dt, solver steps, psi scale) carry a checksum.
const double kFormatVersion = 2;

bool defines_the_case(const std::string& key) {
  // Controls drive the flow from the restart on; they are not what its state is: a restart
  // file of a developed flow starts runs under any control (docs/control.md).
  for (const char* control : {"_signal", ".rotation_rate", ".jet_"})
    if (key.find(control) != std::string::npos)
      return false;
  for (const char* prefix : {"case.model", "domain.", "fluid.", "boundary.", "obstacle", "advdiff.",
                             "material.", "support", "load", "dynamics."})
    if (key.rfind(prefix, 0) == 0)
      return true;
  return false;
}

/// "key = value" lines of `signature` as a map.
std::map<std::string, std::string> parse(const std::string& signature) {
  std::map<std::string, std::string> out;
  std::istringstream in(signature);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find(" = ");
    if (eq != std::string::npos)
      out[line.substr(0, eq)] = line.substr(eq + 3);
  }
  return out;
}

std::vector<std::filesystem::path> restart_files(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("restart_", 0) == 0 && entry.path().extension() == ".h5")
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end()); // zero-padded steps: oldest first
  return files;
}

/// The position of a restart file as text, exactly (hex floats): what its checksum covers.
/// `numbers` starts with the time; for Navier-Stokes this is "step .. time .. dt .. solver_steps
/// .. psi_scale ..", as format version 2 has it.
std::string position_text(double step, double dt,
                          const std::vector<std::pair<std::string, double>>& numbers) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "step %a time %a dt %a", step, numbers.at(0).second, dt);
  std::string text = buf;
  for (std::size_t i = 1; i < numbers.size(); ++i) {
    std::snprintf(buf, sizeof buf, " %a", numbers[i].second);
    text += " " + numbers[i].first + buf;
  }
  return text;
}

} // namespace

bool same_value(const std::string& a, const std::string& b) {
  const auto x = value_words(a), y = value_words(b);
  if (x.size() != y.size())
    return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] == y[i])
      continue;
    char* end_x = nullptr;
    char* end_y = nullptr;
    const double u = std::strtod(x[i].c_str(), &end_x), v = std::strtod(y[i].c_str(), &end_y);
    if (*end_x != '\0' || *end_y != '\0' || end_x == x[i].c_str() || end_y == y[i].c_str() ||
        u != v)
      return false;
  }
  return true;
}

std::string case_signature(const Config& config) {
  std::string out;
  for (const auto& kv : config.entries())
    if (defines_the_case(kv.first))
      out += kv.first + " = " + kv.second + "\n";
  return out;
}

std::string state_checksum(const Communicator& comm, const RestartState& state) {
  std::string sums;
  for (const auto& named : state.fields)
    sums += named.first + ":" + io::checksum_text(io::field_checksum(comm, *named.second)) + " ";
  return sums;
}

void check_restart_step(const std::string& path, long step, double solver_steps, double time,
                        double dt, long n_steps) {
  if (solver_steps != double(step))
    throw ConfigError(
        "restart file " + path + ": its solver step count " +
        format("%.0f is not its step %.0f; use another restart file", solver_steps, double(step)));
  if (std::abs(time - double(step) * dt) > 1e-9 * std::max(time, dt))
    throw ConfigError(
        "--restart " + path +
        format(" is at step %.0f, t = %.9e, but this run's step is ", double(step), time) +
        format("dt = %.9e (time.dt rounded to land on time.t_end), which puts ", dt) +
        format("step %.0f at t = %.9e: continue with the time.dt and time.t_end ", double(step),
               double(step) * dt) +
        "that make the step it was written with");
  if (step >= n_steps)
    throw ConfigError("--restart " + path + format(" is at step %.0f", double(step)) +
                      format(", not before the last step %.0f: there is nothing to run. Raise "
                             "time.t_end to continue the run (at the same dt)",
                             double(n_steps)));
}

void declare_restart_keys(ConfigSchema& s) {
  s.add("restart.every", ValueType::Integer, "0",
        "write a restart file to <output>/restart/ every this many steps (design iterations in "
        "a topology optimisation); 0: off")
      .at_least(0);
  s.add("restart.at_step", ValueType::Integer, "0",
        "also write a restart file after this step (design iteration); 0: none")
      .at_least(0);
  s.add("restart.keep", ValueType::Integer, "2", "how many of the newest restart files to keep")
      .at_least(1);
}

Cadence restart_cadence(const Config& config) {
  return Cadence::steps(config.get_int("restart.every")) |
         Cadence::at_step(config.get_int("restart.at_step"));
}

void write_restart_file(const Simulation& sim, const RestartState& state, const Domain& domain,
                        const Config& config, const std::string& output_dir,
                        const std::string& case_file, const Log& log) {
  const std::string written =
      write_restart(output_dir + "/restart", state, domain, config, sim.step(),
                    static_cast<int>(config.get_int("restart.keep")), sim.dt());
  log.info(format("restart file for step %.0f: ", double(sim.step())) + written);
  if (sim.signal() == SIGTERM)
    throw Stopped("stopped by " + stop_reason() + format(" at step %.0f ", double(sim.step())) +
                  format("(t = %.6e); continue with: ", state.numbers.at(0).second) +
                  jobs::continue_command("run", case_file, config,
                                         {{"--restart", written}, {"--output", output_dir}}));
}

std::string write_restart(const std::string& dir, const RestartState& state, const Domain& domain,
                          const Config& config, long step, int keep, double dt) {
  if (state.numbers.empty() || state.numbers.front().first != "time")
    throw Error("a restart state starts its numbers with the time");
  run_on_root(domain.comm(), [&] { io::make_directories(dir); });
  char name[64];
  std::snprintf(name, sizeof name, "/restart_%09ld.h5", step);
  const std::string path = dir + name;
  io::FieldFile file(domain, path, io::FieldFile::Mode::Create);
  for (const auto& named : state.fields)
    file.write(named.first, *named.second);
  for (const auto& named : state.series)
    file.write_series(named.first, *named.second);
  file.set_attribute("format", kFormat);
  file.set_attribute("format_version", kFormatVersion);
  file.set_attribute("undertow_version", UNDERTOW_VERSION_STRING);
  file.set_attribute("model", state.model);
  file.set_attribute("case_signature", case_signature(config));
  file.set_attribute("config_hash", config.hash());
  file.set_attribute("config", config.to_ini());
  file.set_attribute("units", state.units);
  file.set_attribute("step", double(step));
  file.set_attribute("dt", dt);
  for (const auto& kv : state.numbers)
    file.set_attribute(kv.first, kv.second);
  file.set_attribute("position_checksum",
                     io::checksum_text(fnv1a(position_text(double(step), dt, state.numbers))));
  file.commit();
  run_on_root(domain.comm(), [&] {
    const auto files = restart_files(dir);
    for (std::size_t i = 0; i + static_cast<std::size_t>(std::max(keep, 1)) < files.size(); ++i)
      std::filesystem::remove(files[i]);
  });
  return path;
}

RestartState restart_state(navier_stokes::NavierStokes& ns) {
  RestartState s;
  s.model = "navier_stokes";
  s.units = "SI: lengths m, time s, velocity m/s, pressure p/rho m^2/s^2; psi = psi_scale * p, "
            "psi_scale = stage weight * dt [s]";
  s.fields = ns.state_fields();
  s.numbers = {
      {"time", ns.time()}, {"solver_steps", double(ns.steps())}, {"psi_scale", ns.psi_scale()}};
  return s;
}

long read_restart(const std::string& path, navier_stokes::NavierStokes& ns, const Domain& domain,
                  const Config& config) {
  RestartState state = restart_state(ns);
  const long step = read_restart(path, state, domain, config);
  ns.restore_clock(state.numbers[0].second, static_cast<long>(state.numbers[1].second),
                   state.numbers[2].second);
  return step;
}

void require_restart_file(const Communicator& comm, const std::string& path,
                          const std::string& given_as) {
  // 0: missing, 1: a directory (or a device), 2: a regular file.
  long long kind = 0;
  if (comm.is_root())
    kind = std::filesystem::is_regular_file(path) ? 2 : std::filesystem::exists(path) ? 1 : 0;
  kind = comm.max(kind);
  if (kind == 0)
    throw ConfigError(given_as + ": no such file. Restart files are written to " +
                      "<output>/restart/ (restart.every, restart.at_step, or SIGUSR1/SIGTERM).");
  if (kind == 1)
    throw ConfigError(given_as + ": not a regular file (a directory?); give one " +
                      "restart file, e.g. <output>/restart/restart_000000100.h5");
}

void check_restart_format(const io::FieldFile& file) {
  if (!file.has_attribute("format") || file.string_attribute("format") != kFormat)
    throw CollectiveError("it is an HDF5 file but not an undertow restart file (no 'format = " +
                          std::string(kFormat) + "' attribute)");
  const double version = file.real_attribute("format_version");
  if (version != kFormatVersion)
    throw CollectiveError(format("its restart format version is %g, ", version) +
                          "this undertow (" + UNDERTOW_VERSION_STRING + ") reads version " +
                          format("%g", kFormatVersion) +
                          "; continue the run with the undertow that wrote it");
}

long read_restart(const std::string& path, RestartState& state, const Domain& domain,
                  const Config& config) {
  require_restart_file(domain.comm(), path, "--restart " + path);
  try {
    io::FieldFile file(domain, path, io::FieldFile::Mode::Read);
    check_restart_format(file);
    const auto theirs = parse(file.string_attribute("case_signature"));
    const auto ours = parse(case_signature(config));
    std::string differences;
    for (const auto& kv : ours) {
      const auto it = theirs.find(kv.first);
      // A key newer than the file, left at its default here, does not change the case.
      if (it == theirs.end() && !config.is_given(kv.first))
        continue;
      const std::string there = it == theirs.end() ? "(absent)" : it->second;
      if (!same_value(there, kv.second))
        differences += "\n  " + kv.first + " = " + there + " in the file, " + kv.second + " here";
    }
    if (!differences.empty())
      throw CollectiveError("it belongs to another case or grid:" + differences +
                            "\nRestart with the case file that wrote it (solver, time and "
                            "output keys may change, these may not)");
    // The position is covered by its own checksum, as every dataset is by its own.
    const double step = file.real_attribute("step"), dt = file.real_attribute("dt");
    std::string names = "step, time, dt"; // e.g. "..., solver steps, psi scale"
    bool valid = std::isfinite(step) && std::isfinite(dt);
    for (auto& kv : state.numbers) {
      kv.second = file.real_attribute(kv.first);
      if (kv.first != "time") {
        std::string name = kv.first;
        std::replace(name.begin(), name.end(), '_', ' ');
        names += ", " + name;
      }
      valid = valid && std::isfinite(kv.second);
      if (kv.first == "solver_steps" && !(kv.second >= 0 && kv.second == std::floor(kv.second)))
        valid = false; // a count of steps
    }
    if (!file.has_attribute("position_checksum") ||
        file.string_attribute("position_checksum") !=
            io::checksum_text(fnv1a(position_text(step, dt, state.numbers))))
      throw CollectiveError("its position (" + names +
                            ") does not match its checksum: the file was changed after it was "
                            "written; use another restart file");
    if (!(valid && step >= 0 && step == std::floor(step) && dt >= 0))
      throw CollectiveError(
          format("its position is not valid (step %g, ", step) +
          format("time %g, dt %g); use another restart file", state.numbers[0].second, dt));
    for (const auto& named : state.fields)
      file.read(named.first, *named.second);
    for (auto& named : state.series)
      *named.second = file.read_series(named.first);
    return static_cast<long>(step);
  } catch (const CollectiveError& e) {
    throw ConfigError("restart file " + path + ": " + e.what());
  }
}

} // namespace undertow
