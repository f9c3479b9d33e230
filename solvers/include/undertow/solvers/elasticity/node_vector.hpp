#pragma once
/// \file
/// Vectors of node values (displacements, forces, multipliers) and what one linear solve did.

#include "undertow/core/field.hpp"

#include <array>
#include <string>

namespace undertow {
namespace elasticity {

/// Node fields of the displacement-like quantities: component c in [c], dim of them used.
using NodeVector = std::array<Field, 3>;

/// out := a x + b y over every local value (ghosts included) of components 0 to dim - 1; y may
/// be null (then b is not used). `out` may be x or y. Not collective.
void combine(int dim, double a, const NodeVector& x, double b, const NodeVector* y,
             NodeVector& out);

/// Fresh zeroed node fields of `domain` with ghost width 1, named name_x, name_y, name_z.
/// Not collective.
NodeVector make_node_vector(const Domain& domain, const std::string& name);

/// Sum over owned nodes and components 0 to dim - 1 of a . b. Collective.
double dot(const Communicator& comm, int dim, const NodeVector& a, const NodeVector& b);

/// What one linear solve did.
struct SolveInfo {
  long iterations = 0;
  double residual = 0;         ///< final preconditioned residual norm
  double seconds_assembly = 0; ///< K(rho) into PETSc and the supports imposed (this rank)
  double seconds_solve = 0;    ///< KSP set-up (GAMG hierarchy or LU factors) and solve
};

} // namespace elasticity
} // namespace undertow
