#include "undertow/io/slot_file.hpp"

#include "hdf5_settings.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/hash.hpp"
#include "undertow/core/log.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <hdf5.h>
#include <map>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace undertow {
namespace io {

namespace {

struct SlotShape {
  hsize_t offset = 0, count = 0, total = 0;
};

std::string group_of(int slot) {
  return "slot_" + std::to_string(slot);
}

/// Creates a contiguous dataset allocated on disk now (so that later writes change no metadata).
hid_t create_dataset(hid_t file, const std::string& name, hid_t type, int rank,
                     const hsize_t* dims) {
  const hid_t space = H5Screate_simple(rank, dims, nullptr);
  const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_alloc_time(create, H5D_ALLOC_TIME_EARLY);
  H5Pset_fill_time(create, H5D_FILL_TIME_NEVER);
  const hid_t set = H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, create, H5P_DEFAULT);
  H5Pclose(create);
  H5Sclose(space);
  return set;
}

/// Transfers `count` elements at `offset` of a 1D or (n, 2) dataset; ranks with count 0 take
/// part with an empty selection. Returns the HDF5 status.
herr_t transfer(bool write, hid_t set, hid_t type, hid_t properties, int rank, hsize_t offset,
                hsize_t count, void* data) {
  const hid_t file_space = H5Dget_space(set);
  std::array<hsize_t, 2> start{offset, 0}, block{count, 2};
  const hid_t memory = H5Screate_simple(rank, block.data(), nullptr);
  if (count == 0) {
    H5Sselect_none(file_space);
    H5Sselect_none(memory);
  } else {
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, block.data(), nullptr);
  }
  const herr_t status = write ? H5Dwrite(set, type, memory, file_space, properties, data)
                              : H5Dread(set, type, memory, file_space, properties, data);
  H5Sclose(memory);
  H5Sclose(file_space);
  return status;
}

/// Transfers this rank's part of a slot's values, piece after piece, from offset `offset` of
/// the dataset; returns whether a transfer failed, and the part's checksum in `sum`. Every rank
/// makes as many transfers as it has pieces (the same number on all ranks).
bool transfer_pieces(bool write, hid_t set, hid_t properties, hsize_t offset,
                     const std::vector<SlotPiece>& pieces, std::uint64_t& sum) {
  bool failed = false;
  std::size_t position = 0;
  sum = 0;
  for (const SlotPiece& p : pieces) {
    failed |= transfer(write, set, H5T_NATIVE_DOUBLE, properties, 1, offset + position, p.size,
                       p.data) < 0;
    sum += values_checksum(p.data, p.size, position);
    position += p.size;
  }
  return failed;
}

std::size_t total_size(const std::vector<SlotPiece>& pieces) {
  std::size_t n = 0;
  for (const SlotPiece& p : pieces)
    n += p.size;
  return n;
}

} // namespace

std::uint64_t values_checksum(const double* values, std::size_t n, std::size_t first) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, values + i, sizeof bits);
    sum += mix64(bits ^ mix64(first + i + 0x9e3779b97f4a7c15ULL));
  }
  return sum;
}

std::uint64_t slot_checksum(long long step, std::uint64_t values_sum) {
  return values_sum ^ mix64(static_cast<std::uint64_t>(step) ^ 0x632be59bd9b4e019ULL);
}

struct SlotFile::Handles {
  hid_t file = -1;
  hid_t transfer = -1; ///< collective MPI-IO
  int lock = -1;       ///< rank 0: the descriptor holding the lock file's flock
  std::string lock_path;
  std::map<int, SlotShape> slots;
  ~Handles() {
    if (lock >= 0) {
      ::unlink(lock_path.c_str());
      ::close(lock);
    }
  }
};

namespace {

/// Rank 0 takes an exclusive flock on `path`.lock, held until the file is closed or the process
/// dies (the kernel releases it): a second run (a resume started while the killed run's ranks
/// still write, or two jobs given one directory) is refused instead of mixing its writes with
/// the other's. Returns the descriptor, or -1 where no lock can be had (a directory that cannot
/// be written, which opening the file reports; a file system without flock). Collective.
int lock_file(const Communicator& comm, const std::string& lock, const std::string& path) {
  int fd = -1;
  std::string holder;
  if (comm.is_root()) {
    fd = ::open(lock.c_str(), O_RDWR | O_CREAT, 0644);
    if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      char host[128] = {};
      ::gethostname(host, sizeof host - 1);
      const std::string me = "process " + std::to_string(::getpid()) + " on " + host;
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0)
        holder.clear(); // the lock holds without its note
    } else if (fd >= 0) {
      if (errno == EWOULDBLOCK) {
        char text[256] = {};
        const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
        holder = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "another process";
      }
      ::close(fd);
      fd = -1;
    }
  }
  holder = comm.broadcast(holder);
  if (!holder.empty())
    throw CollectiveError("the checkpoint file " + path + " is in use by " + holder +
                          ", which is still running (a killed job's ranks can outlive mpirun "
                          "for a moment): wait until it has ended, or give this run another "
                          "output directory");
  return fd;
}

} // namespace

