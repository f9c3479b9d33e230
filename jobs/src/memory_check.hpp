#pragma once
// A grid that cannot fit is refused before anything is allocated, with the estimate and the
// machine's memory, instead of failing inside an allocation (MPI_Abort) minutes later.

#include "undertow/core/domain.hpp"

#include <string>

namespace undertow {
namespace jobs {

/// Throws ConfigError if the fields of `domain` need more memory than a node has:
/// `bytes_per_cell` (a lower bound of the model's use, measured) times the cells of the ranks
/// that share a node, against that node's physical memory; or if the grid has more unknowns
/// than PETSc's indices can number. `model` names the model in the message. Collective.
void check_memory_fits(const Domain& domain, double bytes_per_cell, const std::string& model);

/// "12.30 GiB" (and bytes, KiB, MiB, TiB, ...); rounded up in its last digit with `round_up`
/// (for a least amount). Not collective.
std::string human_bytes(double bytes, bool round_up = false);

} // namespace jobs
} // namespace undertow
