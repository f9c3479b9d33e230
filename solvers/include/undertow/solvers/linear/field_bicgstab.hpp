#pragma once
/// \file
/// BiCGStab (van der Vorst 1992) with a diagonal (Jacobi) preconditioner, on Kokkos views: the
/// unknowns are up to three fields (the components of a staggered velocity), each restricted to
/// an index space of its owned points. The operator is a callback, so that matrix-free stencils
/// with their ghost updates serve as the matrix and their transposes as its transpose; nothing
/// crosses to the host but the scalars of the dot products. Used by the implicit viscous
/// (Helmholtz) solves of the Navier-Stokes solver and their transposes in the adjoint.
///
/// Deterministic for a given decomposition: a solve from the same data repeats the same
/// iterations bitwise, so that checkpointed and recomputed steps agree.

#include "undertow/core/communicator.hpp"
#include "undertow/core/field.hpp"

#include <array>
#include <functional>
#include <string>

namespace undertow {
namespace linear {

/// Three fields: one per component (unused ones empty).
using FieldTriple = std::array<Field, 3>;

struct KrylovResult {
  int iterations = 0;
  double residual = 0;  ///< final ||b - A x|| (the recurrence's value)
  double reference = 0; ///< the norm the tolerance is relative to
  bool converged = false;
};

class FieldBiCGStab {
 public:
  /// y := A x on the spaces. The operator may write into x outside the spaces (ghosts, boundary
  /// points) and must not read y. Collective.
  using Operator = std::function<void(FieldTriple& x, FieldTriple& y)>;

  /// Unknowns: component c of `like` (fields with storage) over spaces[c]. Scratch vectors are
  /// allocated like them. Not collective.
  FieldBiCGStab(const Communicator& comm, const FieldTriple& like,
                const std::array<IndexSpace, 3>& spaces);

  /// The preconditioner M^-1, a diagonal, asked for when the solve first iterates: a solve
  /// that starts converged does not build it. Collective if building it is.
  using InverseDiagonal = std::function<const FieldTriple&()>;

  /// Solves A x = b from the x given, until ||b - A x|| <= rtol * reference (reference: ||b||
  /// if <= 0), or max_iterations. inverse_diagonal: the preconditioner M^-1 (right
  /// preconditioning, so the residual is the true one's recurrence). zero_guess: x is zero on
  /// the spaces and its ghosts, so A x = 0 is not applied (the same residual, bitwise). Returns
  /// what happened; a breakdown ends the solve unconverged. Collective.
  KrylovResult solve(const Operator& A, const InverseDiagonal& inverse_diagonal,
                     const FieldTriple& b, FieldTriple& x, double rtol, int max_iterations,
                     double reference = 0.0, bool zero_guess = false);

  /// Sum over the components of the dot products over the spaces. Collective.
  double dot(const FieldTriple& a, const FieldTriple& b) const;

 private:
  const Communicator& m_comm;
  std::array<IndexSpace, 3> m_spaces;
  int m_count = 0; ///< components with storage
  FieldTriple m_r, m_r0, m_p, m_v, m_s, m_t, m_phat, m_shat;
};

} // namespace linear
} // namespace undertow
