#include "checkpoint_plan.hpp"

#include "memory_check.hpp"

#include "undertow/adjoint/schedules.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/hash.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace undertow {
namespace jobs {

using adjoint::Checkpointing;
using adjoint::state_bytes;
using adjoint::tape_bytes;

namespace {

constexpr double kMiB = 1048576.0;
const char* kFileName = "gradient_checkpoints.h5";

const char* schedule_name(Checkpointing::Schedule s) {
  switch (s) {
  case Checkpointing::Schedule::All:
    return "all";
  case Checkpointing::Schedule::Revolve:
    return "revolve";
  case Checkpointing::Schedule::Online:
    return "online";
  default:
    return "multistage";
  }
}

/// Live tapes: one recorded and one spare (revolve family); every step's (store-all).
double tapes_in_memory(const Checkpointing& c, long steps) {
  return c.schedule == Checkpointing::Schedule::All ? double(steps) : 2.0;
}

/// Memory checkpoints plus, with a disk store, its load buffer (one state).
double states_in_memory(const Checkpointing& c) {
  return c.schedule == Checkpointing::Schedule::All ? 0.0
                                                    : c.ram_slots + (c.disk_slots > 0 ? 1.0 : 0.0);
}

/// The settings that decide the gradient's result and schedule: all but where files go and how
/// often things are printed or recorded.
std::uint64_t signature_of(const Config& config, long steps) {
  std::string text = "steps=" + std::to_string(steps) + "\n";
  for (const auto& kv : config.entries())
    if (kv.first.rfind("output.", 0) != 0 && kv.first != "checkpoint.disk_dir" &&
        kv.first != "checkpoint.resume_every")
      text += kv.first + "=" + kv.second + "\n";
  return fnv1a(text);
}

} // namespace

void declare_checkpoint_keys(ConfigSchema& s) {
  s.add("checkpoint.schedule", ValueType::Choice, "all",
        "undertow gradient: all keeps every step's tape in memory (fastest, memory grows with "
        "the steps); revolve keeps checkpoint.ram_slots checkpoints in memory and recomputes "
        "(binomial checkpointing: the fewest recomputations for that memory); online is revolve "
        "for runs whose length is not known in advance (at most one forward run more); "
        "multistage is revolve with checkpoint.ram_slots in memory and checkpoint.disk_slots in "
        "an HDF5 file, the most reused in memory, and lets a killed run resume (--resume)")
      .one_of({"all", "revolve", "online", "multistage"});
  s.add("checkpoint.ram_slots", ValueType::Integer, "10",
        "checkpoints of the forward state held in memory, x_0's included (revolve, online, "
        "multistage); give this or checkpoint.ram")
      .at_least(0);
  s.add("checkpoint.ram", ValueType::String, "",
        "memory budget per rank for checkpoints and tapes, e.g. 2GiB or 512MiB; "
        "checkpoint.ram_slots is derived from it (the plan printed before the run shows the "
        "result)");
  s.add("checkpoint.disk_slots", ValueType::Integer, "0",
        "checkpoints in the HDF5 file checkpoint.disk_dir/gradient_checkpoints.h5 (online, "
        "multistage); the file also holds the records that --resume continues from")
      .at_least(0);
  s.add("checkpoint.disk_dir", ValueType::String, "",
        "directory of the checkpoint file (empty: the output directory); a fast local or "
        "parallel scratch file system. The file is removed when the gradient succeeds and kept "
        "when it fails or is killed");
  s.add("checkpoint.resume_every", ValueType::Real, "300",
        "seconds of wall-clock time between the resume records of the reverse sweep (0: after "
        "every adjoint step); the forward sweep writes one after each checkpoint on disk")
      .at_least(0);
}

double parse_bytes(const std::string& key, const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  std::string unit(end);
  unit.erase(0, unit.find_first_not_of(' '));
  const std::pair<const char*, double> units[] = {{"", 1},          {"B", 1},
                                                  {"KiB", 1024.0},  {"MiB", kMiB},
                                                  {"GiB", 1 << 30}, {"TiB", kMiB * kMiB},
                                                  {"KB", 1e3},      {"MB", 1e6},
                                                  {"GB", 1e9},      {"TB", 1e12}};
  if (end != begin && std::isfinite(number) && number > 0)
    for (const auto& u : units)
      if (unit == u.first)
        return number * u.second;
  throw ConfigError(key + " = '" + text +
                    "' is not a memory size: give a positive number with a unit, e.g. 2GiB, "
                    "512MiB or 800MB");
}

Checkpointing checkpointing_from(const Config& cfg, navier_stokes::NavierStokes& ns, long steps,
                                 const std::string& output_dir, const std::string& resume_dir) {
  Checkpointing c;
  const std::string schedule = cfg.get_string("checkpoint.schedule");
  c.schedule = schedule == "revolve"      ? Checkpointing::Schedule::Revolve
               : schedule == "online"     ? Checkpointing::Schedule::Online
               : schedule == "multistage" ? Checkpointing::Schedule::Multistage
                                          : Checkpointing::Schedule::All;
  c.disk_slots = static_cast<int>(cfg.get_int("checkpoint.disk_slots"));
  c.ram_slots = static_cast<int>(cfg.get_int("checkpoint.ram_slots"));
  if (cfg.is_given("checkpoint.ram")) {
    if (cfg.is_given("checkpoint.ram_slots"))
      throw ConfigError("checkpoint.ram and checkpoint.ram_slots are both given: give the "
                        "memory budget or the number of slots, not both");
    const double budget = parse_bytes("checkpoint.ram", cfg.get_string("checkpoint.ram"));
    const Communicator& comm = ns.domain().comm();
    const double state = comm.max(state_bytes(ns)), tape = comm.max(tape_bytes(ns));
    const double buffer = c.disk_slots > 0 ? state : 0.0;
    const double slots = std::floor((budget - 2 * tape - buffer) / state);
    if (slots < (c.schedule == Checkpointing::Schedule::Multistage ? 0 : 1))
      throw ConfigError("checkpoint.ram = " + cfg.get_string("checkpoint.ram") +
                        " holds no checkpoint of this case: one takes " + human_bytes(state) +
                        " per rank, and two tapes " + human_bytes(2 * tape) +
                        "; raise it to at least " + human_bytes(state + 2 * tape + buffer, true) +
                        " or put checkpoints on disk (schedule = multistage, disk_slots)");
    c.ram_slots = static_cast<int>(std::min(slots, 1e6));
  }
  if (c.schedule == Checkpointing::Schedule::All)
    c.ram_slots = 0;
  const std::string dir = !resume_dir.empty() ? resume_dir
                          : cfg.get_string("checkpoint.disk_dir").empty()
                              ? output_dir
                              : cfg.get_string("checkpoint.disk_dir");
  // Every schedule but `all` can resume: from checkpoints on disk after a kill, and from the
  // record a signal writes (the file is made then if no checkpoint is on disk).
  if (c.schedule != Checkpointing::Schedule::All || !resume_dir.empty())
    c.file = dir + "/" + kFileName;
  c.resume = !resume_dir.empty();
  if (c.resume && c.schedule != Checkpointing::Schedule::All) {
    // Checked now, before the output folder is touched (store-all's refusal is validate()'s).
    const Communicator& comm = ns.domain().comm();
    const bool found = comm.max(static_cast<long long>(
                           comm.is_root() && std::filesystem::is_regular_file(c.file))) > 0;
    if (!found)
      throw ConfigError("--resume " + resume_dir + ": there is no " + kFileName +
                        " in it, so it is not the folder of a stopped gradient (a finished "
                        "gradient removes that file): give the --output folder of the stopped "
                        "run, or run the gradient again without --resume");
  }
  c.resume_every = cfg.get_real("checkpoint.resume_every");
  c.signature = signature_of(cfg, steps);
  return c;
}

void print_plan(const Log& log, const Checkpointing& c, navier_stokes::NavierStokes& ns,
                long steps) {
  const double state = state_bytes(ns), tape = tape_bytes(ns);
  std::string slots;
  if (c.schedule != Checkpointing::Schedule::All)
    slots = format(", %.0f slots (%.0f in memory, ", double(c.slots()), double(c.ram_slots)) +
            format("%.0f on disk", double(c.disk_slots)) +
            (c.disk_slots > 0 ? " in " + c.file : std::string()) + ")";
  log.info(std::string("checkpointing plan: ") + schedule_name(c.schedule) +
           format(", %.0f steps", double(steps)) + slots);
  const long optimum =
      c.slots() > 0 ? adjoint::RevolveSchedule::minimum_advances(steps, c.slots()) : 0;
  if (c.schedule == Checkpointing::Schedule::Online)
    log.info(format("  predicted recomputations: at most %.0f (t(l, s) + l; the offline "
                    "optimum is %.0f)",
                    double(optimum + steps), double(optimum)));
  else
    log.info(format("  predicted recomputations: %.0f (%.2f forward runs in all)", double(optimum),
                    1.0 + double(optimum) / double(std::max(1L, steps))));
  const double memory = states_in_memory(c) * state + tapes_in_memory(c, steps) * tape;
  log.info(format("  predicted peak memory per rank (rank 0): %.1f MiB = checkpoints and "
                  "buffers %.1f MiB + tapes ",
                  memory / kMiB, states_in_memory(c) * state / kMiB) +
           format("%.1f MiB; store-all would take %.1f MiB",
                  tapes_in_memory(c, steps) * tape / kMiB, double(steps) * tape / kMiB));
  if (c.resume)
    log.info("  resuming the run recorded in " + c.file);
  else if (c.resumable())
    log.info("  resumable: SIGUSR1 writes a resume record to " + c.file +
             ", SIGTERM writes one and stops" +
             (c.disk_slots > 0 ? "; after a kill, the run resumes from its records on disk"
                               : "; a kill (SIGKILL) is not resumable without "
                                 "checkpoint.disk_slots"));
  else
    log.info("  not resumable: checkpoint.schedule = all keeps its tapes only in memory");
}

void print_outcome(const Log& log, const Communicator& comm, const Checkpointing& c,
                   const adjoint::Gradient& g, long steps) {
  const long optimum =
      c.slots() > 0 ? adjoint::RevolveSchedule::minimum_advances(steps, c.slots()) : 0;
  log.info(format("checkpointing done: %.0f steps recomputed (predicted %.0f)",
                  double(g.recomputed_steps), double(optimum)) +
           format("; peak memory per rank: tapes %.1f MiB, checkpoints %.1f MiB",
                  comm.max(g.tape_bytes) / kMiB, comm.max(g.checkpoint_bytes) / kMiB));
  if (g.resumed_at >= 0)
    log.info(format("  resumed after action %.0f of the schedule; %.0f steps recomputed to "
                    "rebuild lost checkpoints",
                    double(g.resumed_at), double(g.resume_recomputed_steps)));
  if (c.disk_slots > 0) {
    const double written = comm.sum(g.bytes_written), read = comm.sum(g.bytes_read);
    const double seconds = comm.max(g.io_seconds);
    log.info(format("  disk: %.1f MiB written, %.1f MiB read in %.2f s", written / kMiB,
                    read / kMiB, seconds) +
             format(" (%.0f MiB/s)", seconds > 0 ? (written + read) / kMiB / seconds : 0.0));
  }
  log.info(format("  time: forward %.2f s, recompute %.2f s, ", comm.max(g.forward_seconds),
                  comm.max(g.recompute_seconds)) +
           format("adjoint %.2f s, checkpoint I/O %.2f s", comm.max(g.reverse_seconds),
                  comm.max(g.io_seconds)));
}

} // namespace jobs
} // namespace undertow
