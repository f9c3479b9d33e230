/// \file
/// reverse_sweep (sweep.hpp): the forward run that the schedule asks for, the reverse sweep, the
/// checkpoint stores and the resume records that let a killed gradient continue bitwise, for any
/// AdjointModel.

#include "undertow/adjoint/sweep.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/signals.hpp"

#include <csignal>
#include <set>
#include <utility>

namespace undertow {
namespace adjoint {

namespace {

/// Resume records, each kind in two slots written alternately, so that a run killed while
/// writing one still has the other.
constexpr int kForwardRecord = 1000; ///< 1000, 1001: the forward sweep's (numbers only)
constexpr int kReverseRecord = 1002; ///< 1002, 1003: the reverse sweep's (adjoint state)
constexpr int kSignature = 999;      ///< the run's signature and length

Snapshot signature(const Checkpointing& c, long steps) {
  Snapshot s;
  s.numbers["signature_high"] = double(c.signature >> 32);
  s.numbers["signature_low"] = double(c.signature & 0xffffffffull);
  s.numbers["steps"] = double(steps);
  return s;
}

std::unique_ptr<Schedule> make_schedule(const Checkpointing& c, long steps) {
  switch (c.schedule) {
  case Checkpointing::Schedule::All:
    return std::make_unique<StoreAllSchedule>(steps);
  case Checkpointing::Schedule::Online:
    return std::make_unique<OnlineRevolveSchedule>(c.slots());
  default:
    return std::make_unique<RevolveSchedule>(steps, c.slots());
  }
}

/// A schedule followed without a solver: the step each slot holds and the current step.
struct Replay {
  long current = 0;
  long reversed = 0; ///< steps whose adjoint has been taken
  std::map<int, long> slots;
  /// Hands out the next action of `schedule`, follows it, and tells the schedule where the run
  /// ends when the replay reaches it (as the sweep does).
  Action next(Schedule& schedule, long steps) {
    const Action a = schedule.next();
    if (a.kind == Action::Advance || a.kind == Action::Restore)
      current = a.step;
    else if (a.kind == Action::Record)
      current = a.step + 1;
    else if (a.kind == Action::Save)
      slots[a.slot] = current;
    else if (a.kind == Action::Reverse)
      reversed = steps - a.step;
    if (!schedule.ended() && current == steps)
      schedule.end_at(steps);
    return a;
  }
};

/// One run of reverse_sweep.
class Sweep {
 public:
  Sweep(AdjointModel& model, const Checkpointing& c, const StepSizes& dts, const Log& log,
        long every)
      : m_model(model), m_c(c), m_dts(dts), m_steps(static_cast<long>(dts.size())),
        m_schedule(make_schedule(c, m_steps)), m_t_end(dts.total()), m_forward(log, m_t_end, every),
        m_reverse(log, m_t_end, every), m_log(log) {
    const int slots = m_schedule->slots();
    std::vector<bool> in_memory(static_cast<std::size_t>(slots), true);
    if (c.schedule == Checkpointing::Schedule::Multistage) {
      const auto& revolve = static_cast<RevolveSchedule&>(*m_schedule);
      in_memory = place_in_memory(revolve.saves(), revolve.restores(), c.ram_slots);
    } else if (c.schedule == Checkpointing::Schedule::Online)
      for (int q = 0; q < slots; ++q)
        in_memory[static_cast<std::size_t>(q)] = q < c.ram_slots;
    if (c.disk_slots > 0 || c.resume)
      open_store(in_memory);
    m_checkpoints = std::make_unique<MultistageCheckpointStore>(
        in_memory, m_memory, m_disk ? static_cast<CheckpointStore&>(*m_disk) : m_memory);
  }

  SweepStats run() {
    if (m_c.watch_signals)
      install_stop_signals();
    if (m_c.resume)
      resume();
    for (Action a = m_schedule->next(); a.kind != Action::Done; a = m_schedule->next()) {
      execute(a);
      ++m_actions;
      if (!m_schedule->ended() && m_model.steps() == m_steps)
        m_schedule->end_at(m_steps);
      if (m_disk)
        write_record(a);
      respond_to_signals();
      if (m_c.stop_after_actions >= 0 && m_actions >= m_c.stop_after_actions)
        throw Error(format("stopped after %.0f actions of the schedule (fault injection: "
                           "Checkpointing::stop_after_actions)",
                           double(m_actions)));
    }
    finish();
    return m_g;
  }

