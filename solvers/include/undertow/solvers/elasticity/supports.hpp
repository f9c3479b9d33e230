#pragma once
/// \file
/// The supports of an elasticity case: which displacement components of which nodes are
/// prescribed, and to what. They give the rows that the linear system replaces by the identity
/// (rows and columns zeroed, so the operator stays symmetric) and a mask that the adjoint uses.

#include "undertow/core/halo.hpp"
#include "undertow/solvers/elasticity/node_numbering.hpp"
#include "undertow/solvers/elasticity/node_vector.hpp"
#include "undertow/solvers/elasticity/spec.hpp"

#include <petscsys.h>

#include <vector>

namespace undertow {
namespace elasticity {

class Supports {
 public:
  /// Selects the nodes of each support's box (within a quarter cell). Throws ConfigError for a
  /// support that holds no node, or supports that leave a rigid-body motion free (naming it).
  /// Collective.
  Supports(const Domain& domain, const std::vector<Support>& supports,
           const NodeNumbering& numbering, HaloPlan& node_halo);

  /// 1 on supported components of owned and ghost nodes, 0 elsewhere.
  const NodeVector& mask() const { return m_mask; }
  /// Owned supported global rows (dim times the node's number plus the component), their
  /// prescribed values [m], and as many zeros (a homogeneous right-hand side).
  const std::vector<PetscInt>& rows() const { return m_rows; }
  const std::vector<PetscScalar>& values() const { return m_values; }
  const std::vector<PetscScalar>& zeros() const { return m_zeros; }

 private:
  NodeVector m_mask;
  std::vector<PetscInt> m_rows;
  std::vector<PetscScalar> m_values, m_zeros;
};

} // namespace elasticity
} // namespace undertow
