#include "undertow/solvers/elasticity/linear_system.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include "node_kernels.hpp"

namespace undertow {
namespace elasticity {

using linear::check_petsc;
using namespace detail;

namespace {

/// Owned node values to a packed array, dim values per node, nodes in PETSc's order.
void pack_owned(const NodeVector& v, int dim, const Kokkos::View<double*, MemorySpace>& out) {
  const NodeViews w = views_of(v);
  const KernelBox owned(v[0].owned());
  for_each(
      "elasticity::pack", v[0].owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long n = owned.packed(i, j, k);
        for (int c = 0; c < dim; ++c)
          out(dim * n + c) = w.c[c](i, j, k);
      });
}

void unpack_owned(const Kokkos::View<double*, MemorySpace>& in, int dim, NodeVector& v) {
  const NodeViews w = views_of(v);
  const KernelBox owned(v[0].owned());
  for_each(
      "elasticity::unpack", v[0].owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long n = owned.packed(i, j, k);
        for (int c = 0; c < dim; ++c)
          w.c[c](i, j, k) = in(dim * n + c);
      });
}

} // namespace

LinearSystem::LinearSystem(const Domain& domain, const NodeNumbering& numbering,
                           const Assembler& assembler, const Field& cells,
                           const ElasticitySpec& spec)
    : m_dim(domain.dim()), m_direct(spec.solver == LinearSolver::Direct) {
  const long entries = cells.owned().size() * assembler.entries_per_element();
  Assembler::Indices rows("elasticity::coo_rows", entries), cols("elasticity::coo_cols", entries);
  assembler.coo_pattern(cells, numbering.numbers(), rows, cols);
  auto rows_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
  auto cols_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cols);
  const MPI_Comm comm = domain.comm().raw();
  const PetscInt local = static_cast<PetscInt>(m_dim * numbering.owned_nodes());
  if (!m_direct) {
    // SIMP stiffness contrasts of 1e9 make GAMG's default Chebyshev smoothers, which take their
    // largest eigenvalue from the smoothed-aggregation estimate, amplify some modes: CG then
    // stops with DIVERGED_INDEFINITE_PC (seen on the MBB beam at 480 x 160). A CG estimate per
    // level with a 1.2 safety factor keeps the preconditioner positive. Options the user gives
    // (prefix elasticity_) win.
    m_options.set_default("-elasticity_pc_gamg_use_sa_esteig", "0");
    m_options.set_default("-elasticity_pc_gamg_esteig_ksp_type", "cg");
    m_options.set_default("-elasticity_mg_levels_ksp_chebyshev_esteig", "0,0.1,0,1.2");
  }
  const auto active = m_options.activate();
  check_petsc(MatCreate(comm, m_matrix.out()), "MatCreate");
  check_petsc(MatSetSizes(m_matrix, local, local, PETSC_DETERMINE, PETSC_DETERMINE), "MatSetSizes");
  check_petsc(MatSetBlockSize(m_matrix, m_dim), "MatSetBlockSize");
  check_petsc(MatSetType(m_matrix, MATAIJ), "MatSetType");
  check_petsc(MatSetOptionsPrefix(m_matrix, "elasticity_"), "MatSetOptionsPrefix");
  check_petsc(MatSetFromOptions(m_matrix), "MatSetFromOptions");
  check_petsc(MatSetPreallocationCOO(m_matrix, static_cast<PetscCount>(entries), rows_h.data(),
                                     cols_h.data()),
              "MatSetPreallocationCOO");
  check_petsc(MatSetOption(m_matrix, MAT_SYMMETRIC, PETSC_TRUE), "MatSetOption");
  PetscInt first_row = 0;
  check_petsc(MatGetOwnershipRange(m_matrix, &first_row, nullptr), "MatGetOwnershipRange");
  if (first_row != m_dim * numbering.first_node())
    throw Error("elasticity: the node numbering disagrees with PETSc's row ownership (rank " +
                std::to_string(domain.comm().rank()) + "): a bug; please report it");
  check_petsc(MatCreateVecs(m_matrix, m_x.out(), m_b.out()), "MatCreateVecs");

  // Rigid-body modes from the owned nodes' coordinates.
  check_petsc(VecDuplicate(m_x, m_coordinates.out()), "VecDuplicate");
  check_petsc(VecSetBlockSize(m_coordinates, m_dim), "VecSetBlockSize");
  NodeVector xyz = make_node_vector(domain, "elasticity::coordinates");
  for (int c = 0; c < m_dim; ++c) {
    auto host = Kokkos::create_mirror_view(xyz[c].view());
    const GridGeometry g = xyz[c].geometry();
    const IndexSpace s = xyz[c].owned();
    for (long k = s.begin[2]; k < s.end[2]; ++k)
      for (long j = s.begin[1]; j < s.end[1]; ++j)
        for (long i = s.begin[0]; i < s.end[0]; ++i)
          host(i, j, k) = g.coordinate(c, c == 0 ? i : c == 1 ? j : k);
    Kokkos::deep_copy(xyz[c].view(), host);
  }
  m_packed =
      Kokkos::View<double*, MemorySpace>("elasticity::packed", m_dim * numbering.owned_nodes());
  m_coo_values = Assembler::Values("elasticity::coo_values", entries);
  m_coo_values_host = Kokkos::create_mirror_view(m_coo_values);
  to_petsc(xyz, m_coordinates);
  check_petsc(MatNullSpaceCreateRigidBody(m_coordinates, m_rigid_body.out()),
              "MatNullSpaceCreateRigidBody");
  check_petsc(MatSetNearNullSpace(m_matrix, m_rigid_body), "MatSetNearNullSpace");

  check_petsc(KSPCreate(comm, m_ksp.out()), "KSPCreate");
  check_petsc(KSPSetOptionsPrefix(m_ksp, "elasticity_"), "KSPSetOptionsPrefix");
  PC pc;
  check_petsc(KSPGetPC(m_ksp, &pc), "KSPGetPC");
  if (m_direct) {
    check_petsc(KSPSetType(m_ksp, KSPPREONLY), "KSPSetType");
    check_petsc(PCSetType(pc, PCLU), "PCSetType");
    check_petsc(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS), "PCFactorSetMatSolverType");
  } else {
    check_petsc(KSPSetType(m_ksp, KSPCG), "KSPSetType");
    check_petsc(PCSetType(pc, PCGAMG), "PCSetType");
    check_petsc(KSPSetNormType(m_ksp, KSP_NORM_UNPRECONDITIONED), "KSPSetNormType");
    check_petsc(KSPSetTolerances(m_ksp, spec.rtol, 0.0, PETSC_DEFAULT,
                                 static_cast<PetscInt>(spec.max_iterations)),
                "KSPSetTolerances");
  }
  try {
    check_petsc(KSPSetFromOptions(m_ksp), "KSPSetFromOptions");
  } catch (const Error& e) {
    // The user's options (PETSC_OPTIONS, ~/.petscrc) are the same on every rank.
    throw ConfigError(std::string("the elasticity solver's PETSc options (prefix elasticity_, "
                                  "from PETSC_OPTIONS or ~/.petscrc) were refused: ") +
                      e.what());
  }
}