 private:
  /// One forward step from the current state, taped or not; the objective term the first time
  /// the step is taken.
  void take_step(Snapshot* tape) {
    const long n = m_model.steps();
    const auto t0 = std::chrono::steady_clock::now();
    const double dt = m_dts[static_cast<std::size_t>(n)];
    try {
      m_g.iterations_forward += m_model.step(dt, tape);
    } catch (const CollectiveError& e) {
      if (n != m_reached)
        throw; // a recomputed step repeats one that passed: not the run's divergence
      m_model.forward_step_failed(n + 1, dt, e);
      throw CollectiveError(format("forward step %.0f (t = %.6e s, dt = %.3e s) failed: ",
                                   double(n + 1), m_model.time(), dt) +
                            e.what() + ". If the run diverged, reduce time.cfl or time.dt");
    }
    if (n != m_reached) {
      ++m_g.recomputed_steps;
      m_g.recompute_seconds += seconds_since(t0);
      return;
    }
    const bool last = n + 1 == m_steps;
    m_g.objective += m_model.objective_term(n + 1, dt, last);
    ++m_reached;
    m_model.forward_step_taken(n + 1, dt, last);
    if (!std::isfinite(m_g.objective))
      throw CollectiveError(format("the objective is not finite after forward step %.0f (t = "
                                   "%.6e s): the forward run diverged; reduce time.cfl or time.dt",
                                   double(n + 1), m_model.time()));
    m_forward.update(n + 1, m_model.time(), dt, format("forward, J = %.10e", m_g.objective), last);
    m_g.forward_seconds += seconds_since(t0);
  }

  void execute(const Action& a) {
    switch (a.kind) {
    case Action::Advance:
      while (m_model.steps() < a.step) {
        take_step(nullptr);
        respond_to_signals(); // a record of the actions before this one: valid mid-advance
      }
      break;
    case Action::Save:
      m_checkpoints->save(a.slot, m_model.state());
      m_g.checkpoint_bytes = std::max(m_g.checkpoint_bytes, m_checkpoints->bytes());
      break;
    case Action::Restore:
      m_model.restore(m_checkpoints->load(a.slot));
      break;
    case Action::Record: {
      // The tape's fields go to the store without a copy: those of a tape already reversed if
      // there is one (revolve), else new ones (every tape of store-all stays).
      Snapshot tape = std::move(m_spare);
      m_spare = Snapshot{};
      take_step(&tape);
      tape.step = a.step;
      m_tapes.adopt(static_cast<int>(a.step), std::move(tape));
      m_g.tape_bytes = std::max(m_g.tape_bytes, m_tapes.bytes());
      break;
    }
    case Action::Reverse:
      reverse(a.step);
      break;
    case Action::Done:
      break;
    }
  }

  /// The adjoint of step k from its tape; then the tape's fields are spare.
  void reverse(long k) {
    const auto start = std::chrono::steady_clock::now();
    m_reversing = true;
    Snapshot tape = m_tapes.take(static_cast<int>(k));
    const double dt = m_dts[static_cast<std::size_t>(k)];
    m_g.iterations_reverse += m_model.reverse(k, k + 1 == m_steps, tape);
    m_reversed = m_steps - k;
    if (m_spare.fields.empty())
      m_spare = std::move(tape);
    m_g.reverse_seconds += seconds_since(start);
    // t_end - t_k, the span reversed so far: kept as the steps go back one by one (computed
    // afresh after a resume), not stored per step.
    m_reversed_span = k + 1 == m_next_reversed
                          ? m_reversed_span + dt
                          : m_t_end - m_dts.start_time(static_cast<std::size_t>(k));
    m_next_reversed = k;
    m_reverse.update(m_steps - k, m_reversed_span, dt,
                     format("reverse, step %.0f of the forward run", double(k + 1)), k == 0);
  }

  /// The adjoint of the initial state and the chain rule to the parameters.
  void finish() {
    const auto start = std::chrono::steady_clock::now();
    m_g.iterations_reverse += m_model.finish();
    m_g.reverse_seconds += seconds_since(start);
    if (m_disk) {
      m_g.io_seconds = m_disk->file().seconds();
      m_g.bytes_written = m_disk->file().bytes_written();
      m_g.bytes_read = m_disk->file().bytes_read();
      m_disk->remove_file();
    }
  }

