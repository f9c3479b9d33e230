#pragma once
/// \file
/// The pressure Poisson equation of the projection method on the MAC grid, solved with PETSc KSP
/// on a DMDA whose ownership matches the Domain rank for rank.
///
/// The operator is L = D G: G is the face gradient (p_i - p_{i-1}) / h on faces where the normal
/// velocity is free, and D the cell divergence. At a wall or inflow face the normal velocity is
/// prescribed, so that face takes no gradient (homogeneous Neumann). At an outflow face the
/// pressure is 0 on the face (ghost -p). With no Dirichlet face, L is singular with the constants
/// as null space; right-hand sides are then projected to zero mean and the solution has zero mean.
///
/// We solve (-L) p = -b, because -L is symmetric positive (semi-)definite, with CG. On a
/// stretched grid (DomainSpec::faces) G and D divide by the distance between cell centres and by
/// the cell width, and the symmetric system is V (-L) p = -V b, V the cell volumes; the V-cycle,
/// an approximation of (-L)^-1, then preconditions it as (-L)^-1 V^-1, symmetric too. The
/// preconditioner is one V-cycle of our geometric multigrid (multigrid.hpp) wherever the grid
/// allows a hierarchy, else hypre BoomerAMG (GAMG where PETSc has no hypre). Any PETSc option can
/// be set from the case file (e.g. '-pc_type hypre' replaces the multigrid); they are given
/// without prefix and applied under this solver's prefix.
///
/// Two implementations of the CG (PressureKrylov): PETSc's KSPCG on host vectors, the reference,
/// whose every iteration copies the field to the host and back when the kernels run on a device;
/// and our FieldCG (field_cg.hpp) on the Kokkos views with the multigrid's own stencil, the same
/// method and convergence test, through which nothing but scalars crosses to the host. The
/// default picks PETSc where the kernels' memory is the host's, FieldCG elsewhere (a GPU). On a
/// stretched grid FieldCG solves the same volume-weighted system, with the multigrid's line
/// smoother (PoissonSpec::smoother).

#include "undertow/solvers/linear/field_cg.hpp"
#include "undertow/solvers/linear/multigrid.hpp"
#include "undertow/solvers/linear/petsc_options.hpp"

#include <array>
#include <memory>
#include <petscdmda.h>
#include <petscksp.h>
#include <string>

namespace undertow {
namespace linear {

/// The preconditioner of the pressure CG.
enum class PressurePreconditioner {
  /// geometric multigrid where the grid allows it, else hypre BoomerAMG (or GAMG); BoomerAMG on
  /// stretched grids unless the Kokkos CG solves (faster on CPUs, docs/performance.md)
  Auto,
  Multigrid, ///< geometric multigrid (multigrid.hpp); an error if the grid does not allow it
  Hypre,     ///< hypre BoomerAMG
  Gamg       ///< PETSc's smoothed-aggregation AMG
};

/// The smoother of the geometric multigrid.
enum class MultigridSmoother {
  Auto,   ///< points on uniform grids, lines on stretched ones
  Points, ///< red-black Gauss-Seidel
  Lines   ///< alternating zebra line relaxation (line_relaxation.hpp)
};

/// Which CG runs the pressure solve.
enum class PressureKrylov {
  Auto,  ///< PETSc where the kernels' memory space is the host's, else Kokkos
  Petsc, ///< PETSc's KSPCG on host vectors (any preconditioner, any PETSc option)
  Kokkos ///< FieldCG on the fields' own memory, preconditioned by the geometric multigrid
};

struct PoissonSpec {
  /// Per face: x-, x+, y-, y+, z-, z+. Ignored on periodic axes.
  PressureFaces faces{PressureBoundary::Neumann, PressureBoundary::Neumann,
                      PressureBoundary::Neumann, PressureBoundary::Neumann,
                      PressureBoundary::Neumann, PressureBoundary::Neumann};
  PressurePreconditioner preconditioner = PressurePreconditioner::Auto;
  PressureKrylov krylov = PressureKrylov::Auto;
  MultigridSmoother smoother = MultigridSmoother::Auto;
  double rtol = 1e-10; ///< relative residual reduction
  double atol = 1e-50; ///< absolute residual tolerance
  int max_iterations = 1000;
  /// The geometric multigrid's largest coarsest grid (MultigridSpec::max_coarsest_cells).
  long coarsest_cells = MultigridSpec::kDefaultMaxCoarsestCells;
  std::string prefix = "pressure_"; ///< PETSc options prefix
  std::string options;              ///< e.g. "-pc_type hypre -ksp_monitor"; applied under `prefix`
};

struct SolveStats {
  int iterations = 0;
  double residual = 0; ///< final (preconditioned) residual norm PETSc reports
};

class PressurePoisson {
 public:
  /// Creates the DMDA, assembles -L, sets up the KSP (and the FieldCG where it is chosen).
  /// Throws ConfigError naming pressure.petsc_options if PETSc refuses them, and naming
  /// pressure.krylov if the Kokkos CG is asked for with another preconditioner than the
  /// multigrid or with PETSc options. Collective over the domain's communicator.
  PressurePoisson(const Domain& domain, const PoissonSpec& spec);
  ~PressurePoisson();
  PressurePoisson(const PressurePoisson&) = delete;
  PressurePoisson& operator=(const PressurePoisson&) = delete;

