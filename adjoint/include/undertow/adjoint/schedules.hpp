#pragma once
/// \file
/// Checkpointing schedules (docs/checkpointing.md): pure logic, no physics, no I/O. A schedule
/// says, one action at a time, when to advance the forward run, when to record a step for its
/// adjoint, when to save or restore a checkpoint and when to take an adjoint step. Where the
/// checkpoints are kept is the business of a CheckpointStore (checkpoint_store.hpp).

#include <algorithm>
#include <cstddef>
#include <memory>
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

/// The actions that reverse steps [first, first + length) when x_first is the current state and
/// sits in checkpoint `slot`, with the slots in `free` (a stack: the last one is used first)
/// available: binomial checkpointing's recursion (split each range at an optimal point, reverse
/// its right part, restore, reverse its left part), generated one action at a time. Memory: one
/// frame per level of the recursion (at most the free slots + 1), not the actions: a sweep of
/// 10^5 steps plans in a few hundred bytes. Pure logic.
class RevolveActions {
 public:
  RevolveActions(long first, long length, int slot, std::vector<int> free);
  /// The next action into `action`; false once all have been handed out.
  bool next(Action& action);
  /// Untaped forward steps (advances) among the actions handed out so far.
  long advances() const { return m_advances; }
  /// The free slots: as given, once every action has been handed out.
  const std::vector<int>& free() const { return m_free; }

 private:
  struct Frame {
    long first, length;
    int slot;
    enum Stage { Start, Countdown, Left } stage = Start;
    long k = 0;    ///< Countdown: the step reversed next
    long m = 0;    ///< Left: the split point
    int taken = 0; ///< Left: the slot taken for the right part
  };
  /// Runs the recursion until it queues actions or ends.
  void advance();
  void queue(Action::Kind kind, long step, int slot);

  std::vector<Frame> m_frames;
  std::vector<int> m_free;
  Action m_queue[4];
  int m_queued = 0, m_taken = 0;
  long m_advances = 0;
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
/// time. The actions are generated as they are asked for (RevolveActions), after one counting
/// pass at construction: memory does not grow with the number of steps.
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
  /// How often the plan saves into and restores from each slot: what a multistage store counts
  /// to place its slots (place_in_memory).
  const std::vector<long>& saves() const { return m_saves; }
  const std::vector<long>& restores() const { return m_restores; }
  /// The Griewank-Walther minimum t(l, s) by the closed formula above.
  static long minimum_advances(long steps, int slots);
  /// An optimal offset of the first checkpoint in a range of `length` steps with `free` more
  /// slots, in closed form (no search).
  static long split(long length, int free);

 private:
  /// The plan's actions from the start: Save x_0, the reversal, then Done.
  std::unique_ptr<RevolveActions> restart() const;

  long m_steps;
  int m_slots;
  long m_advances = 0;
  std::vector<long> m_saves, m_restores;
  std::unique_ptr<RevolveActions> m_actions;
  bool m_saved_first = false;
};

/// Online checkpointing for a run whose length is not known in advance (it stops on a time, a
/// convergence test or a wall-time limit). During the forward sweep it keeps at most
/// forward_slots(s) = max(1, floor(s / 2) - 1) checkpoints, equally spaced by a power of two d:
/// when they are all in use, every other one is dropped and d doubles. When told the end l
/// (end_at), it reverses the intervals between those checkpoints from the last, each by binomial
/// revolve (RevolveActions) with every slot not holding an earlier interval's start; the
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
  /// After end_at: the reversal of the interval being reversed, the slot of its start, and the
  /// end of the next (earlier) one.
  std::unique_ptr<RevolveActions> m_interval;
  int m_interval_slot = 0;
  long m_end = 0;
};

/// Where each checkpoint slot of a schedule lives: the `ram_slots` slots the planned actions
/// restore most often in memory, the others on disk (ties: fewer saves stay on disk, then the
/// lower slot number stays in memory). Placement by the schedule's own access counts per slot
/// (RevolveSchedule::saves(), restores()), not by a formula. Returns true for a memory slot,
/// indexed by slot number.
std::vector<bool> place_in_memory(const std::vector<long>& saves, const std::vector<long>& restores,
                                  int ram_slots);

} // namespace adjoint
} // namespace undertow