  // ---- the checkpoint file ----

  /// Creates the checkpoint file (or opens it to resume) with its disk slots, the resume
  /// records and the run's signature, which a resumed run must match. Collective.
  void open_store(const std::vector<bool>& in_memory) {
    m_disk = std::make_unique<Hdf5CheckpointStore>(m_model.comm(), m_c.file, m_c.resume);
    const Snapshot prototype = m_model.state();
    for (int q = 0; q < static_cast<int>(in_memory.size()); ++q)
      if (!in_memory[static_cast<std::size_t>(q)])
        m_disk->reserve(q, prototype);
    for (int q = 0; q < 2; ++q) {
      m_disk->reserve(kForwardRecord + q, forward_record());
      m_disk->reserve(kReverseRecord + q, reverse_record());
    }
    const Snapshot mine = signature(m_c, m_steps);
    m_disk->reserve(kSignature, mine);
    if (!m_c.resume)
      m_disk->save(kSignature, mine);
    else if (m_disk->load(kSignature).numbers != mine.numbers)
      throw CollectiveError(m_c.file + " was written by a run with other settings (case file, "
                                       "--set or time steps): resume with the settings of the "
                                       "killed run, or run without --resume");
  }

  // ---- signals ----

  /// Where the sweep is, for the messages of a signal.
  std::string position() const {
    return m_reversing ? format("the reverse sweep, %.0f of %.0f steps reversed",
                                double(m_reversed), double(m_steps))
                       : format("the forward sweep at step %.0f of %.0f", double(m_model.steps()),
                                double(m_steps));
  }

  /// A batch system's signal, polled on every rank together between steps. A record is valid
  /// where no tape waits for its adjoint step (the actions counted are complete, and a resumed
  /// run takes again the steps of an action under way, counting the objective's terms once), so
  /// a signal that finds a tape waiting is answered after that adjoint step. Throws Stopped on
  /// SIGTERM.
  void respond_to_signals() {
    if (!m_c.watch_signals)
      return;
    int received = received_signal(m_model.comm());
    if (++m_polls == m_c.term_at_poll)
      received = SIGTERM;
    if (received == SIGTERM || (received == SIGUSR1 && m_signal == 0))
      m_signal = received;
    const bool record = m_c.record_on_signal && m_c.resumable();
    if (m_signal == 0 || (record && m_tapes.size() > 0))
      return;
    const int signal = m_signal;
    m_signal = 0;
    std::string saved;
    if (record) {
      if (!m_disk) // a run with every checkpoint in memory: the file holds the records only
        open_store(std::vector<bool>(static_cast<std::size_t>(m_schedule->slots()), true));
      if (m_reversing)
        m_disk->save(kReverseRecord + static_cast<int>(m_reverse_records++ % 2), reverse_record());
      else
        m_disk->save(kForwardRecord + static_cast<int>(m_forward_records++ % 2), forward_record());
      saved = "resume record written to " + m_c.file;
    } else if (m_c.record_on_signal) {
      saved = "checkpoint.schedule = all keeps its tapes only in memory, so this gradient "
              "cannot be resumed (with revolve, online or multistage it can)";
    }
    if (signal == SIGTERM)
      throw Stopped("stopped by " + stop_reason() + " in " + position() +
                    (saved.empty() ? "" : "; " + saved));
    if (!m_c.record_on_signal)
      saved = m_c.signal_note;
    m_log.info("SIGUSR1 in " + position() + (saved.empty() ? "" : ": " + saved) + "; going on");
  }

  // ---- resume records ----

  /// What the forward sweep needs to continue after a checkpoint saved on disk.
  Snapshot forward_record() const {
    Snapshot r;
    r.step = m_actions;
    r.numbers["objective"] = m_g.objective;
    r.numbers["reached"] = double(m_reached);
    return r;
  }

  /// What the reverse sweep needs to continue after an adjoint step: the model's adjoint state
  /// and the objective.
  Snapshot reverse_record() {
    Snapshot r = m_model.adjoint_state();
    const Snapshot f = forward_record();
    r.step = f.step;
    for (const auto& kv : f.numbers)
      r.numbers[kv.first] = kv.second;
    return r;
  }

