#include "undertow/solvers/linear/pressure_poisson.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace undertow {
namespace linear {

namespace {

DMBoundaryType boundary_type(const Domain& d, int axis) {
  return d.periodic(axis) ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_NONE;
}

/// "-pc_type hypre" -> "-pressure_pc_type hypre".
std::string with_prefix(const std::string& options, const std::string& prefix) {
  std::istringstream in(options);
  std::string token, out;
  while (in >> token) {
    if (token.size() > 1 && token[0] == '-' &&
        !std::isdigit(static_cast<unsigned char>(token[1])) && token[1] != '.')
      token = "-" + prefix + token.substr(1);
    out += token + " ";
  }
  return out;
}

/// The volumes of this rank's cells, x fastest (the order of a DMDA vector's local part); empty
/// if every axis is uniform.
std::vector<double> owned_cell_volumes(const Domain& d) {
  std::vector<double> volume;
  if (d.all_uniform())
    return volume;
  std::array<std::vector<double>, 3> w;
  for (int a = 0; a < 3; ++a)
    w[a] = a < d.dim() ? d.cell_widths(a) : std::vector<double>(1, 1.0);
  for (long k = 0; k < d.cell_count(2); ++k)
    for (long j = 0; j < d.cell_count(1); ++j)
      for (long i = 0; i < d.cell_count(0); ++i)
        volume.push_back(w[0][std::size_t(d.cell_offset(0) + i)] *
                         w[1][std::size_t(d.cell_offset(1) + j)] *
                         w[2][std::size_t(d.cell_offset(2) + k)]);
  return volume;
}

} // namespace

PressurePoisson::PressurePoisson(const Domain& domain, const PoissonSpec& spec)
    : m_domain(domain), m_spec(spec) {
  const MPI_Comm comm = domain.comm().raw();
  const int dim = domain.dim();
  std::array<std::vector<PetscInt>, 3> counts;
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < domain.ranks_along(a); ++c)
      counts[a].push_back(static_cast<PetscInt>(domain.cell_count(a, c)));
  if (dim == 2)
    check_petsc(DMDACreate2d(comm, boundary_type(domain, 0), boundary_type(domain, 1),
                             DMDA_STENCIL_STAR, domain.global_cells(0), domain.global_cells(1),
                             domain.ranks_along(0), domain.ranks_along(1), 1, 1, counts[0].data(),
                             counts[1].data(), m_da.out()),
                "DMDACreate2d");
  else
    check_petsc(DMDACreate3d(comm, boundary_type(domain, 0), boundary_type(domain, 1),
                             boundary_type(domain, 2), DMDA_STENCIL_STAR, domain.global_cells(0),
                             domain.global_cells(1), domain.global_cells(2), domain.ranks_along(0),
                             domain.ranks_along(1), domain.ranks_along(2), 1, 1, counts[0].data(),
                             counts[1].data(), counts[2].data(), m_da.out()),
                "DMDACreate3d");
  check_petsc(DMSetUp(m_da), "DMSetUp");
  // Cell-centred unknowns: piecewise-constant transfer between multigrid levels.
  check_petsc(DMDASetInterpolationType(m_da, DMDA_Q0), "DMDASetInterpolationType");

  // The DMDA must own exactly our cells: same ranks, same boxes.
  PetscInt start[3] = {0, 0, 0}, width[3] = {1, 1, 1};
  check_petsc(
      DMDAGetCorners(m_da, &start[0], &start[1], &start[2], &width[0], &width[1], &width[2]),
      "DMDAGetCorners");
  for (int a = 0; a < dim; ++a)
    require(start[a] == domain.cell_offset(a) && width[a] == domain.cell_count(a),
            "PETSc DMDA ownership differs from the domain decomposition on axis " +
                std::to_string(a));

