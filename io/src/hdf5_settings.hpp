#pragma once
/// \file
/// The HDF5 settings of every undertow file, in this one place (internal to io/).

#include "undertow/core/communicator.hpp"

#include <hdf5.h>

namespace undertow {
namespace io {

/// File-access properties for a file opened by every rank of `comm` (the caller closes them):
/// - the MPI-IO driver on `comm`;
/// - collective metadata reads and writes: one rank reads, all receive; no metadata storms;
/// - objects of 1 MiB or more start on 1 MiB boundaries, the stripe size of typical parallel
///   file systems (Lustre, GPFS), so that collective writes do not straddle stripes;
/// - datasets are contiguous, not chunked (the callers' choice): each is written by collective
///   hyperslab transfers, the fastest layout for that and the simplest for other readers.
/// Also silences HDF5's own error-stack printing: failures are reported through our errors.
/// Not collective.
inline hid_t parallel_file_access(const Communicator& comm) {
  const hid_t access = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(access, comm.raw(), MPI_INFO_NULL);
  H5Pset_all_coll_metadata_ops(access, true);
  H5Pset_coll_metadata_write(access, true);
  H5Pset_alignment(access, 1 << 20, 1 << 20);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  return access;
}

} // namespace io
} // namespace undertow
