#pragma once
/// \file
/// The reverse sweep, physics-neutral (docs/architecture.md, section 3): a forward run that
/// records what a checkpointing Schedule asks for and sums the objective, then the adjoint steps
/// in reverse order, with the checkpoints in a CheckpointStore (memory, HDF5 or both) and resume
/// records that let a killed gradient continue bitwise. A physics takes part through an
/// AdjointModel: its forward state as a Snapshot, one forward step (taped or not), the
/// objective's term of a state, and the adjoint of one step from its tape. The Navier-Stokes
/// gradient (gradient.hpp) and the elastodynamic one (elastodynamics_gradient.hpp) are two such
/// models driven by the same sweep.

#include "undertow/adjoint/checkpoint_store.hpp"
#include "undertow/adjoint/schedules.hpp"
#include "undertow/adjoint/step_sizes.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace undertow {
namespace adjoint {

/// How the sweep keeps the forward states for the reverse steps (docs/checkpointing.md).
struct Checkpointing {
  enum class Schedule {
    All,       ///< every step's tape in memory
    Revolve,   ///< binomial checkpointing, ram_slots slots in memory
    Online,    ///< online revolve, ram_slots + disk_slots slots (the lowest numbers in memory)
    Multistage ///< binomial, ram_slots in memory and disk_slots on disk, placed by access counts
  } schedule = Schedule::All;
  int ram_slots = 0;  ///< checkpoints in memory (x_0's counts when it is in memory)
  int disk_slots = 0; ///< checkpoints in the HDF5 file
  /// The HDF5 file of the disk slots and of the resume records (needed with disk_slots > 0).
  /// It is removed after a successful gradient and kept when the run fails or is killed.
  std::string file;
  /// Wall-clock seconds between resume records of the reverse sweep (0: after every adjoint
  /// step). The forward sweep writes one after every checkpoint it saves on disk.
  double resume_every = 300;
  bool resume = false; ///< continue the killed run whose records `file` holds
  /// What a resumed run must share with the run it continues (a hash of the case's settings),
  /// stored in the file and checked on resume, with the number of steps.
  std::uint64_t signature = 0;
  /// Batch-system signals (core/signals.hpp), polled on every rank together after each forward
  /// step and each schedule action. SIGUSR1 writes a resume record into `file` (created then if
  /// the run keeps no checkpoint on disk) and goes on; SIGTERM writes one and throws Stopped.
  /// Without `record_on_signal`, or when the run cannot resume (schedule = all), nothing is
  /// written: SIGUSR1 is noted in the log and SIGTERM stops.
  bool watch_signals = false;
  bool record_on_signal = true;
  /// Without record_on_signal: what the caller keeps instead, for the log line of SIGUSR1 (the
  /// caller adds to Stopped's message what it likes).
  std::string signal_note;
  /// Fault injection, for tests: throw Error after this many schedule actions (< 0: never), as a
  /// killed run would stop.
  long stop_after_actions = -1;
  /// Fault injection, for tests: with watch_signals, SIGTERM is taken as received at this poll
  /// of the signals (counted from 1 in each run; < 0: never), as a batch system's would be.
  long term_at_poll = -1;
  int slots() const { return ram_slots + disk_slots; }
  /// Whether a stopped run of this checkpointing can be resumed from `file`: every schedule but
  /// `all`, whose tapes live only in memory. Kill -9 needs checkpoints on disk as well (the
  /// records of the forward sweep are written with them); a signal's record needs none.
  bool resumable() const { return schedule != Schedule::All && !file.empty(); }
  /// Throws ConfigError, naming the checkpoint.* key to change, for an impossible combination.
  /// Not collective.
  void validate() const;
};

/// What a sweep did: J, time and memory, for reports and benchmarks. Seconds and bytes are this
/// rank's.
struct SweepStats {
  double objective = 0;         ///< J
  double forward_seconds = 0;   ///< first-time forward steps (taped or not)
  double recompute_seconds = 0; ///< forward steps taken again from checkpoints
  double reverse_seconds = 0;   ///< adjoint steps and the final chain rule
  long recomputed_steps = 0;
  double tape_bytes = 0;       ///< largest memory the tapes held on one rank
  double checkpoint_bytes = 0; ///< largest memory the checkpoints held on one rank
  double io_seconds = 0;       ///< in the HDF5 checkpoint file (checkpoints and resume records)
  double bytes_written = 0, bytes_read = 0; ///< to and from it, by this rank
  long resumed_at = -1;             ///< the schedule action the run resumed after (-1: not resumed)
  long resume_recomputed_steps = 0; ///< forward steps taken again to rebuild lost checkpoints
  /// Linear-solver iterations of the forward steps (recomputations included) and of the
  /// adjoint steps (Poisson for Navier-Stokes, the Newmark system for elastodynamics).
  long iterations_forward = 0, iterations_reverse = 0;
};

/// A time-dependent forward model with its discrete adjoint, as the sweep drives it. Every
/// member is collective unless it says otherwise.
class AdjointModel {
 public:
  virtual ~AdjointModel() = default;
  virtual const Communicator& comm() const = 0;
  /// Steps the current forward state x_k has taken (k), and its time [s]. Not collective.
  virtual long steps() const = 0;
  virtual double time() const = 0;
  /// x_k as a snapshot sharing the model's fields (a store copies what it keeps), with
  /// step = k and the clock among its numbers; shaped alike at every call. Not collective.
  virtual Snapshot state() = 0;
  /// Makes a snapshot of state() the current state (copies).
  virtual void restore(const Snapshot& s) = 0;
  /// Makes x_0 the current state.
  virtual void restart() = 0;
  /// Takes the step x_k -> x_{k+1} of size dt [s]. With `tape`, also keeps in it what reverse()
  /// needs; its fields, if it has any, are those of a reversed tape and may be reused. Returns
  /// the linear-solver iterations.
  virtual long step(double dt, Snapshot* tape) = 0;
  /// The objective's term of the state just reached by step(): step number k + 1, its dt, and
  /// whether it is the run's last step.
  virtual double objective_term(long step, double dt, bool last) = 0;
  /// Step `step` (k + 1) of size dt has just been taken for the first time, not recomputed from a
  /// checkpoint, and its objective term summed: where a model writes the outputs of its forward
  /// run (fields, diagnostics). A resumed run does not take again the steps before it resumed.
  /// The default does nothing.
  virtual void forward_step_taken(long step, double dt, bool last) {
    (void)step, (void)dt, (void)last;
  }
  /// Step `step` (k + 1) of size dt, taken for the first time, threw `e` (a diverged solve):
  /// a model with outputs may throw a clearer error naming the state (its divergence guard's).
  /// If it returns, the sweep throws `e` with the step's number, time and dt. The default does
  /// nothing. Collective.
  virtual void forward_step_failed(long step, double dt, const CollectiveError& e) {
    (void)step, (void)dt, (void)e;
  }
  /// The adjoint of step k from its tape, the derivative of the objective's term of x_{k+1}
  /// included: the model's adjoint variable goes from x_{k+1}'s to x_k's. The model may keep
  /// fields of `tape` and give it others (the sweep reuses what it holds for a later tape).
  /// Returns the linear-solver iterations.
  virtual long reverse(long k, bool last, Snapshot& tape) = 0;
  /// After the adjoint of step 0: the adjoint of the initial state and the chain rule to the
  /// model's parameters (kept by the model). Returns the linear-solver iterations.
  virtual long finish() = 0;
  /// The adjoint variable between two reverse() calls, for resume records (sharing the model's
  /// fields; shaped alike at every call; numbers not named "objective" or "reached"). Not
  /// collective.
  virtual Snapshot adjoint_state() = 0;
  virtual void restore_adjoint_state(const Snapshot& s) = 0;
};

/// Runs the forward and reverse sweeps of `model` over the steps `dts` [s] as `checkpointing`
/// says, printing progress through `log` every `progress_every` steps (0: never). Throws
/// CollectiveError if the objective is not finite or a checkpoint file cannot be used, Stopped
/// on SIGTERM (Checkpointing::watch_signals), Error at an injected stop. Collective.
SweepStats reverse_sweep(AdjointModel& model, const Checkpointing& checkpointing,
                         const StepSizes& dts, const Log& log, long progress_every);

} // namespace adjoint
} // namespace undertow
