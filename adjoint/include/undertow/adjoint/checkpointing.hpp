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
  int capacity() const override { return m_capacity; }
  double bytes() const override;

 private:
  int m_capacity;
  std::map<int, Snapshot> m_slots;
};

/// One action of a reverse sweep.
struct Action {
  enum Kind {
    Record,  ///< take forward step `step` with its tape and save the tape in `slot`
    Reverse, ///< adjoint of step `step`, from the tape in `slot`, then erase the slot
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
  /// How many slots the schedule needs at most.
  virtual int slots() const = 0;
};

/// Records all `steps` steps, then reverses them: the fastest sweep, with memory for every
/// step's tape.
class StoreAllSchedule : public Schedule {
 public:
  explicit StoreAllSchedule(long steps) : m_steps(steps) {}
  Action next() override;
  int slots() const override { return static_cast<int>(m_steps); }

 private:
  long m_steps;
  long m_position = 0; ///< actions handed out
};

} // namespace adjoint
} // namespace undertow
