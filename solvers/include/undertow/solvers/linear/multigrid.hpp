#pragma once
/// \file
/// Geometric multigrid for the cell-centred pressure operator -L (see cell_laplacian.hpp): one
/// symmetric V-cycle is the preconditioner of the pressure CG. Matrix-free Kokkos kernels, so it
/// runs wherever the velocity kernels run.
///
/// - **Hierarchy.** Each level halves the axes whose cell count is even and whose spacing is
///   within a factor 2 of the finest spacing of that level (semi-coarsening on stretched cells).
///   Coarse operators are rediscretised.
/// - **Transfers.** Prolongation is cell-centred bilinear (trilinear in 3D), with the boundary
///   ghosts of the operator (mirror at Neumann faces, negated at Dirichlet faces). Restriction is
///   its exact transpose divided by 2 per halved axis, so the V-cycle is symmetric.
/// - **Smoother.** Red-black Gauss-Seidel by global cell parity: red then black before the
///   coarse correction, black then red after it.
/// - **Ranks.** Levels stay distributed while every rank's box can be halved. Where that stops,
///   the level is gathered to every rank (allgather) and coarsened further on each rank alone.
///   The coarsest grid is solved exactly by a banded Cholesky factorisation (one cell grounded
///   when -L is singular). The grid sequence, smoothing order and transfers do not depend on the
///   rank count, so the preconditioner is the same operator on 1, 2 or 4 ranks, to round-off.

#include "undertow/core/halo.hpp"
#include "undertow/solvers/linear/banded_cholesky.hpp"
#include "undertow/solvers/linear/cell_laplacian.hpp"

#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace linear {

struct MultigridSpec {
  PressureFaces faces{PressureBoundary::Neumann, PressureBoundary::Neumann,
                      PressureBoundary::Neumann, PressureBoundary::Neumann,
                      PressureBoundary::Neumann, PressureBoundary::Neumann};
  int pre_sweeps = 1;                 ///< red-black sweeps before the coarse correction
  int post_sweeps = 1;                ///< black-red sweeps after it
  long max_gathered_cells = 1L << 16; ///< largest grid gathered onto every rank
  long max_direct_entries = 1L << 22; ///< largest band storage (doubles) of the coarsest solve
};

/// The grids of a hierarchy, decided before anything is allocated. Not collective.
struct MultigridPlan {
  struct Level {
    std::array<long, 3> cells{1, 1, 1};
    std::array<bool, 3> halved{false, false, false}; ///< axes halved from the previous level
    bool gathered = false; ///< this level and all coarser ones live whole on every rank
  };
  std::vector<Level> levels;
  std::string unavailable; ///< empty if the hierarchy can be built, else why not

  /// "256x256 -> 1x1, 9 levels (gathered from 2x2)".
  std::string describe() const;
};

/// Plans the hierarchy for `domain` with `spec`.
MultigridPlan plan_multigrid(const Domain& domain, const MultigridSpec& spec);

class GeometricMultigrid {
 public:
  /// Builds the levels and factors the coarsest grid. Throws Error with the plan's reason if no
  /// hierarchy fits the limits of `spec`. Collective over the domain's communicator.
  GeometricMultigrid(const Domain& domain, const MultigridSpec& spec);
  ~GeometricMultigrid();
  GeometricMultigrid(const GeometricMultigrid&) = delete;
  GeometricMultigrid& operator=(const GeometricMultigrid&) = delete;

  /// x = B b with B one V-cycle from x = 0: an approximation of (-L)^{-1}, symmetric positive
  /// definite (on mean-zero fields when -L is singular; x then has zero mean). b and x are cell
  /// fields with one ghost layer on the domain; only owned values of b are read. Collective.
  void apply(const Field& b, Field& x);

  /// apply() without copies or projections, for a caller that keeps b mean-zero and removes the
  /// constants from x itself (PETSc's KSP does both with the null space): write b's owned values
  /// into input(), call apply_in_place(), read output(). Collective.
  Field& input();
  void apply_in_place();
  const Field& output() const;

  /// (-L) x over the owned cells on the finest grid, using the same point function (for tests).
  /// Fills x's halo. Collective.
  void apply_operator(Field& x, Field& out);

  /// Prolongation from level `coarse` to `coarse - 1`, added into `fine`, and restriction, its
  /// transpose over 2^(halved axes): exposed for the transpose test. Collective.
  void prolong_add(int coarse, Field& coarse_x, Field& fine);
  void restrict_to(int coarse, Field& fine_r, Field& coarse_b);

  int level_count() const { return static_cast<int>(m_levels.size()); }
  /// The domain of level l (0 is the finest); gathered levels live on a one-rank communicator.
  const Domain& level_domain(int l) const;
  const MultigridPlan& plan() const { return m_plan; }
  bool singular() const { return m_singular; }

 private:
  struct Level;
  void vcycle(int l);
  void smooth(Level& level, int colour);
  void residual(Level& level);
  void setup_gather(const Domain& distributed);
  void gather(Level& from, Level& to);
  void scatter(Level& from, Level& to);
  void solve_coarsest(Level& level);
  void setup_coarsest();
  void remove_mean(Field& f);
  /// Halo ghosts, then boundary ghosts: mirror at Neumann faces, negated at Dirichlet faces.
  void fill_ghosts(Level& level, Field& f);

  MultigridSpec m_spec;
  MultigridPlan m_plan;
  bool m_singular = false;
  std::vector<std::unique_ptr<Level>> m_levels;
  std::unique_ptr<BandedCholesky> m_direct;
  std::vector<long> m_direct_index; ///< band ordering of each cell of the coarsest grid
  std::vector<double> m_direct_rhs;
  /// The allgather onto the first gathered level: rank-ordered counts, displacements and owned
  /// boxes (global cell ranges), and the buffers, all sized once.
  struct GatherPlan {
    std::vector<int> counts, displs;
    std::vector<std::array<long, 3>> begin, end;
    std::vector<double> mine, all;
  } m_gather;
  Communicator m_self; ///< MPI_COMM_SELF, for gathered levels
};

} // namespace linear
} // namespace undertow