SlotFile::SlotFile(const Communicator& comm, const std::string& path, Mode mode)
    : m_comm(comm), m_path(path), m_h(std::make_unique<Handles>()) {
  m_h->lock_path = path + ".lock";
  m_h->lock = lock_file(comm, m_h->lock_path, path);
  // A file that is not HDF5 at all (empty, cut before its superblock) is named as such here:
  // MPI-IO may open it and leave the reader to find empty slots.
  if (mode == Mode::Open &&
      comm.max(static_cast<long long>(comm.is_root() && H5Fis_hdf5(path.c_str()) <= 0)) > 0)
    throw CollectiveError("cannot open the checkpoint file " + path +
                          " for resuming: it is missing, truncated or not an HDF5 file; run the "
                          "gradient again without --resume");
  const hid_t access = parallel_file_access(comm);
  if (mode == Mode::Create)
    m_h->file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
  else
    m_h->file = H5Fopen(path.c_str(), H5F_ACC_RDWR, access);
  H5Pclose(access);
  if (m_h->file < 0 && mode == Mode::Create)
    throw CollectiveError("cannot create the checkpoint file " + path +
                          ": check that checkpoint.disk_dir exists and is writable");
  if (m_h->file < 0)
    throw CollectiveError("cannot open the checkpoint file " + path +
                          " for resuming: it is missing, truncated or not an HDF5 file; run the "
                          "gradient again without --resume");
  m_h->transfer = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(m_h->transfer, H5FD_MPIO_COLLECTIVE);
}

SlotFile::~SlotFile() {
  if (m_h->transfer >= 0)
    H5Pclose(m_h->transfer);
  if (m_h->file >= 0)
    H5Fclose(m_h->file);
} // the lock goes with m_h, after the file is closed

void SlotFile::reserve(int slot, std::size_t values) {
  SlotShape shape;
  shape.count = values;
  unsigned long long mine = values, before = 0, total = 0;
  MPI_Exscan(&mine, &before, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, m_comm.raw());
  MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, m_comm.raw());
  shape.offset = m_comm.rank() == 0 ? 0 : before;
  shape.total = total;
  const std::string group = group_of(slot);
  const hsize_t ranks = static_cast<hsize_t>(m_comm.size());
  const auto rank = static_cast<hsize_t>(m_comm.rank());
  long long bad = 0;
  if (H5Lexists(m_h->file, group.c_str(), H5P_DEFAULT) > 0) {
    // An existing slot (a resumed run): its sizes must be this run's.
    const hid_t counts = H5Dopen2(m_h->file, (group + "/counts").c_str(), H5P_DEFAULT);
    hsize_t stored_ranks = 0;
    if (counts >= 0) {
      const hid_t a = H5Dget_space(counts);
      H5Sget_simple_extent_dims(a, &stored_ranks, nullptr);
      H5Sclose(a);
    }
    unsigned long long stored = 0;
    const bool same_shape = counts >= 0 && stored_ranks == ranks;
    if (m_comm.max(static_cast<long long>(!same_shape)) == 0)
      transfer(false, counts, H5T_NATIVE_ULLONG, m_h->transfer, 1, rank, 1, &stored);
    bad = !same_shape || stored != mine;
    if (counts >= 0)
      H5Dclose(counts);
    if (m_comm.max(bad) > 0)
      throw CollectiveError(format("checkpoint slot %.0f in ", slot) + m_path +
                            " was written by another case, grid or number of ranks: resume with "
                            "the same case file and rank count, or run without --resume");
  } else {
    const hid_t g = H5Gcreate2(m_h->file, group.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t state_dims[2] = {ranks, 2};
    const hid_t v = create_dataset(g, "values", H5T_NATIVE_DOUBLE, 1, &shape.total);
    const hid_t c = create_dataset(g, "counts", H5T_NATIVE_ULLONG, 1, &ranks);
    const hid_t s = create_dataset(g, "state", H5T_NATIVE_LLONG, 2, state_dims);
    long long empty[2] = {-1, 0};
    const bool made = g >= 0 && v >= 0 && c >= 0 && s >= 0;
    bad = !made;
    if (made) {
      bad |= transfer(true, c, H5T_NATIVE_ULLONG, m_h->transfer, 1, rank, 1, &mine) < 0;
      bad |= transfer(true, s, H5T_NATIVE_LLONG, m_h->transfer, 2, rank, 1, empty) < 0;
    }
    for (hid_t id : {v, c, s})
      if (id >= 0)
        H5Dclose(id);
    if (g >= 0)
      H5Gclose(g);
    H5Fflush(m_h->file, H5F_SCOPE_GLOBAL);
    if (m_comm.max(bad) > 0)
      throw CollectiveError(format("cannot allocate checkpoint slot %.0f in ", slot) + m_path +
                            " (disk full or quota?): free space in checkpoint.disk_dir or "
                            "lower checkpoint.disk_slots");
  }
  m_h->slots[slot] = shape;
}

