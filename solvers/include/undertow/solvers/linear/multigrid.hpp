#pragma once
/// \file
/// Geometric multigrid for the cell-centred pressure operator -L (see cell_laplacian.hpp): one
/// symmetric V-cycle is the preconditioner of the pressure CG. Matrix-free Kokkos kernels, so it
/// runs wherever the velocity kernels run.
///
/// - **Hierarchy.** Each level halves the axes whose cell count is even and whose spacing is
///   within a factor 2 of the finest spacing of that level (semi-coarsening on stretched cells).
///   Where no such axis is even and the grid is larger than MultigridSpec::max_coarsest_cells,
///   the odd axes are halved too: cells 2g and 2g+1 form coarse cell g, the last one alone, so
///   the coarse cells have two widths (and any count coarsens). Coarse operators are
///   rediscretised, in finite-volume form on cells of varying width (cell_laplacian.hpp).
/// - **Transfers.** Prolongation is cell-centred bilinear (trilinear in 3D): linear
///   interpolation between cell centres, with the boundary ghosts of the operator (mirror at
///   Neumann faces, negated at Dirichlet faces). Restriction is its exact transpose weighted by
///   the fine over the coarse cell volumes (1/2 per halved axis of equal cells), so the V-cycle
///   is symmetric in the volume-weighted inner product, which on the finest (uniform) grid is
///   the plain one.
/// - **Smoother.** Red-black Gauss-Seidel by global cell parity: red then black before the
///   coarse correction, black then red after it. With MultigridSpec::line_relaxation (stretched
///   grids), zebra line relaxation instead (line_relaxation.hpp): along x, y (and z), each axis
///   red lines then black ones before the coarse correction, and the reverse order after it;
///   in 2D both axes are then halved together whatever their spacing (full coarsening).
/// - **Ranks.** Every level stays distributed while it has at least
///   MultigridSpec::min_cells_per_rank cells per rank. A smaller level is agglomerated: the same
///   grid is moved onto fewer ranks (the first ones of the fine grid's communicator, on a process
///   grid with about half the ranks along its longest axis, as often as needed), where coarsening
///   goes on; the ranks left out wait for the way back up. A halved level keeps each coarse cell
///   on the rank of its first child (each rank's box halved, rounded up), so any split (uneven,
///   odd counts) coarsens where it is; a rank whose coarse box would be narrower than 2 cells
///   goes onto fewer ranks first. The coarsest grid lives on one rank and is
///   solved exactly by a banded Cholesky factorisation (one cell grounded when -L is singular),
///   on the host; or, with MultigridSpec::device_coarsest, by that solve's matrix (its columns
///   are the solutions for unit right-hand sides) applied in a kernel on the fields' memory, so
///   that a V-cycle on one rank sends nothing to the host. The
///   grid sequence, smoothing order and transfers do not depend on the rank count, so the
///   preconditioner is the same operator on any number of ranks, to round-off.

#include "undertow/core/halo.hpp"
#include "undertow/solvers/linear/banded_cholesky.hpp"
#include "undertow/solvers/linear/cell_laplacian.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace linear {

struct MultigridSpec {
  PressureFaces faces{PressureBoundary::Neumann, PressureBoundary::Neumann,
                      PressureBoundary::Neumann, PressureBoundary::Neumann,
                      PressureBoundary::Neumann, PressureBoundary::Neumann};
  int pre_sweeps = 1;  ///< red-black sweeps before the coarse correction
  int post_sweeps = 1; ///< black-red sweeps after it
  /// Smooth by alternating zebra line relaxation instead of points (and in 2D coarsen both axes
  /// together): iterations independent of the stretching in 2D, where cells are many times longer
  /// along one axis than along the other; better than points in 3D but not independent of it
  /// (cells long along one axis couple in planes). A V-cycle then costs about 25 stencil
  /// applications in 2D and 50 in 3D, against 4 to 6 with points (docs/performance.md).
  bool line_relaxation = false;
  /// A coarse level with fewer cells per rank than this is agglomerated onto fewer ranks.
  long min_cells_per_rank = 1024;
  /// Odd cell counts are halved too (into cells of two widths) while the grid has more cells
  /// than this; a smaller grid that cannot be halved evenly is the coarsest, solved directly.
  long max_coarsest_cells = kDefaultMaxCoarsestCells; ///< pressure.coarsest_cells
  long max_direct_entries = 1L << 22; ///< largest band storage (doubles) of the coarsest solve
  /// Solve the coarsest grid in a kernel with its dense inverse (on a GPU: no copies to the
  /// host); the coarsest grid then has at most kMaxDenseCoarsestCells cells.
  bool device_coarsest = false;
  static constexpr long kMaxDenseCoarsestCells = 1024;
  static constexpr long kDefaultMaxCoarsestCells = 8192;
};