  check_petsc(DMCreateMatrix(m_da, m_matrix.out()), "DMCreateMatrix");
  check_petsc(MatSetOption(m_matrix, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE), "MatSetOption");
  // On a stretched grid the rows are those of V (-L), V the cell volume: symmetric
  // (cell_laplacian.hpp). Uniform cells have V = 1, and the rows are the plain -L, bitwise.
  std::array<AxisCouplings, 3> stretched;
  for (int a = 0; a < dim; ++a)
    if (!domain.uniform(a))
      stretched[a] = axis_couplings(domain.cell_widths(a), domain.periodic(a), spec.faces[2 * a],
                                    spec.faces[2 * a + 1]);
  m_volume = owned_cell_volumes(domain);
  for (int a = 0; a < dim; ++a) {
    const double inv_h2 = 1.0 / (domain.spacing(a) * domain.spacing(a));
    std::size_t cell = 0;
    for (PetscInt k = start[2]; k < start[2] + width[2]; ++k)
      for (PetscInt j = start[1]; j < start[1] + width[1]; ++j)
        for (PetscInt i = start[0]; i < start[0] + width[0]; ++i, ++cell) {
          const PetscInt here[3] = {i, j, k};
          const double volume = m_volume.empty() ? 1.0 : m_volume[cell];
          const auto coupling = [&](int side) {
            if (domain.uniform(a))
              return inv_h2;
            const std::size_t g = static_cast<std::size_t>(here[a]);
            return side == 0 ? stretched[a].lower[g] : stretched[a].upper[g];
          };
          MatStencil row{};
          row.i = i;
          row.j = j;
          row.k = k;
          for (int side = 0; side < 2; ++side) {
            const PetscInt step = side == 0 ? -1 : 1;
            const PetscInt there = here[a] + step;
            const bool outside = there < 0 || there >= domain.global_cells(a);
            if (outside && !domain.periodic(a)) {
              if (spec.faces[2 * a + side] == PressureBoundary::Dirichlet) {
                // p = 0 on the face: ghost = -p, so (ghost - p) / h^2 = -2 p / h^2.
                const PetscScalar value =
                    volume * (domain.uniform(a) ? 2.0 * inv_h2 : coupling(side));
                check_petsc(MatSetValuesStencil(m_matrix, 1, &row, 1, &row, &value, ADD_VALUES),
                            "MatSetValuesStencil");
              }
              continue;
            }
            MatStencil col = row;
            (a == 0 ? col.i : a == 1 ? col.j : col.k) = there; // DMDA wraps periodic indices
            const double c = volume * coupling(side);
            const PetscScalar values[2] = {c, -c};
            check_petsc(MatSetValuesStencil(m_matrix, 1, &row, 1, &row, &values[0], ADD_VALUES),
                        "MatSetValuesStencil");
            check_petsc(MatSetValuesStencil(m_matrix, 1, &row, 1, &col, &values[1], ADD_VALUES),
                        "MatSetValuesStencil");
          }
        }
  }
  check_petsc(MatAssemblyBegin(m_matrix, MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check_petsc(MatAssemblyEnd(m_matrix, MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  if (is_singular(domain, spec.faces)) {
    check_petsc(MatNullSpaceCreate(comm, PETSC_TRUE, 0, nullptr, m_null.out()),
                "MatNullSpaceCreate");
    check_petsc(MatSetNullSpace(m_matrix, m_null), "MatSetNullSpace");
  }
  check_petsc(MatSetOption(m_matrix, MAT_SPD, PETSC_TRUE), "MatSetOption(MAT_SPD)");

  check_petsc(DMCreateGlobalVector(m_da, m_x.out()), "DMCreateGlobalVector");
  check_petsc(VecDuplicate(m_x, m_b.out()), "VecDuplicate");

  check_petsc(KSPCreate(comm, m_ksp.out()), "KSPCreate");
  // The DMDA gives geometric multigrid (-pc_type mg) its grid hierarchy; inactive, so that the
  // KSP uses our assembled operator rather than asking the DM to compute one.
  check_petsc(KSPSetDM(m_ksp, m_da), "KSPSetDM");
  check_petsc(KSPSetDMActive(m_ksp, PETSC_FALSE), "KSPSetDMActive");
  check_petsc(KSPSetOperators(m_ksp, m_matrix, m_matrix), "KSPSetOperators");
  check_petsc(KSPSetType(m_ksp, KSPCG), "KSPSetType");
  PC pc = nullptr;
  check_petsc(KSPGetPC(m_ksp, &pc), "KSPGetPC");
  setup_preconditioner(pc);
  check_petsc(KSPSetTolerances(m_ksp, spec.rtol, spec.atol, PETSC_DEFAULT, spec.max_iterations),
              "KSPSetTolerances");
  check_petsc(KSPSetInitialGuessNonzero(m_ksp, PETSC_TRUE), "KSPSetInitialGuessNonzero");
  check_petsc(KSPSetOptionsPrefix(m_ksp, spec.prefix.c_str()), "KSPSetOptionsPrefix");
  m_options.insert(with_prefix(spec.options, spec.prefix));
  set_boomeramg_3d_defaults(pc);
  const auto active = m_options.activate();
  try {
    check_petsc(KSPSetFromOptions(m_ksp), "KSPSetFromOptions");
    check_petsc(KSPSetUp(m_ksp), "KSPSetUp");
    // converged() makes the default test's decisions for CG with the preconditioned norm and the
    // preconditioner on the left (CG's defaults, known once the KSP is set up). Case options may
    // choose another test, or flags of the default one, and anything else keeps PETSc's test.
    if (spec.options.empty()) {
      KSPNormType norm = KSP_NORM_DEFAULT;
      PCSide side = PC_SIDE_DEFAULT;
      check_petsc(KSPGetNormType(m_ksp, &norm), "KSPGetNormType");
      check_petsc(KSPGetPCSide(m_ksp, &side), "KSPGetPCSide");
      if (norm == KSP_NORM_PRECONDITIONED && side == PC_LEFT) {
        check_petsc(VecDuplicate(m_b, m_preconditioned_b.out()), "VecDuplicate");
        check_petsc(KSPSetConvergenceTest(m_ksp, &PressurePoisson::converged, this, nullptr),
                    "KSPSetConvergenceTest");
      }
    }
  } catch (const Error& e) {
    // Every rank reads the same options, so every rank fails alike: a configuration error.
    // Without case options the failure is not theirs to name.
    if (spec.options.empty())
      throw;
    throw ConfigError("pressure.petsc_options = '" + spec.options + "' was refused by PETSc: " +
                      e.what() + ". Check each option's name and value, or remove it.");
  }
  setup_krylov();
}

bool PressurePoisson::kokkos_krylov_wanted() const {
  using K = PressureKrylov;
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
  return m_spec.krylov == K::Kokkos ||
         (m_spec.krylov == K::Auto && !host && m_spec.options.empty() &&
          m_spec.preconditioner != PressurePreconditioner::Hypre &&
          m_spec.preconditioner != PressurePreconditioner::Gamg);
}

void PressurePoisson::setup_krylov() {
  if (!kokkos_krylov_wanted())
    return;
  if (m_spec.krylov == PressureKrylov::Auto && !m_multigrid)
    return; // no hierarchy on this grid: PETSc's CG
  if (!m_multigrid)
    throw ConfigError(
        "pressure.krylov = kokkos needs the geometric multigrid as preconditioner, "
        "but " +
        (m_multigrid_unavailable.empty()
             ? std::string("pressure.preconditioner names another")
             : "this grid does not allow a hierarchy (" + m_multigrid_unavailable + ")") +
        ". Set pressure.krylov = petsc (or auto).");
  if (!m_spec.options.empty())
    throw ConfigError("pressure.petsc_options = '" + m_spec.options +
                      "' are PETSc's, but pressure.krylov = kokkos solves without PETSc. Remove "
                      "the options or set pressure.krylov = petsc.");
  m_field_b = Field(m_multigrid->input().layout(), "pressure::cg_b");
  m_field_x = Field(m_multigrid->input().layout(), "pressure::cg_x");
  const double cells = double(m_domain.global_cells(0)) * double(m_domain.global_cells(1)) *
                       double(m_domain.global_cells(2));
  m_field_cg = std::make_unique<FieldCG>(m_domain.comm(), m_field_b, cells);
}

void PressurePoisson::check_options_used() {
  m_options_checked = true;
  const std::vector<std::string> unused = m_options.unused(m_spec.prefix);
  if (unused.empty())
    return;
  std::string names;
  for (const auto& name : unused)
    names += (names.empty() ? "" : ", ") + name;
  throw ConfigError("pressure.petsc_options: no part of the pressure solver (" + method() +
                    ") read " + names +
                    ": the option is misspelled or does not apply to this method. Correct or "
                    "remove it.");
}

void PressurePoisson::setup_preconditioner(PC pc) {
  using P = PressurePreconditioner;
  // On a stretched grid the multigrid smooths by lines (pressure.smoother = auto), which keeps
  // its iterations flat in 2D (8 on the DFG channel's grids, cells of D/20 to D/80 in the box)
  // but costs more per V-cycle: on CPUs BoomerAMG (9 to 10 iterations) solves faster, so auto
  // takes it there; with the Kokkos CG (GPUs) auto takes the multigrid, which runs on the
  // device. pressure.preconditioner = multigrid forces it.
  if (m_spec.preconditioner == P::Auto && !m_domain.all_uniform() && !kokkos_krylov_wanted())
    m_multigrid_unavailable = "a stretched grid with PETSc's CG, where BoomerAMG is faster";
  else if (m_spec.preconditioner == P::Auto || m_spec.preconditioner == P::Multigrid) {
    MultigridSpec mg;
    mg.faces = m_spec.faces;
    mg.max_coarsest_cells = m_spec.coarsest_cells;
    mg.device_coarsest = kokkos_krylov_wanted(); // the whole V-cycle on the fields' memory
    mg.line_relaxation = m_spec.smoother == MultigridSmoother::Lines ||
                         (m_spec.smoother == MultigridSmoother::Auto && !m_domain.all_uniform());
    const MultigridPlan plan = plan_multigrid(m_domain, mg);
    if (plan.unavailable.empty()) {
      m_multigrid = std::make_unique<GeometricMultigrid>(m_domain, mg);
      check_petsc(PCSetType(pc, PCSHELL), "PCSetType");
      check_petsc(PCShellSetContext(pc, this), "PCShellSetContext");
      check_petsc(PCShellSetApply(pc, &PressurePoisson::apply_multigrid), "PCShellSetApply");
      check_petsc(PCShellSetName(pc, "geometric multigrid"), "PCShellSetName");
      return;
    }
    m_multigrid_unavailable = plan.unavailable;
    if (m_spec.preconditioner == P::Multigrid)
      throw ConfigError("pressure.preconditioner = multigrid: " + plan.unavailable +
                        ". Or set pressure.preconditioner = auto to fall back to algebraic "
                        "multigrid.");
  }
  // BoomerAMG needs half the iterations of GAMG on these systems (7 against 14 per solve on a
  // 128^2 cavity); PETSc builds without hypre fall back to GAMG.
  PetscBool has_hypre = PETSC_FALSE;
  check_petsc(PetscHasExternalPackage("hypre", &has_hypre), "PetscHasExternalPackage");
  if (m_spec.preconditioner == P::Hypre && !has_hypre)
    throw ConfigError("pressure.preconditioner = hypre, but this PETSc has no hypre; choose "
                      "multigrid or gamg");
  if (has_hypre && m_spec.preconditioner != P::Gamg) {
    check_petsc(PCSetType(pc, PCHYPRE), "PCSetType");
    check_petsc(PCHYPRESetType(pc, "boomeramg"), "PCHYPRESetType");
  } else {
    check_petsc(PCSetType(pc, PCGAMG), "PCSetType");
  }
}

void PressurePoisson::set_boomeramg_3d_defaults(PC pc) {
  // hypre's default Falgout coarsening with classical interpolation builds dense coarse
  // operators in 3D. HMIS coarsening with ext+i interpolation truncated to 4 entries per row
  // (hypre's strong threshold 0.25 kept) solves the stretched duct 1.4-1.85 times faster at
  // D/10 to D/20, in 10-11 iterations instead of 8-9 (docs/performance.md, "BoomerAMG in 3D";
  // a threshold of 0.5 was slower). Defaults only: options from the case file or PETSC_OPTIONS
  // win, and none is set when they choose another preconditioner.
  PetscBool hypre = PETSC_FALSE;
  check_petsc(PetscObjectTypeCompare(reinterpret_cast<PetscObject>(pc), PCHYPRE, &hypre),
              "PetscObjectTypeCompare");
  const std::string p = "-" + m_spec.prefix;
  if (!hypre || m_domain.dim() != 3 || m_options.has(p + "pc_type") ||
      m_options.has(p + "pc_hypre_type"))
    return;
  m_options.set_default(p + "pc_hypre_boomeramg_coarsen_type", "HMIS");
  m_options.set_default(p + "pc_hypre_boomeramg_interp_type", "ext+i");
  m_options.set_default(p + "pc_hypre_boomeramg_P_max", "4");
}

PetscErrorCode PressurePoisson::apply_multigrid(PC pc, Vec r, Vec z) {
  void* context = nullptr;
  PetscErrorCode code = PCShellGetContext(pc, &context);
  if (code)
    return code;
  auto* self = static_cast<PressurePoisson*>(context);
  try {
    // r is mean-zero when -L is singular, and the KSP removes the constants from z.
    // The V-cycle approximates (-L)^-1; the system is V (-L) (the plain -L on uniform cells).
    self->exchange(self->m_multigrid->input(), r, 1.0, false, true);
    self->m_multigrid->apply_in_place();
    self->exchange(self->m_multigrid->output(), z, 1.0, true);
  } catch (const std::exception& e) {
    self->m_pc_failure = e.what();
    return PETSC_ERR_LIB;
  }
  return 0;
}

PetscErrorCode PressurePoisson::converged(KSP ksp, PetscInt n, PetscReal rnorm,
                                          KSPConvergedReason* reason, void* context) {
  auto* self = static_cast<PressurePoisson*>(context);
  *reason = KSP_CONVERGED_ITERATING;
  PetscReal rtol = 0, abstol = 0, dtol = 0;
  PetscInt max_iterations = 0;
  PetscErrorCode code = KSPGetTolerances(ksp, &rtol, &abstol, &dtol, &max_iterations);
  if (code)
    return code;
  if (n == 0) {
    if (rnorm < abstol) { // false for a NaN, which is reported below
      *reason = KSP_CONVERGED_ATOL;
      return 0;
    }
    Vec b = nullptr;
    PC pc = nullptr;
    Vec z = self->m_preconditioned_b;
    PetscReal reference = 0;
    if ((code = KSPGetRhs(ksp, &b)) || (code = KSPGetPC(ksp, &pc)) || (code = PCApply(pc, b, z)))
      return code;
    if (self->m_null && (code = MatNullSpaceRemove(self->m_null, z)))
      return code;
    if ((code = VecNorm(z, NORM_2, &reference)))
      return code;
    self->m_reference_norm = reference == 0 ? rnorm : reference; // a zero b: |r_0|
    self->m_tolerance = std::max(rtol * self->m_reference_norm, abstol);
  }
  if (std::isnan(rnorm) || std::isinf(rnorm))
    *reason = KSP_DIVERGED_NANORINF;
  else if (rnorm <= self->m_tolerance)
    *reason = rnorm < abstol ? KSP_CONVERGED_ATOL : KSP_CONVERGED_RTOL;
  else if (rnorm >= dtol * self->m_reference_norm)
    *reason = KSP_DIVERGED_DTOL;
  return 0;
}

PressurePoisson::~PressurePoisson() {
  // The KSP goes first: its convergence test points into this object.
  m_ksp.reset();
}

PressurePoisson::HostView PressurePoisson::host_copy(const Field& f) {
  // On host memory spaces the mirror is the field itself. Elsewhere one buffer is kept for the
  // pressure layout, so no solve allocates.
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible)
    return Kokkos::create_mirror_view(f.view());
  if (m_host.extent(0) != f.view().extent(0) || m_host.extent(1) != f.view().extent(1) ||
      m_host.extent(2) != f.view().extent(2))
    m_host = Kokkos::create_mirror(f.view());
  Kokkos::deep_copy(m_host, f.view());
  return m_host;
}

void PressurePoisson::exchange(const Field& f, Vec v, double scale, bool into_vec, bool weighted) {
  // The explicit copy at the solver boundary. The local part of a DMDA global vector is this
  // rank's owned box, x fastest, so one flat loop serves 2D and 3D.
  HostView host = host_copy(f);
  const IndexSpace& own = f.owned();
  PetscScalar* a = nullptr;
  check_petsc(VecGetArray(v, &a), "VecGetArray");
  std::size_t p = 0;
  for (long k = own.begin[2]; k < own.end[2]; ++k)
    for (long j = own.begin[1]; j < own.end[1]; ++j)
      for (long i = own.begin[0]; i < own.end[0]; ++i, ++p) {
        const bool w = weighted && !m_volume.empty();
        if (into_vec)
          a[p] = w ? scale * host(i, j, k) * m_volume[p] : scale * host(i, j, k);
        else
          host(i, j, k) = w ? scale * a[p] / m_volume[p] : scale * a[p];
      }
  check_petsc(VecRestoreArray(v, &a), "VecRestoreArray");
  if (!into_vec)
    Kokkos::deep_copy(f.view(), host);
}

SolveStats PressurePoisson::solve(const Field& rhs, Field& p) {
  if (m_field_cg)
    return solve_kokkos(rhs, p);
  return solve_petsc(rhs, p);
}

SolveStats PressurePoisson::solve_petsc(const Field& rhs, Field& p) {
  exchange(rhs, m_b, -1.0, true, true); // V (-L) p = -V rhs
  exchange(p, m_x, 1.0, true);          // the previous pressure is the initial guess
  if (m_null) {
    check_petsc(MatNullSpaceRemove(m_null, m_b), "MatNullSpaceRemove");
    check_petsc(MatNullSpaceRemove(m_null, m_x), "MatNullSpaceRemove");
  }
  PetscErrorCode solved = 0;
  const auto ksp_solve = [&] {
    const auto active = m_options.activate();
    solved = KSPSolve(m_ksp, m_b, m_x);
    if (solved && !m_pc_failure.empty())
      throw Error("the pressure multigrid preconditioner failed: " + m_pc_failure);
    check_petsc(solved, "KSPSolve");
  };
  ksp_solve();
  KSPConvergedReason reason;
  check_petsc(KSPGetConvergedReason(m_ksp, &reason), "KSPGetConvergedReason");
  PetscInt iterations = 0;
  check_petsc(KSPGetIterationNumber(m_ksp, &iterations), "KSPGetIterationNumber");
  if (reason == KSP_DIVERGED_DTOL && iterations == 0) {
    // The initial guess (the previous solution) leaves a residual beyond dtol times |b|: a
    // right-hand side that has all but vanished (a flow brought to rest by a design field, the
    // adjoint of a step that the objective hardly sees). Zero is then the better guess.
    check_petsc(VecZeroEntries(m_x), "VecZeroEntries");
    ksp_solve();
    check_petsc(KSPGetConvergedReason(m_ksp, &reason), "KSPGetConvergedReason");
    check_petsc(KSPGetIterationNumber(m_ksp, &iterations), "KSPGetIterationNumber");
  }
  SolveStats stats;
  check_petsc(KSPGetResidualNorm(m_ksp, &stats.residual), "KSPGetResidualNorm");
  stats.iterations = static_cast<int>(iterations);
  if (reason == KSP_DIVERGED_NANORINF)
    throw CollectiveError("the right-hand side of the pressure Poisson equation is not finite: "
                          "the velocity had already diverged before this solve");
  if (reason < 0)
    throw_not_converged(KSPConvergedReasons[reason], stats);
  if (m_null)
    check_petsc(MatNullSpaceRemove(m_null, m_x), "MatNullSpaceRemove");
  exchange(p, m_x, 1.0, false);
  // After the first solve every option has been read (-ksp_view, for one, at its end).
  if (!m_options_checked)
    check_options_used();
  return stats;
}

void PressurePoisson::throw_not_converged(const std::string& reason,
                                          const SolveStats& stats) const {
  throw CollectiveError(
      "the pressure Poisson solve did not converge (" + reason + ") after " +
      std::to_string(stats.iterations) + " iterations, residual " + format("%.3e", stats.residual) +
      ". Loosen pressure.rtol, raise pressure.max_iterations, " +
      (m_field_cg ? std::string("or set pressure.krylov = petsc to solve with PETSc's CG.")
                  : std::string("or choose another preconditioner in pressure.petsc_options "
                                "(e.g. '-pc_type hypre').")));
}

SolveStats PressurePoisson::solve_kokkos(const Field& rhs, Field& p) {
  // (-L) x = -rhs on the multigrid's layout; the previous pressure is the initial guess. On a
  // stretched grid, as the PETSc solve: V (-L) x = -V rhs, symmetric, with the V-cycle applied
  // to V^-1 r (cell_laplacian.hpp).
  const bool weighted = !m_domain.all_uniform();
  const int dim = m_domain.dim();
  copy_owned(rhs, m_field_b, -1.0);
  if (weighted)
    scale_by_control_volume(m_field_b, m_field_b.owned(), dim, false);
  copy_owned(p, m_field_x);
  FieldCGSettings settings;
  settings.rtol = m_spec.rtol;
  settings.atol = m_spec.atol;
  settings.max_iterations = m_spec.max_iterations;
  settings.singular = singular();
  GeometricMultigrid& mg = *m_multigrid;
  const FieldCG::Apply A = [&mg, weighted, dim](Field& in, Field& out) {
    mg.apply_operator(in, out);
    if (weighted)
      scale_by_control_volume(out, out.owned(), dim, false);
  };
  const FieldCG::Apply B = [&mg, weighted, dim](Field& in, Field& out) {
    copy(in, mg.input());
    if (weighted)
      scale_by_control_volume(mg.input(), mg.input().owned(), dim, true);
    mg.apply_in_place();
    copy(mg.output(), out);
  };
  if (settings.singular) { // as MatNullSpaceRemove does for the PETSc solve
    m_field_cg->remove_mean(m_field_b);
    m_field_cg->remove_mean(m_field_x);
  }
  FieldCGResult result = m_field_cg->solve(A, B, m_field_b, m_field_x, settings);
  if (result.reason == FieldCGReason::Diverged && result.iterations == 0) {
    // As in solve_petsc: a right-hand side that has all but vanished; zero is the better guess.
    fill_value(m_field_x, m_field_x.owned(), 0.0);
    result = m_field_cg->solve(A, B, m_field_b, m_field_x, settings);
  }
  SolveStats stats;
  stats.iterations = result.iterations;
  stats.residual = result.residual;
  if (result.reason == FieldCGReason::NotFinite && result.iterations == 0)
    throw CollectiveError("the right-hand side of the pressure Poisson equation is not finite: "
                          "the velocity had already diverged before this solve");
  if (!result.converged())
    throw_not_converged(describe(result.reason), stats);
  if (settings.singular)
    m_field_cg->remove_mean(m_field_x);
  copy_owned(m_field_x, p);
  return stats;
}

std::string PressurePoisson::method() const {
  // The hierarchy, and the smoother where it is not the default points.
  const auto multigrid = [this] {
    return "geometric multigrid (" + m_multigrid->plan().describe() +
           (m_multigrid->spec().line_relaxation ? "; line smoother)" : ")");
  };
  if (m_field_cg)
    return "kokkos cg + " + multigrid();
  KSPType ksp_type = nullptr;
  PCType pc_type = nullptr;
  PC pc = nullptr;
  check_petsc(KSPGetType(m_ksp, &ksp_type), "KSPGetType");
  check_petsc(KSPGetPC(m_ksp, &pc), "KSPGetPC");
  check_petsc(PCGetType(pc, &pc_type), "PCGetType");
  std::string pc_name = pc_type ? pc_type : "?";
  if (m_multigrid && pc_name == PCSHELL)
    pc_name = multigrid();
  return std::string(ksp_type ? ksp_type : "?") + " + " + pc_name;
}

void PressurePoisson::apply(const Field& p, Field& out) {
  exchange(p, m_x, 1.0, true);
  check_petsc(MatMult(m_matrix, m_x, m_b), "MatMult");
  check_petsc(VecScale(m_b, -1.0), "VecScale");
  exchange(out, m_b, 1.0, false, true);
}

} // namespace linear
} // namespace undertow