void SlotFile::write(int slot, long step, const std::vector<SlotPiece>& pieces) {
  const auto start = std::chrono::steady_clock::now();
  const auto it = m_h->slots.find(slot);
  const std::size_t size = total_size(pieces);
  if (it == m_h->slots.end() || it->second.count != size)
    throw Error(format("SlotFile::write: slot %.0f was not reserved with this size", slot));
  const SlotShape& shape = it->second;
  const std::string group = group_of(slot);
  const hid_t v = H5Dopen2(m_h->file, (group + "/values").c_str(), H5P_DEFAULT);
  const hid_t s = H5Dopen2(m_h->file, (group + "/state").c_str(), H5P_DEFAULT);
  const auto rank = static_cast<hsize_t>(m_comm.rank());
  long long state[2] = {-1, 0};
  long long bad = transfer(true, s, H5T_NATIVE_LLONG, m_h->transfer, 2, rank, 1, state) < 0;
  // The state must be marked incomplete on disk before any value changes.
  H5Fflush(m_h->file, H5F_SCOPE_GLOBAL);
  // (An empty dataset takes no transfer: HDF5 refuses selections in it.)
  std::uint64_t values_sum = 0;
  if (shape.total > 0)
    bad |= transfer_pieces(true, v, m_h->transfer, shape.offset, pieces, values_sum);
  H5Fflush(m_h->file, H5F_SCOPE_GLOBAL);
  const std::uint64_t sum = slot_checksum(step, values_sum);
  state[0] = step;
  std::memcpy(&state[1], &sum, sizeof sum);
  bad |= transfer(true, s, H5T_NATIVE_LLONG, m_h->transfer, 2, rank, 1, state) < 0;
  H5Dclose(v);
  H5Dclose(s);
  bad |= H5Fflush(m_h->file, H5F_SCOPE_GLOBAL) < 0;
  m_written += 8.0 * double(size);
  m_seconds += seconds_since(start);
  if (m_comm.max(bad) > 0)
    throw CollectiveError(format("writing checkpoint slot %.0f to ", slot) + m_path +
                          " failed (disk full or quota?)");
}

long SlotFile::read(int slot, const std::vector<SlotPiece>& pieces) const {
  const auto start = std::chrono::steady_clock::now();
  const auto it = m_h->slots.find(slot);
  const std::size_t size = total_size(pieces);
  if (it == m_h->slots.end() || it->second.count != size)
    throw Error(format("SlotFile::read: slot %.0f was not reserved with this size", slot));
  const SlotShape& shape = it->second;
  const std::string group = group_of(slot);
  const hid_t v = H5Dopen2(m_h->file, (group + "/values").c_str(), H5P_DEFAULT);
  const hid_t s = H5Dopen2(m_h->file, (group + "/state").c_str(), H5P_DEFAULT);
  const auto rank = static_cast<hsize_t>(m_comm.rank());
  long long state[2] = {-1, 0};
  long long failed = transfer(false, s, H5T_NATIVE_LLONG, m_h->transfer, 2, rank, 1, state) < 0;
  std::uint64_t values_sum = 0;
  if (shape.total > 0)
    failed |= transfer_pieces(false, v, m_h->transfer, shape.offset, pieces, values_sum);
  H5Dclose(v);
  H5Dclose(s);
  m_read += 8.0 * double(size);
  m_seconds += seconds_since(start);
  if (m_comm.max(failed) > 0)
    throw CollectiveError(format("reading checkpoint slot %.0f from ", slot) + m_path +
                          " failed: the file is truncated or unreadable");
  if (m_comm.max(static_cast<long long>(state[0] < 0)) > 0)
    throw CollectiveError(format("checkpoint slot %.0f in ", slot) + m_path +
                          " is empty or was being written when the run stopped");
  const std::uint64_t sum = slot_checksum(state[0], values_sum);
  std::uint64_t stored = 0;
  std::memcpy(&stored, &state[1], sizeof stored);
  const long long corrupted = m_comm.sum(static_cast<long long>(sum != stored));
  if (corrupted > 0)
    throw CollectiveError(format("checkpoint slot %.0f in ", slot) + m_path +
                          format(" does not match its checksum on %.0f rank(s): the file is "
                                 "corrupted (a disk or file-system error); delete it and run the "
                                 "gradient again without --resume",
                                 double(corrupted)));
  return state[0];
}

long SlotFile::step(int slot) const {
  long long state[2] = {-1, 0};
  const std::string group = group_of(slot);
  const bool exists = H5Lexists(m_h->file, group.c_str(), H5P_DEFAULT) > 0;
  if (exists) {
    const hid_t s = H5Dopen2(m_h->file, (group + "/state").c_str(), H5P_DEFAULT);
    if (transfer(false, s, H5T_NATIVE_LLONG, m_h->transfer, 2, static_cast<hsize_t>(m_comm.rank()),
                 1, state) < 0)
      state[0] = -1;
    H5Dclose(s);
  }
  const long long high = m_comm.max(static_cast<long long>(state[0]));
  const long long low = -m_comm.max(-static_cast<long long>(state[0]));
  return high == low ? static_cast<long>(low) : -1;
}

} // namespace io
} // namespace undertow