void LinearSystem::to_petsc(const NodeVector& v, Vec out) {
  pack_owned(v, m_dim, m_packed);
  PetscScalar* a = nullptr;
  check_petsc(VecGetArray(out, &a), "VecGetArray");
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      a, m_packed.extent(0));
  Kokkos::deep_copy(host, m_packed);
  check_petsc(VecRestoreArray(out, &a), "VecRestoreArray");
}

void LinearSystem::get_solution(NodeVector& v) {
  const PetscScalar* a = nullptr;
  check_petsc(VecGetArrayRead(m_x, &a), "VecGetArrayRead");
  Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
      a, m_packed.extent(0));
  Kokkos::deep_copy(m_packed, host);
  check_petsc(VecRestoreArrayRead(m_x, &a), "VecRestoreArrayRead");
  unpack_owned(m_packed, m_dim, v);
}

void LinearSystem::set_matrix() {
  Kokkos::deep_copy(m_coo_values_host, m_coo_values);
  check_petsc(MatSetValuesCOO(m_matrix, m_coo_values_host.data(), INSERT_VALUES),
              "MatSetValuesCOO");
}

void LinearSystem::impose_supports(const Supports& supports, bool prescribed) {
  check_petsc(MatZeroRowsColumns(m_matrix, static_cast<PetscInt>(supports.rows().size()),
                                 supports.rows().data(), 1.0, prescribed ? m_x.get() : nullptr,
                                 prescribed ? m_b.get() : nullptr),
              "MatZeroRowsColumns");
  check_petsc(KSPSetOperators(m_ksp, m_matrix, m_matrix), "KSPSetOperators");
}

