#include "undertow/core/mpi_start.hpp"

#include <cstdlib>
#include <mpi.h>

namespace undertow {

bool started_by_mpi_launcher() {
  // Open MPI's mpiexec; PMIx (Open MPI 5, srun --mpi=pmix); PMI-1/2 (MPICH's Hydra, srun
  // --mpi=pmi2).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_FD", "PMI_SIZE"})
    if (std::getenv(name) != nullptr)
      return true;
  return false;
}

void mpi_init(int& argc, char**& argv) {
#ifdef OPEN_MPI
  if (!started_by_mpi_launcher()) {
    ::setenv("OMPI_MCA_pml", "ob1", 0); // 0: a variable already set is kept
#if OMPI_MAJOR_VERSION < 5
    ::setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
#endif
  }
#endif
  MPI_Init(&argc, &argv);
}

} // namespace undertow
