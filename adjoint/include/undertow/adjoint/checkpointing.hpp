#pragma once
/// \file
/// The two seams of the reverse sweep (docs/architecture.md, section 3):
///
/// - a Schedule is pure logic: it says, one action at a time, when to advance the forward run,
///   when to record a step for its adjoint, when to save or restore a checkpoint and when to take
///   an adjoint step. StoreAllSchedule records every step (all of them kept); revolve (issue 6)
///   plugs in here with the same actions.
/// - a CheckpointStore keeps what the schedule saves, in numbered slots. MemoryCheckpointStore
///   keeps device copies; an HDF5 store (issue 6) keeps one preallocated dataset per slot.

#include "undertow/solvers/navier_stokes/solver.hpp"

#include <map>
#include <string>
#include <vector>

namespace undertow {
namespace adjoint {

/// Named fields and numbers: what a store keeps in one slot (a step tape, or a checkpoint of the
/// forward state).
struct Snapshot {
  long step = 0;
  std::vector<std::pair<std::string, Field>> fields;
  std::map<std::string, double> numbers;
};

/// A step tape as a snapshot (sharing its fields) and back (copying into `tape`).
Snapshot to_snapshot(const navier_stokes::StepTape& tape, long step, int dim);
void from_snapshot(const Snapshot& s, navier_stokes::StepTape& tape, int dim);

class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;
  /// Keeps a copy of `s` in `slot` (replacing what was there). Not collective for memory
  /// stores; collective for file stores.
  virtual void save(int slot, const Snapshot& s) = 0;
  /// Keeps `s` itself in `slot`, without copying: the caller gives its fields away and must not
  /// write them any more. Stores that cannot share memory (files) copy.
  virtual void adopt(int slot, Snapshot&& s) { save(slot, s); }
  /// The snapshot in `slot`; throws Error if the slot is empty.
  virtual const Snapshot& load(int slot) const = 0;
  virtual void erase(int slot) = 0;
  virtual bool has(int slot) const = 0;
  /// How many slots it can hold (< 0: unlimited).
  virtual int capacity() const = 0;
  /// Bytes held on this rank.
  virtual double bytes() const = 0;
};

class MemoryCheckpointStore : public CheckpointStore {
 public:
  explicit MemoryCheckpointStore(int capacity = -1) : m_capacity(capacity) {}
  void save(int slot, const Snapshot& s) override;
  void adopt(int slot, Snapshot&& s) override;
  const Snapshot& load(int slot) const override;
  void erase(int slot) override;
  bool has(int slot) const override { return m_slots.count(slot) > 0; }
  int capacity() const override { return m_capacity; }
  double bytes() const override;

 private:
  int m_capacity;
  std::map<int, Snapshot> m_slots;
};

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
  /// How many checkpoint slots it uses at most (x_0 included).
  virtual int slots() const = 0;
};

/// Records all `steps` steps, then reverses them: the fastest sweep, with memory for every
/// step's tape. No checkpoints.
class StoreAllSchedule : public Schedule {
 public:
  explicit StoreAllSchedule(long steps) : m_steps(steps) {}
  Action next() override;
  int slots() const override { return 0; }

 private:
  long m_steps;
  long m_position = 0; ///< actions handed out
};

/// Binomial checkpointing (Griewank & Walther, "revolve") for a known number of steps with
/// `slots` checkpoints, x_0's included. Counting convention (docs/adjoint.md):
///   - x_0 occupies one of the slots;
///   - every adjoint step re-runs its own forward step with its tape (Record); those l taped
///     steps are not counted as advances;
///   - advances are the untaped forward steps, including the first sweep's.
/// With that convention the number of advances is the minimum
///   t(l, s) = r l - C(s + r, s + 1), r the smallest integer with C(s + r, s) >= l,
/// which the schedule reaches by splitting every range at an optimal point given in closed form
/// (split()), so that planning takes time proportional to the actions. One or two tapes are live
/// at a time.
class RevolveSchedule : public Schedule {
 public:
  /// Plans the whole sweep (pure logic, no I/O). Throws ConfigError if slots < 1.
  RevolveSchedule(long steps, int slots);
  Action next() override;
  int slots() const override { return m_slots; }
  /// Advances (untaped forward steps) of the plan.
  long advances() const { return m_advances; }
  /// The Griewank-Walther minimum t(l, s) by the closed formula above.
  static long minimum_advances(long steps, int slots);

 private:
  /// Appends the actions that reverse steps [first, first + length) from x_first, which is in
  /// checkpoint `slot`, with `free` more slots available.
  void plan(long first, long length, int slot, int free);
  /// An optimal offset of the first checkpoint in a range of `length` steps with `free` more
  /// slots, in closed form (no search).
  static long split(long length, int free);

  long m_steps;
  int m_slots;
  long m_advances = 0;
  std::vector<Action> m_actions;
  std::size_t m_position = 0;
};

} // namespace adjoint
} // namespace undertow