  /// Solves L p = rhs over the owned cells (ghosts of p are not touched). Throws CollectiveError
  /// if the solver does not converge, naming the reason and the options that control it, and
  /// after the first solve ConfigError if no part of the solver read an option of
  /// pressure.petsc_options (misspelled, or not for this method). Collective.
  SolveStats solve(const Field& rhs, Field& p);

  /// out = L p over the owned cells, with the assembled matrix (for tests). Collective.
  void apply(const Field& p, Field& out);

  /// True if the operator has the constants as null space (no Dirichlet face).
  bool singular() const { return static_cast<bool>(m_null); }
  /// "cg + hypre" or "kokkos cg + geometric multigrid (...)": the Krylov method and
  /// preconditioner in use, after options. Not collective.
  std::string method() const;
  /// The geometric multigrid preconditioner, or null if another one is in use.
  const GeometricMultigrid* multigrid() const { return m_multigrid.get(); }

 private:
  using HostView = FieldView::HostMirror;
  /// Host copy of `f` (the field itself on host memory spaces).
  HostView host_copy(const Field& f);
  /// Owned values of `f` times `scale` into `v` (into_vec), or `v` times `scale` into `f`'s
  /// owned values (writing through its View). `weighted` on a stretched grid: times the cell
  /// volumes into `v`, divided by them out of it.
  void exchange(const Field& f, Vec v, double scale, bool into_vec, bool weighted = false);
  /// BoomerAMG's settings for 3D grids, as defaults under the prefix (the user's options win).
  void set_boomeramg_3d_defaults(PC pc);
  /// Chooses and configures the preconditioner of `ksp` from the spec.
  void setup_preconditioner(PC pc);
  /// PCSHELL callback: z = one multigrid V-cycle applied to r.
  static PetscErrorCode apply_multigrid(PC pc, Vec r, Vec z);
  /// KSP convergence test: the decisions of PETSc's default (KSPConvergedDefault) for CG with
  /// the preconditioned norm and a nonzero initial guess, made here:
  ///   - at the first iteration, an initial residual already below the absolute tolerance stops
  ///     the solve (KSP_CONVERGED_ATOL, as the default would), before the reference norm costs a
  ///     V-cycle: a solve whose previous solution is still good enough costs one V-cycle, not two;
  ///   - otherwise the reference is |B b| (B b with the null space removed, as KSP's own
  ///     preconditioner application does), and the tolerance max(rtol |B b|, atol), or |r_0|
  ///     for a zero b: the default's arithmetic, so the iterates and decisions are the same bits.
  ///     The default allocates the vector for B b at every solve and frees it; over a gradient of
  ///     10^5 steps those allocations fragmented the heap (its peak grew with the horizon,
  ///     docs/performance.md). Here it is m_preconditioned_b, kept.
  /// Then: a NaN or Inf residual diverges (KSP_DIVERGED_NANORINF), one below the tolerance
  /// converges (ATOL if below atol, else RTOL), one at or above dtol times the reference
  /// diverges (KSP_DIVERGED_DTOL). Installed only where case options leave PETSc's test alone.
  static PetscErrorCode converged(KSP ksp, PetscInt n, PetscReal rnorm, KSPConvergedReason* reason,
                                  void* context);
  /// Whether spec.krylov (or Auto on a device, where nothing asks for PETSc) chooses the
  /// FieldCG; and its set-up, after the preconditioner's.
  bool kokkos_krylov_wanted() const;
  void setup_krylov();
  /// solve() with PETSc's KSP, or with the FieldCG on the fields' memory.
  SolveStats solve_petsc(const Field& rhs, Field& p);
  SolveStats solve_kokkos(const Field& rhs, Field& p);
  /// Throws the error of a solve that did not converge (reason, iterations, residual).
  [[noreturn]] void throw_not_converged(const std::string& reason, const SolveStats& stats) const;

  const Domain& m_domain;
  PoissonSpec m_spec;
  SolverOptions m_options; ///< spec.options under spec.prefix, never in the global database
  PetscHandle<DM, DMDestroy> m_da;
  PetscHandle<Mat, MatDestroy> m_matrix;
  PetscHandle<KSP, KSPDestroy> m_ksp;
  PetscHandle<Vec, VecDestroy> m_x, m_b;
  PetscHandle<MatNullSpace, MatNullSpaceDestroy> m_null;
  HostView m_host; ///< reused host buffer on device memory spaces
  /// Per owned cell (x fastest), its volume, the weight of the rows of V (-L) on a stretched
  /// grid; empty on uniform cells.
  std::vector<double> m_volume;
  std::unique_ptr<GeometricMultigrid> m_multigrid;
  std::string m_multigrid_unavailable; ///< why the grid allows no hierarchy, if it does not
  std::unique_ptr<FieldCG> m_field_cg; ///< the Kokkos CG, where it is chosen
  Field m_field_b, m_field_x;          ///< its right-hand side and unknown, laid out as the MG's
  std::string m_pc_failure;            ///< what went wrong inside the PCSHELL callback
  PetscHandle<Vec, VecDestroy> m_preconditioned_b; ///< B b, for converged()'s reference norm
  double m_reference_norm = 0, m_tolerance = 0;    ///< |B b| and the tolerance of this solve
  bool m_options_checked = false;
  /// Throws ConfigError naming the options of pressure.petsc_options that nothing read.
  /// Collective in effect (every rank has the same options).
  void check_options_used();
};

} // namespace linear
} // namespace undertow
