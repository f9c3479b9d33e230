#pragma once
/// \file
/// Checkpoint stores, the second seam of the reverse sweep (docs/architecture.md, section 3;
/// the first is the Schedule, schedules.hpp): a CheckpointStore keeps what the schedule saves,
/// in numbered slots. MemoryCheckpointStore keeps copies in the memory space of the fields
/// (device memory on a GPU); Hdf5CheckpointStore keeps one preallocated dataset per slot in one
/// parallel HDF5 file; MultistageCheckpointStore puts each slot in one or the other.

#include "undertow/core/communicator.hpp"
#include "undertow/core/field.hpp"
#include "undertow/io/slot_file.hpp"

#include <map>
#include <memory>
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
  /// The snapshot in `slot`, moved out (the slot is then empty); throws Error if it is empty.
  Snapshot take(int slot);
  void erase(int slot) override;
  bool has(int slot) const override { return m_slots.count(slot) > 0; }
  int capacity() const override { return m_capacity; }
  double bytes() const override;
  /// Snapshots held.
  std::size_t size() const { return m_slots.size(); }

 private:
  int m_capacity;
  std::map<int, Snapshot> m_slots;
};

/// Checkpoints in one parallel HDF5 file (io::SlotFile): one dataset per slot, allocated when
/// the slot is reserved and overwritten in place, with a checksum per rank verified on every
/// load. A slot holds each field's whole local array, ghosts included, so that a restored state
/// is bitwise the saved one; the file is tied to the rank count that wrote it. The file stays
/// when the store is destroyed (a failed or killed run can resume from it); remove_file() ends
/// it after a successful run.
///
/// Memory: where the host can reach the fields (Serial, OpenMP), a save writes each field from
/// its own memory and a load reads into the load buffer's fields directly, so the store holds
/// nothing but its load buffers. Device fields go through a host staging buffer of one snapshot
/// (host memory, not device memory).
class Hdf5CheckpointStore : public CheckpointStore {
 public:
  /// Creates `path` (resume = false) or opens it to resume a run. Collective.
  Hdf5CheckpointStore(const Communicator& comm, const std::string& path, bool resume);
  /// Allocates slot `slot` for snapshots with the fields (layouts) and number names of
  /// `prototype`; checks an existing slot of a resumed file. Collective.
  void reserve(int slot, const Snapshot& prototype);
  /// Collective. Throws Error if `s` is not shaped like the slot's prototype.
  void save(int slot, const Snapshot& s) override;
  /// Reads slot `slot` into a buffer of the store (valid until the next load of a slot with the
  /// same prototype) and returns it. Throws CollectiveError naming the slot and the file if it
  /// is corrupted (checksum) or incomplete. Collective.
  const Snapshot& load(int slot) const override;
  /// The slot stays allocated; only its use ends. Not collective.
  void erase(int slot) override { m_used.erase(slot); }
  bool has(int slot) const override { return m_used.count(slot) > 0; }
  int capacity() const override { return static_cast<int>(m_prototypes.size()); }
  /// Memory of the load buffers and the staging buffer on this rank (the slots themselves are
  /// on disk).
  double bytes() const override;
  /// The step the file holds in `slot` (-1: none, or incomplete), without reading it; marks
  /// the slot as in use if it holds one. For resuming. Collective.
  long stored_step(int slot);
  /// Closes and deletes the file (after a successful run). Collective.
  void remove_file();
  const io::SlotFile& file() const { return *m_file; }

 private:
  /// What a slot holds: field names and layouts, number names (no memory).
  struct Prototype {
    std::vector<std::pair<std::string, FieldLayout>> fields;
    std::vector<std::size_t> spans; ///< doubles per field
    std::map<std::string, double> numbers;
    std::size_t values = 0; ///< doubles in all
  };
  /// The prototype of `slot`; throws Error if the slot was not reserved or if `s` is given and
  /// not shaped like it.
  const Prototype& prototype(int slot, const Snapshot* s) const;
  /// Sets m_pieces to the fields' whole local arrays (host-accessible memory: the fields' own,
  /// else the staging buffer, filled from them if `stage`) and then m_numbers.
  void lay_out_pieces(const std::vector<std::pair<std::string, Field>>& fields, bool stage) const;
  const Communicator& m_comm;
  std::string m_path;
  std::unique_ptr<io::SlotFile> m_file;
  std::map<int, Prototype> m_prototypes;
  /// Load buffers, one per snapshot size, made on first use (a run that never resumes never
  /// makes the resume records' one).
  mutable std::map<std::size_t, Snapshot> m_buffers;
  std::map<int, long> m_used; ///< slots in use, and their steps
  /// The pieces of the slot being written or read, the numbers' values and (device fields only)
  /// the staging buffer: kept from one transfer to the next (no allocation per save or load).
  mutable std::vector<io::SlotPiece> m_pieces;
  mutable std::vector<double> m_numbers, m_staging;
};

/// Multistage checkpointing: each slot in memory or on disk, as place_in_memory() decided.
class MultistageCheckpointStore : public CheckpointStore {
 public:
  /// `in_memory[q]`: slot q lives in `memory`, else in `disk`. Both must outlive this store.
  MultistageCheckpointStore(std::vector<bool> in_memory, CheckpointStore& memory,
                            CheckpointStore& disk)
      : m_in_memory(std::move(in_memory)), m_memory(memory), m_disk(disk) {}
  void save(int slot, const Snapshot& s) override { store(slot).save(slot, s); }
  void adopt(int slot, Snapshot&& s) override { store(slot).adopt(slot, std::move(s)); }
  const Snapshot& load(int slot) const override { return store(slot).load(slot); }
  void erase(int slot) override { store(slot).erase(slot); }
  bool has(int slot) const override { return store(slot).has(slot); }
  int capacity() const override { return static_cast<int>(m_in_memory.size()); }
  double bytes() const override { return m_memory.bytes() + m_disk.bytes(); }
  bool in_memory(int slot) const { return m_in_memory.at(static_cast<std::size_t>(slot)); }

 private:
  CheckpointStore& store(int slot) const { return in_memory(slot) ? m_memory : m_disk; }
  std::vector<bool> m_in_memory;
  CheckpointStore& m_memory;
  CheckpointStore& m_disk;
};

} // namespace adjoint
} // namespace undertow