  void write_record(const Action& a) {
    if (a.kind == Action::Save && !m_reversing && !m_checkpoints->in_memory(a.slot)) {
      m_disk->save(kForwardRecord + static_cast<int>(m_forward_records++ % 2), forward_record());
    } else if (a.kind == Action::Reverse && a.step > 0 &&
               (m_c.resume_every <= 0 || seconds_since(m_last_record) >= m_c.resume_every)) {
      m_disk->save(kReverseRecord + static_cast<int>(m_reverse_records++ % 2), reverse_record());
      m_last_record = std::chrono::steady_clock::now();
    }
  }

  /// Continues the run the checkpoint file holds: the newest complete resume record, the
  /// schedule replayed to it, and the checkpoints the rest of the schedule reads, rebuilt from
  /// x_0 or the disk where the killed run lost them (memory slots, slots overwritten after the
  /// record, a slot being written when the run was killed).
  void resume() {
    int newest = -1;
    long newest_actions = -1;
    for (int q : {kForwardRecord, kForwardRecord + 1, kReverseRecord, kReverseRecord + 1}) {
      const long at = m_disk->stored_step(q);
      if (at > newest_actions) {
        newest_actions = at;
        newest = q;
      }
    }
    if (newest < 0)
      throw CollectiveError(m_c.file +
                            " holds no complete resume record (the run was stopped before its "
                            "first checkpoint on disk): run the gradient again without --resume");
    const Snapshot& record = m_disk->load(newest);
    const bool reversing = newest >= kReverseRecord;
    m_g.objective = record.numbers.at("objective");
    m_reached = static_cast<long>(record.numbers.at("reached"));
    if (reversing) {
      m_model.restore_adjoint_state(record);
      m_reversing = true;
    }
    // The schedule, replayed to the record; a second copy looks ahead for the slots that are
    // read before they are written again.
    const Replay at = replay(*m_schedule, newest_actions);
    auto ahead = make_schedule(m_c, m_steps);
    Replay future = replay(*ahead, newest_actions);
    std::map<long, std::vector<int>> needed; // step -> slots that must hold it
    std::set<int> written;
    // The next action goes on from the state the record's actions left (at.current), unless it
    // restores a checkpoint: a record falls after any action, or in the middle of an advance.
    bool go_on_from_current = true;
    bool first = true;
    for (Action a = future.next(*ahead, m_steps); a.kind != Action::Done;
         a = future.next(*ahead, m_steps)) {
      if (first)
        go_on_from_current = a.kind != Action::Restore;
      first = false;
      if (a.kind == Action::Save)
        written.insert(a.slot);
      else if (a.kind == Action::Restore && !written.count(a.slot)) {
        needed[at.slots.at(a.slot)].push_back(a.slot);
        written.insert(a.slot); // counted once
      }
    }
    // Slots already on disk with the right state need nothing.
    for (auto it = needed.begin(); it != needed.end();) {
      auto& slots = it->second;
      slots.erase(std::remove_if(slots.begin(), slots.end(),
                                 [&](int q) {
                                   return !m_checkpoints->in_memory(q) &&
                                          m_disk->stored_step(q) == it->first;
                                 }),
                  slots.end());
      it = slots.empty() ? needed.erase(it) : ++it;
    }
    bool positioned = false; // whether the model holds a state this resume has put there
    for (const auto& target : needed) {
      rebuild(target.first, positioned);
      for (int q : target.second)
        m_checkpoints->save(q, m_model.state());
    }
    if (go_on_from_current)
      rebuild(at.current, positioned);
    m_actions = newest_actions;
    m_reversed = at.reversed;
    m_g.resumed_at = newest_actions;
  }

  /// Makes the model's state x_step, to rebuild what a stopped run lost: from the state it
  /// holds (if `positioned`) or the nearest one on disk before, whichever is closer.
  void rebuild(long step, bool& positioned) {
    if (!positioned || m_model.steps() > step || nearest_on_disk(step) > m_model.steps())
      restore_nearest(step);
    positioned = true;
    while (m_model.steps() < step) {
      take_step(nullptr);
      ++m_g.resume_recomputed_steps;
    }
  }

  /// Replays `count` actions of `schedule`.
  Replay replay(Schedule& schedule, long count) const {
    Replay r;
    for (long i = 0; i < count; ++i)
      if (r.next(schedule, m_steps).kind == Action::Done)
        throw Error(format("the resume record is at action %.0f, beyond the end of the "
                           "schedule: the checkpoint file is from another case",
                           double(count)));
    return r;
  }

