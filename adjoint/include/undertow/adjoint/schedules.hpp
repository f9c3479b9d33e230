#pragma once
/// \file
/// Checkpointing schedules (docs/checkpointing.md): pure logic, no physics, no I/O. A schedule
/// says, one action at a time, when to advance the forward run, when to record a step for its
/// adjoint, when to save or restore a checkpoint and when to take an adjoint step. Where the
/// checkpoints are kept is the business of a CheckpointStore (checkpoint_store.hpp).

#include <algorithm>
#include <cstddef>
#include <vector>

namespace undertow {
namespace adjoint {

/// One action of a reverse sweep. The forward run holds a current state x_k (k steps taken).
struct Action {
  enum Kind {
    Advance, ///< take forward steps until the current state is x_step (no tapes)
    Save,    ///< keep the current state x_step in checkpoint slot `slot`
    Restore, ///< make checkpoint `slot` (holding x_step) the current state
    Record,  ///< take forward step `step` (x_step -> x_step+1) with its tape, kept for Reverse
    Reverse, ///< adjoint of step `step`, from its tape
    Done
  } kind = Done;
  long step = 0;
  int slot = 0;
};

class Schedule {
 public:
  virtual ~Schedule() = default;
  /// The next action; Done after the adjoint of step 0.
  virtual Action next() = 0;
  /// How many checkpoint slots it uses at most (x_0 included); slot numbers are 0 to slots() - 1.
  virtual int slots() const = 0;
  /// Tells the schedule that the forward run ends after `steps` steps (the current state is
  /// x_steps). Online schedules learn the length of the run here; offline ones know it already
  /// and throw Error if it differs.
  virtual void end_at(long steps) = 0;
  /// Whether the schedule has been told where the run ends (always true offline).
  virtual bool ended() const = 0;
};

/// Records all `steps` steps, then reverses them: the fastest sweep, with memory for every
/// step's tape. No checkpoints.
class StoreAllSchedule : public Schedule {
 public:
  explicit StoreAllSchedule(long steps) : m_steps(steps) {}
  Action next() override;
  int slots() const override { return 0; }
  void end_at(long steps) override;
  bool ended() const override { return true; }

 private:
  long m_steps;
  long m_position = 0; ///< actions handed out
};

/// Binomial checkpointing (Griewank & Walther, "revolve") for a known number of steps with
/// `slots` checkpoints, x_0's included. Counting convention (docs/checkpointing.md):
///   - x_0 occupies one of the slots;
///   - every adjoint step re-runs its own forward step with its tape (Record); those l taped
///     steps are not counted as advances;
///   - advances are the untaped forward steps, including the first sweep's.
/// With that convention the number of advances is the minimum
///   t(l, s) = r l - C(s + r, s + 1), r the smallest integer with C(s + r, s) >= l,
/// which the schedule reaches by splitting every range at an optimal point given in closed form
/// (split()), so that planning takes time proportional to the actions. One tape is live at a
/// time.
class RevolveSchedule : public Schedule {
 public:
  /// Plans the whole sweep (pure logic, no I/O). Throws ConfigError if slots < 1.
  RevolveSchedule(long steps, int slots);
  Action next() override;
  int slots() const override { return m_slots; }
  void end_at(long steps) override;
  bool ended() const override { return true; }
  /// Advances (untaped forward steps) of the plan.
  long advances() const { return m_advances; }
  /// The planned actions, Done last: what a multistage store counts to place its slots.
  const std::vector<Action>& actions() const { return m_actions; }
  /// The Griewank-Walther minimum t(l, s) by the closed formula above.
  static long minimum_advances(long steps, int slots);
  /// The actions that reverse steps [first, first + length) when x_first is the current state
  /// and sits in checkpoint `slot`, with the slots in `free` (a stack: the last one is used
  /// first; it is given back as it was) available. Appends to `out`; returns the advances.
  static long plan(long first, long length, int slot, std::vector<int>& free,
                   std::vector<Action>& out);

 private:
  /// An optimal offset of the first checkpoint in a range of `length` steps with `free` more
  /// slots, in closed form (no search).
  static long split(long length, int free);

  long m_steps;
  int m_slots;
  long m_advances = 0;
  std::vector<Action> m_actions;
  std::size_t m_position = 0;
};

/// Online checkpointing for a run whose length is not known in advance (it stops on a time, a
/// convergence test or a wall-time limit). During the forward sweep it keeps at most
/// forward_slots(s) = max(1, floor(s / 2) - 1) checkpoints, equally spaced by a power of two d:
/// when they are all in use, every other one is dropped and d doubles. When told the end l
/// (end_at), it reverses the intervals between those checkpoints from the last, each by binomial
/// revolve (RevolveSchedule::plan) with every slot not holding an earlier interval's start; the
/// slots of reversed intervals come free for the earlier ones.
///
/// Bound (docs/checkpointing.md): advances <= t(l, s) + l, at most one forward run more than the
/// offline optimum. schedules_unit checks it for every l <= 2000 (every 7th above 200) and
/// s <= 15; it also held for l <= 40000 and s <= 30 when forward_slots was chosen.
class OnlineRevolveSchedule : public Schedule {
 public:
  /// Throws ConfigError if slots < 1.
  explicit OnlineRevolveSchedule(int slots);
  Action next() override;
  int slots() const override { return m_slots; }
  void end_at(long steps) override;
  bool ended() const override { return m_ended; }
  /// Advances so far (all of them once the sweep is planned, after end_at).
  long advances() const { return m_advances; }
  /// Checkpoints kept during the forward sweep.
  static int forward_slots(int slots) { return std::max(1, slots / 2 - 1); }
  static double bound_factor() { return 1.6; }

 private:
  int m_slots;
  bool m_ended = false;
  long m_current = 0; ///< the step of the current state during the forward sweep
  long m_spacing = 1; ///< d
  long m_advances = 0;
  std::vector<std::pair<long, int>> m_kept; ///< (step, slot) of the forward checkpoints
  std::vector<int> m_free;                  ///< free slots (a stack)
  std::vector<Action> m_pending;            ///< actions planned but not handed out
  std::size_t m_position = 0;
};

/// Where each checkpoint slot of a schedule lives: the `ram_slots` slots the planned actions
/// restore most often in memory, the others on disk (ties: fewer saves stay on disk, then the
/// lower slot number stays in memory). Placement by the schedule's own access counts, not by a
/// formula. Returns true for a memory slot, indexed by slot number.
std::vector<bool> place_in_memory(const std::vector<Action>& actions, int slots, int ram_slots);

} // namespace adjoint
} // namespace undertow
