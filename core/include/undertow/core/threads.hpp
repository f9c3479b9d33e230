#pragma once
/// \file
/// How many threads each MPI rank runs on a threaded Kokkos backend (OpenMP), for hybrid
/// MPI + threads runs. Without a choice of their own, Kokkos and OpenMP give every process all
/// the node's cores, so that 4 ranks on a 16-core node would run 64 threads; here, unless the
/// user chose (OMP_NUM_THREADS, or Kokkos' --kokkos-threads / --kokkos-num-threads), a rank
/// runs as many threads as CPUs it may run on, shared among the ranks of its node that may run
/// on exactly the same CPUs:
/// - a rank the launcher bound to its own cores (OpenMPI binds small jobs to one core each;
///   `mpiexec --map-by ppr:N:node:pe=T` gives each rank T cores) runs one thread per core;
/// - unbound ranks (`mpiexec --bind-to none`: each may run on every CPU of the node, or of its
///   container) split those CPUs between them, at least one thread each.
/// Nothing changes on other backends (Serial, CUDA).

#include "undertow/core/communicator.hpp"

#include <mpi.h>
#include <string>

namespace undertow {

/// Sets the OpenMP thread count of this rank as above, before Kokkos is initialised, and returns
/// it (1 on a backend without threads, 0 where the user chose). `argc`/`argv` are the program's
/// arguments, read for Kokkos' thread options. Collective over `comm` (it counts the node's
/// ranks).
int choose_threads_per_rank(MPI_Comm comm, int argc, char** argv);

/// Kokkos for the lifetime of the object, started after MPI with this rank's threads chosen by
/// choose_threads_per_rank(): how every undertow program starts Kokkos (Kokkos reads its own
/// options from `argc`/`argv`). Collective over `comm`.
class KokkosSession {
 public:
  KokkosSession(MPI_Comm comm, int& argc, char** argv);
  ~KokkosSession();
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

/// The ranks and threads of this run, for its first log line: "2 MPI rank(s), Kokkos Serial",
/// or on a threaded backend "2 MPI rank(s), Kokkos OpenMP with 2 threads a rank" ("1-4 threads"
/// where the ranks differ). Collective over `comm`.
std::string parallel_layout(const Communicator& comm);

} // namespace undertow
