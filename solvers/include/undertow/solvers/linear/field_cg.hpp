#pragma once
/// \file
/// Preconditioned conjugate gradients on one cell field, on Kokkos views: the device-resident
/// pressure solve. The operator and the preconditioner are callbacks (the multigrid's stencil
/// and V-cycle), so nothing crosses to the host but the scalars of the dot products.
///
/// It is the same method and the same convergence test as PETSc's KSPCG with its defaults, so
/// that the two solvers are interchangeable (PETSc stays the CPU reference):
/// - the residual norm tested is the preconditioned one, ||B r||;
/// - with the nonzero initial guess the projection method gives, the tolerance is relative to
///   ||B b|| (PETSc's KSPConvergedDefault), or to ||B r0|| when b = 0;
/// - a residual that exceeds dtol times that reference is reported (Diverged), and so are a
/// preconditioner or operator that is not positive (Indefinite) and non-finite values. With a
/// singular operator (constants as null space) every preconditioned residual is made mean-zero, as
/// PETSc's KSP does with a null space attached to the matrix.
///
/// Deterministic for a given decomposition: the same data gives the same iterations bitwise.

#include "undertow/core/communicator.hpp"
#include "undertow/core/field.hpp"

#include <functional>

namespace undertow {
namespace linear {

struct FieldCGSettings {
  double rtol = 1e-10;
  double atol = 1e-50;
  double dtol = 1e5; ///< PETSc's default divergence tolerance
  int max_iterations = 1000;
  bool singular = false; ///< the constants are the operator's null space
};

enum class FieldCGReason {
  Converged,     ///< the preconditioned residual reached the tolerance
  MaxIterations, ///< max_iterations reached first
  Diverged,      ///< the residual exceeds dtol times the reference (at the start: a bad guess)
  Indefinite,    ///< p.Ap <= 0 or z.r < 0: the operator or preconditioner is not SPD
  NotFinite      ///< a norm became NaN or infinite
};

struct FieldCGResult {
  FieldCGReason reason = FieldCGReason::MaxIterations;
  int iterations = 0;
  double residual = 0; ///< the last preconditioned residual norm ||B r||
  bool converged() const { return reason == FieldCGReason::Converged; }
};

class FieldCG {
 public:
  /// out := A x (the operator) or out := B x (the preconditioner) over the owned cells. The
  /// callback may fill x's ghosts and must not read out. Collective.
  using Apply = std::function<void(Field& x, Field& out)>;

  /// Scratch vectors are allocated like `like` (a cell field); the unknowns are its owned cells.
  /// `cells` is the global cell count (for means). Not collective.
  FieldCG(const Communicator& comm, const Field& like, double cells);

  /// Solves A x = b from the x given. With settings.singular, b must be mean-zero and x is
  /// returned mean-zero. Collective.
  FieldCGResult solve(const Apply& A, const Apply& B, const Field& b, Field& x,
                      const FieldCGSettings& settings);

  /// Sum of a . b over the owned cells. Collective.
  double dot(const Field& a, const Field& b) const;
  /// Subtracts the mean of the owned values over the `cells` of the whole grid. Collective.
  void remove_mean(Field& f) const;

 private:
  const Communicator& m_comm;
  double m_cells;
  Field m_r, m_z, m_p, m_w;
};

/// "converged", "diverged from its initial guess", ...: for messages.
const char* describe(FieldCGReason reason);

} // namespace linear
} // namespace undertow