void LinearSystem::set_rhs(const NodeVector& v) {
  to_petsc(v, m_b);
}

void LinearSystem::set_solution(const NodeVector& v) {
  to_petsc(v, m_x);
}

namespace {
void set_entries(Vec v, const std::vector<PetscInt>& rows, const std::vector<PetscScalar>& values) {
  check_petsc(VecSetValues(v, static_cast<PetscInt>(rows.size()), rows.data(), values.data(),
                           INSERT_VALUES),
              "VecSetValues");
  check_petsc(VecAssemblyBegin(v), "VecAssemblyBegin");
  check_petsc(VecAssemblyEnd(v), "VecAssemblyEnd");
}
} // namespace

void LinearSystem::set_rhs_entries(const std::vector<PetscInt>& rows,
                                   const std::vector<PetscScalar>& values) {
  set_entries(m_b, rows, values);
}

void LinearSystem::set_solution_entries(const std::vector<PetscInt>& rows,
                                        const std::vector<PetscScalar>& values) {
  set_entries(m_x, rows, values);
}

void LinearSystem::zero_solution() {
  check_petsc(VecSet(m_x, 0.0), "VecSet");
}

void LinearSystem::set_up() {
  const auto active = m_options.activate();
  check_petsc(KSPSetUp(m_ksp), "KSPSetUp");
}

SolveInfo LinearSystem::solve(const char* what, bool nonzero_guess) {
  check_petsc(KSPSetInitialGuessNonzero(m_ksp, nonzero_guess ? PETSC_TRUE : PETSC_FALSE),
              "KSPSetInitialGuessNonzero");
  const auto active = m_options.activate();
  check_petsc(KSPSolve(m_ksp, m_b, m_x), "KSPSolve");
  KSPConvergedReason reason;
  PetscInt its = 0;
  PetscReal rnorm = 0;
  check_petsc(KSPGetConvergedReason(m_ksp, &reason), "KSPGetConvergedReason");
  check_petsc(KSPGetIterationNumber(m_ksp, &its), "KSPGetIterationNumber");
  check_petsc(KSPGetResidualNorm(m_ksp, &rnorm), "KSPGetResidualNorm");
  if (reason < 0)
    throw CollectiveError(std::string("elasticity: the ") + what + " solve did not converge (" +
                          KSPConvergedReasons[reason] + ") after " + std::to_string(its) +
                          format(" iterations, residual %.3e. ", double(rnorm)) +
                          "Check that the supports stop every rigid-body motion and that "
                          "E_min > 0 where densities reach 0, or raise "
                          "elasticity.max_iterations.");
  SolveInfo info;
  info.iterations = its;
  info.residual = rnorm;
  return info;
}

} // namespace elasticity
} // namespace undertow
