#pragma once
/// \file
/// A parallel HDF5 file of numbered slots, for checkpoints: each slot is a preallocated dataset
/// holding every rank's part (a vector of doubles) side by side, overwritten in place. Each
/// rank's part carries a step number and a checksum of both, verified on every read.
///
/// Layout, for slot q: datasets "slot_q/values" (the ranks' parts concatenated in rank order),
/// "slot_q/counts" (each rank's part size) and "slot_q/state" (per rank: the step stored, -1
/// while a write is under way or the slot is empty, and the checksum). A file is tied to the
/// number of ranks that created it.
///
/// Crash safety: a write marks the slot incomplete, writes the values, then the state, then
/// flushes the file; a process killed during a write leaves an incomplete slot (step() = -1),
/// never a slot whose state claims values it does not hold.
///
/// One run at a time: rank 0 holds an flock on `path`.lock while the file is open (released by
/// the kernel if the process dies), and opening a file another live process holds is refused.

#include "undertow/core/communicator.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace io {

/// A run of doubles in this rank's memory, host-accessible: one piece of this rank's part of a
/// slot (a field's whole local array, or a snapshot's numbers). The pieces of a part follow one
/// another in the slot, so a part is written from and read into its owners' memory directly,
/// without a buffer of the whole part.
struct SlotPiece {
  double* data = nullptr;
  std::size_t size = 0;
};

class SlotFile {
 public:
  enum class Mode {
    Create, ///< a new file (an existing one is replaced)
    Open    ///< an existing file, for reading and writing (a resumed run)
  };

  /// Opens `path` on every rank of `comm`. Throws CollectiveError naming the file and the fix,
  /// also when another live process has it open (see the lock above).
  /// Collective.
  SlotFile(const Communicator& comm, const std::string& path, Mode mode);
  /// Closes the file (kept on disk). Collective.
  ~SlotFile();
  SlotFile(const SlotFile&) = delete;
  SlotFile& operator=(const SlotFile&) = delete;

  /// Makes sure slot `slot` exists with room for `values` doubles on this rank, allocating it
  /// on disk now if it is new. In an opened file, throws CollectiveError if the existing slot
  /// has other sizes (another case, grid or rank count). Collective.
  void reserve(int slot, std::size_t values);
  /// Overwrites slot `slot` with this rank's part, the `pieces` one after another (not
  /// modified), as the state of step `step` (>= 0), then flushes the file. Their sizes must add
  /// up to the one reserved, and every rank passes the same number of pieces. Collective.
  void write(int slot, long step, const std::vector<SlotPiece>& pieces);
  /// Reads this rank's part of slot `slot` into `pieces` (sizes as for write()) and returns its
  /// step. Throws CollectiveError naming the slot and the file if it is empty or incomplete, or
  /// if any rank's part does not match its checksum (a corrupted file). Collective.
  long read(int slot, const std::vector<SlotPiece>& pieces) const;
  /// The step slot `slot` holds on every rank, or -1 if it is missing, empty, incomplete or
  /// holds different steps on different ranks. Checksums are not verified here. Collective.
  long step(int slot) const;

  /// Bytes written and read by this rank, and seconds spent in write() and read().
  double bytes_written() const { return m_written; }
  double bytes_read() const { return m_read; }
  double seconds() const { return m_seconds; }
  const std::string& path() const { return m_path; }

 private:
  struct Handles;
  const Communicator& m_comm;
  std::string m_path;
  std::unique_ptr<Handles> m_h;
  double m_written = 0;
  mutable double m_read = 0, m_seconds = 0;
};

/// A checksum of `n` doubles' bit patterns and positions, the first at position `first`. A sum
/// over positions: the checksums of consecutive pieces add up (modulo 2^64) to the whole's.
/// Not collective.
std::uint64_t values_checksum(const double* values, std::size_t n, std::size_t first = 0);
/// The checksum a slot stores: its values' (`values_sum`, from values_checksum) and its step's,
/// so that a changed step is caught as surely as a changed value. Not collective.
std::uint64_t slot_checksum(long long step, std::uint64_t values_sum);

} // namespace io
} // namespace undertow
