#include "memory_check.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <mpi.h>
#include <petscsys.h>
#include <unistd.h>

#include <cmath>
#include <limits>

namespace undertow {
namespace jobs {

std::string human_bytes(double bytes, bool round_up) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (u < 6 && bytes >= 1024.0) {
    bytes /= 1024.0;
    ++u;
  }
  if (round_up)
    bytes = u == 0 ? std::ceil(bytes) : std::ceil(bytes * 100.0) / 100.0;
  return u == 0 ? format("%.0f bytes", bytes) : format("%.2f ", bytes) + units[u];
}

void check_memory_fits(const Domain& domain, double bytes_per_cell, const std::string& model) {
  const Communicator& comm = domain.comm();
  double cells = 1, total = 1;
  for (int a = 0; a < domain.dim(); ++a) {
    cells *= double(domain.cell_count(a));
    total *= double(domain.global_cells(a));
  }
  // PETSc numbers every unknown (a pressure per cell, up to 3 displacements per node) with
  // PetscInt.
  const double unknowns = 3.0 * total;
  if (unknowns > double(std::numeric_limits<PetscInt>::max()))
    throw ConfigError(format("domain.cells asks for %.3g cells: PETSc's ", total) +
                      std::to_string(8 * sizeof(PetscInt)) +
                      "-bit indices cannot number their unknowns. Use fewer cells, or a PETSc "
                      "built with --with-64-bit-indices");
  // The ranks on this node share its memory.
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm.raw(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node);
  double need = cells * bytes_per_cell, node_need = 0;
  MPI_Allreduce(&need, &node_need, 1, MPI_DOUBLE, MPI_SUM, node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  MPI_Comm_free(&node);
  const double have = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  const double worst_need = comm.max(node_need);
  const bool too_big = comm.max(have > 0 && node_need > have ? 1.0 : 0.0) > 0;
  if (too_big)
    throw ConfigError(format("domain.cells asks for %.3g cells; the ", total) + model +
                      " model needs at least " + human_bytes(bytes_per_cell) +
                      " per cell, so at least " + human_bytes(worst_need) + " on a node of " +
                      std::to_string(node_ranks) + " rank(s), which has " + human_bytes(have) +
                      ". Use fewer cells, or more nodes");
}

} // namespace jobs
} // namespace undertow