  /// The disk slot holding the latest state at or before step `target` (-1: none, or x_0).
  int nearest_slot(long target) {
    int best = -1;
    long best_step = 0;
    for (int q = 0; q < m_schedule->slots(); ++q) {
      if (m_checkpoints->in_memory(q))
        continue;
      const long step = m_disk->stored_step(q);
      if (step > best_step && step <= target) {
        best = q;
        best_step = step;
      }
    }
    return best;
  }
  /// Its step (0: x_0).
  long nearest_on_disk(long target) {
    const int q = nearest_slot(target);
    return q < 0 ? 0 : m_disk->stored_step(q);
  }

  /// Makes the model's state the latest one at or before step `target` that the disk holds, or
  /// x_0 (a fresh start).
  void restore_nearest(long target) {
    const int q = nearest_slot(target);
    if (q >= 0)
      m_model.restore(m_disk->load(q));
    else
      m_model.restart();
  }

  AdjointModel& m_model;
  const Checkpointing& m_c;
  const StepSizes& m_dts;
  long m_steps;
  std::unique_ptr<Schedule> m_schedule;
  MemoryCheckpointStore m_memory, m_tapes;
  std::unique_ptr<Hdf5CheckpointStore> m_disk;
  std::unique_ptr<MultistageCheckpointStore> m_checkpoints;
  Snapshot m_spare;           ///< a reversed tape, whose fields the next Record reuses
  double m_reversed_span = 0; ///< t_end - t_k after reversing step k [s]
  long m_next_reversed = -1;  ///< k of the last step reversed
  double m_t_end;             ///< the run's end time [s]
  Progress m_forward, m_reverse;
  const Log& m_log;
  SweepStats m_g;
  long m_reversed = 0; ///< steps whose adjoint has been taken
  int m_signal = 0;    ///< a signal not yet answered (SIGTERM or SIGUSR1)
  long m_polls = 0;    ///< respond_to_signals calls
  long m_reached = 0;  ///< steps whose objective term has been added (each once)
  bool m_reversing = false;
  long m_actions = 0; ///< schedule actions carried out
  long m_forward_records = 0, m_reverse_records = 0;
  std::chrono::steady_clock::time_point m_last_record = std::chrono::steady_clock::now();
};

} // namespace

void Checkpointing::validate() const {
  using S = Checkpointing::Schedule;
  const Checkpointing& c = *this;
  if (c.ram_slots < 0 || c.disk_slots < 0)
    throw ConfigError("checkpoint.ram_slots and checkpoint.disk_slots cannot be negative");
  if (c.schedule == S::All && c.disk_slots > 0)
    throw ConfigError("checkpoint.schedule = all keeps every tape in memory: checkpoints on disk "
                      "(checkpoint.disk_slots) need schedule = multistage or online");
  if (c.schedule == S::Revolve && c.disk_slots > 0)
    throw ConfigError("checkpoint.schedule = revolve keeps its checkpoints in memory: use "
                      "schedule = multistage to put checkpoint.disk_slots of them on disk");
  if (c.schedule == S::Multistage && c.disk_slots < 1)
    throw ConfigError("checkpoint.schedule = multistage needs checkpoint.disk_slots >= 1 (with "
                      "every slot in memory, use schedule = revolve)");
  if (c.schedule != S::All && c.slots() < 1)
    throw ConfigError("checkpointing needs at least one slot (x_0's): raise checkpoint.ram_slots "
                      "or checkpoint.disk_slots");
  if (c.disk_slots > 0 && c.file.empty())
    throw ConfigError("checkpoints on disk need a file: set checkpoint.disk_dir");
  if (c.resume && c.schedule == S::All)
    throw ConfigError("--resume continues from the records of a revolve, online or multistage "
                      "run, and checkpoint.schedule = all keeps its tapes only in memory: run the "
                      "gradient again without --resume");
  if (c.resume && c.file.empty())
    throw ConfigError("--resume needs the checkpoint file of the run to resume: give its "
                      "directory (--resume DIR)");
}

SweepStats reverse_sweep(AdjointModel& model, const Checkpointing& checkpointing,
                         const StepSizes& dts, const Log& log, long progress_every) {
  checkpointing.validate();
  Sweep sweep(model, checkpointing, dts, log, progress_every);
  return sweep.run();
}

} // namespace adjoint
} // namespace undertow