/// The grids of a hierarchy and the ranks they live on, decided before anything is allocated.
/// Not collective.
struct MultigridPlan {
  struct Level {
    std::array<long, 3> cells{1, 1, 1};
    std::array<bool, 3> halved{false, false, false}; ///< axes halved from the previous level
    /// The process grid of this level: it lives on the first ranks[0] * ranks[1] * ranks[2]
    /// ranks of the finest level's communicator.
    std::array<int, 3> ranks{1, 1, 1};
    bool agglomerated = false; ///< the previous level's grid, moved onto fewer ranks
    /// Per axis, the widths of the cells [m] (global, in order): uniform until an odd count is
    /// halved.
    std::array<std::vector<double>, 3> widths;
    /// Per axis, the first cell of each rank along it, then the count (DomainSpec::splits): a
    /// halved level keeps each coarse cell on the rank of its first child.
    std::array<std::vector<long>, 3> split;
    int rank_count() const { return ranks[0] * ranks[1] * ranks[2]; }
  };
  std::vector<Level> levels;
  std::string unavailable; ///< empty if the hierarchy can be built, else why not

  /// "256x256 -> 1x1, 9 levels; 16 ranks to 4 at 32x32, to 1 at 16x16".
  std::string describe() const;
};

/// Plans the hierarchy for a grid of `spec.cells` (spacing spec.length / cells) split over the
/// process grid `ranks`. Not collective.
MultigridPlan plan_multigrid(const DomainSpec& grid, const std::array<int, 3>& ranks,
                             const MultigridSpec& spec);
/// Plans the hierarchy for `domain` with `spec`. Not collective.
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

  /// Ghost layers of the field restricted from (a coarse cell's taps reach 2 cells past the
  /// rank's fine box where a split is odd).
  static constexpr int kRestrictionGhost = 2;

  /// Prolongation from level `coarse` to `coarse - 1`, added into `fine`, and restriction, its
  /// transpose weighted by cell volumes (over 2^(halved axes) on cells of equal widths): exposed
  /// for the transpose test. `fine_r` has kRestrictionGhost ghost layers. Collective.
  void prolong_add(int coarse, Field& coarse_x, Field& fine);
  void restrict_to(int coarse, Field& fine_r, Field& coarse_b);

  int level_count() const { return static_cast<int>(m_levels.size()); }
  /// Whether this rank holds level l (a rank left out of an agglomerated level holds neither it
  /// nor any coarser one). Not collective.
  bool active(int l) const;
  /// The domain of level l (0 is the finest) on a rank that holds it; throws Error elsewhere.
  const Domain& level_domain(int l) const;
  const MultigridPlan& plan() const { return m_plan; }
  const MultigridSpec& spec() const { return m_spec; }
  bool singular() const { return m_singular; }
  /// Wall time [s] of the coarse part of the V-cycles so far: from the first level on fewer
  /// ranks than the finest down (their transfers, smoothing and the coarsest solve), or the
  /// coarsest solve alone where nothing is agglomerated (one rank). Measured on this rank; not
  /// collective.
  double coarse_seconds() const { return m_coarse_seconds; }
  /// V-cycles applied so far (apply and apply_in_place). Not collective.
  long cycles() const { return m_cycles; }

 private:
  struct Level;
  void vcycle(int l);
  void smooth(Level& level, int colour);
  /// The smoothing before the coarse correction (pre = true) or after it, its reverse.
  void smooth_all(Level& level, bool pre);
  void residual(Level& level);
  /// Moves b of level l - 1 onto the ranks of agglomerated level l, or x back. Collective over
  /// level l - 1's ranks.
  void agglomerate(int l);
  void disperse(int l);
  void solve_coarsest(Level& level);
  void setup_coarsest();
  /// The host solve of the coarsest grid: b and x hold its cells with x fastest.
  void solve_coarsest_host(std::vector<double>& b, std::vector<double>& x);
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
  std::vector<double> m_direct_volume; ///< per cell, where the coarsest cells' widths vary
  std::vector<double> m_coarsest_b, m_coarsest_x; ///< cell-ordered host buffers
  /// device_coarsest: the coarsest solve as a matrix, x(c) = sum over m of S(c, m) b(m), cells
  /// numbered x fastest over the owned box.
  Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace> m_dense_inverse;
  Kokkos::View<double*, MemorySpace> m_dense_b, m_dense_x; ///< its packed input and output
  double m_coarse_seconds = 0;
  long m_cycles = 0;
};

} // namespace linear
} // namespace undertow
