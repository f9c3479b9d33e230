#pragma once
/// \file
/// The PETSc side of the elasticity solver: the operator as an AIJ matrix filled from COO values
/// in the numbering's rows, with the rigid-body modes as its near null space, and a KSP (CG with
/// GAMG, or LU through MUMPS). Its options have the prefix elasticity_ and live in the solver's
/// own options database, never in PETSc's global one. Vectors cross as packed owned node values.

#include "undertow/solvers/elasticity/assembler.hpp"
#include "undertow/solvers/elasticity/spec.hpp"
#include "undertow/solvers/elasticity/supports.hpp"
#include "undertow/solvers/linear/petsc_options.hpp"

#include <petscksp.h>

namespace undertow {
namespace elasticity {

class LinearSystem {
 public:
  /// Creates the matrix with the COO pattern of every owned element of `cells`, its near null
  /// space from the owned nodes' coordinates, the vectors and the KSP of `spec` (linear solver,
  /// tolerances). Collective.
  LinearSystem(const Domain& domain, const NodeNumbering& numbering, const Assembler& assembler,
               const Field& cells, const ElasticitySpec& spec);

  /// Device buffer of the COO values, in the pattern's order; fill it (Assembler::coo_values),
  /// then call set_matrix. Not collective.
  const Assembler::Values& coo_values() const { return m_coo_values; }
  /// The matrix takes the COO values. Collective.
  void set_matrix();
  /// Replaces the supported rows and columns by those of the identity and makes the matrix the
  /// KSP's operator. With `prescribed`, the right-hand side is corrected for the prescribed
  /// values held in the solution vector (the forward solve); without, both vectors are left
  /// alone (a homogeneous operator). Collective.
  void impose_supports(const Supports& supports, bool prescribed);

  /// The right-hand side b and the solution x from node vectors (owned values). Collective.
  void set_rhs(const NodeVector& v);
  void set_solution(const NodeVector& v);
  /// Sets entries `rows` of b or x to `values` (supported rows). Collective.
  void set_rhs_entries(const std::vector<PetscInt>& rows, const std::vector<PetscScalar>& values);
  void set_solution_entries(const std::vector<PetscInt>& rows,
                            const std::vector<PetscScalar>& values);
  /// x := 0. Collective.
  void zero_solution();
  /// Solves from the current x (nonzero_guess) or from 0. Throws CollectiveError naming `what`
  /// and PETSc's reason if it does not converge. Collective.
  SolveInfo solve(const char* what, bool nonzero_guess);
  /// Sets the solver up for the current operator (the preconditioner) without solving.
  /// Collective.
  void set_up();
  /// The owned values of x into `v` (ghosts not filled). Collective.
  void get_solution(NodeVector& v);

 private:
  using VecHandle = linear::PetscHandle<Vec, VecDestroy>;
  void to_petsc(const NodeVector& v, Vec out);

  int m_dim;
  bool m_direct;
  linear::SolverOptions m_options;
  linear::PetscHandle<Mat, MatDestroy> m_matrix;
  VecHandle m_x, m_b, m_coordinates;
  linear::PetscHandle<MatNullSpace, MatNullSpaceDestroy> m_rigid_body;
  linear::PetscHandle<KSP, KSPDestroy> m_ksp;
  /// Owned values packed dim per node in PETSc's order, on the device; COO values of the owned
  /// elements on the device and on the host. Allocated once, reused by every solve.
  Kokkos::View<double*, MemorySpace> m_packed;
  Assembler::Values m_coo_values;
  Assembler::Values::HostMirror m_coo_values_host;
};

} // namespace elasticity
} // namespace undertow
