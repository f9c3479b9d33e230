#pragma once
/// \file
/// The global box, its MPI Cartesian decomposition and the index spaces of every staggered
/// location. 2D runs use the same 3-axis machinery with one cell and no ghosts along z.

#include "undertow/core/communicator.hpp"
#include "undertow/core/index_space.hpp"

#include <Kokkos_Core.hpp>
#include <array>
#include <string>
#include <utility>
#include <vector>

namespace undertow {

class ConfigSchema;
class Config;

/// Where kernels run and where their data lives (the default Kokkos backend).
using ExecutionSpace = Kokkos::DefaultExecutionSpace;
using MemorySpace = ExecutionSpace::memory_space;

/// What the user asks for. Lengths are in the case's length unit (m for dimensional cases).
struct DomainSpec {
  int dim = 2;                                 ///< 2 or 3
  std::array<long, 3> cells{16, 16, 1};        ///< cells per axis (z is 1 in 2D)
  std::array<double, 3> origin{0.0, 0.0, 0.0}; ///< lower corner
  std::array<double, 3> length{1.0, 1.0, 1.0}; ///< box size per axis
  std::array<bool, 3> periodic{false, false, false};
  std::array<int, 3> ranks{0, 0, 0}; ///< ranks per axis; 0 = chosen automatically
  /// Per axis, the first cell of each rank along it and then the cell count (ranks + 1 entries,
  /// increasing): an explicit split, e.g. a multigrid level that keeps each coarse cell with its
  /// children. Empty: the balanced split (split_offset). Not read from case files.
  std::array<std::vector<long>, 3> splits;
  /// Per axis, the cells' face coordinates (cells + 1, increasing, from origin to origin +
  /// length) of a stretched axis; empty: cells of equal width length / cells. From the
  /// [domain] box keys (stretching.hpp), or set directly.
  std::array<std::vector<double>, 3> faces;

  /// True if axis `a` has cells of equal width.
  bool uniform(int a) const { return faces[static_cast<std::size_t>(a)].empty(); }
  /// The widths of the cells along axis `a`, in order [length]. Not collective.
  std::vector<double> cell_widths(int a) const;

  /// Declares the [domain] keys. Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// Reads and validates the [domain] keys; throws ConfigError naming the key. Not collective.
  static DomainSpec from_config(const Config& config);
};

/// The face coordinates of the stretched axes, indexed by global cell index, with the cells
/// beyond the box's ends mirrored (or wrapped, on a periodic axis) for ghosts: face(g) for
/// g in [-pad, cells + pad]. Empty views on uniform axes. One copy in the kernels' memory and one
/// on the host, so that coordinates can be read on either side.
struct StretchedFaces {
  static constexpr long pad = 4; ///< ghost cells covered beyond each end
  Kokkos::View<const double*, MemorySpace> device[3];
  Kokkos::View<const double*, Kokkos::HostSpace> host[3];

  KOKKOS_INLINE_FUNCTION double face(int axis, long g) const {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return device[axis](g + pad);
#else
    return host[axis](g + pad);
#endif
  }
};

/// Device-copyable geometry of one field layout: maps local indices to coordinates.
struct GridGeometry {
  double origin[3];
  double h[3];           ///< the cell width of a uniform axis; the mean width of a stretched one
  long global_offset[3]; ///< global index of local index 0, per axis
  double shift[3];       ///< 0 along axes where the location is staggered, 1/2 elsewhere
  bool uniform[3] = {true, true, true};
  StretchedFaces stretched; ///< the face coordinates of the axes that are not uniform

  /// Coordinate along `axis` of local index `i`: cell centres at (I + 1/2) h, faces (along their
  /// normal) and nodes at I h; on a stretched axis the faces' coordinates and the midpoints
  /// between them.
  KOKKOS_INLINE_FUNCTION double coordinate(int axis, long i) const {
    if (uniform[axis])
      return origin[axis] + (static_cast<double>(i + global_offset[axis]) + shift[axis]) * h[axis];
    const long g = i + global_offset[axis];
    const double lower = stretched.face(axis, g);
    return shift[axis] == 0.0 ? lower : 0.5 * (lower + stretched.face(axis, g + 1));
  }

  /// Along an axis where the location is cell-centred: the coordinate of the lower face of the
  /// cell of local index i (i + 1 gives its upper face) [m].
  KOKKOS_INLINE_FUNCTION double cell_face(int axis, long i) const {
    const long g = i + global_offset[axis];
    if (uniform[axis])
      return origin[axis] + static_cast<double>(g) * h[axis];
    return stretched.face(axis, g);
  }

  /// The width along `axis` of the control volume of local point i [m]: the cell's width along
  /// an axis where the location is cell-centred, the distance between the two neighbouring cell
  /// centres along one where it is staggered.
  KOKKOS_INLINE_FUNCTION double control_width(int axis, long i) const {
    if (uniform[axis])
      return h[axis];
    const long g = i + global_offset[axis];
    if (shift[axis] != 0.0)
      return stretched.face(axis, g + 1) - stretched.face(axis, g);
    return 0.5 * (stretched.face(axis, g + 1) - stretched.face(axis, g - 1));
  }

  /// The volume (area in 2D) of the control volume of local point (i, j, k) [m^dim].
  KOKKOS_INLINE_FUNCTION double control_volume(int dim, long i, long j, long k) const {
    return control_width(0, i) * control_width(1, j) * (dim == 3 ? control_width(2, k) : 1.0);
  }
};

/// The local array shape and index spaces of one (location, ghost width) on one rank.
struct FieldLayout {
  Location location = Location::Cell;
  int ghost = 0;                       ///< ghost width along the active axes
  std::array<long, 3> extent{};        ///< local array extents, ghosts included
  IndexSpace owned;                    ///< owned points, in local indices
  IndexSpace ghosted;                  ///< the whole local array: [0, extent)
  IndexSpace global;                   ///< every distinct global point of this location
  std::array<long, 3> global_offset{}; ///< global index = local index + global_offset
  GridGeometry geometry{};
};

/// A decomposed 2D or 3D box. Construction is collective over `comm`; everything else is local.
class Domain {
 public:
  Domain(const Communicator& comm, const DomainSpec& spec);

  /// The Cartesian communicator the decomposition lives on.
  const Communicator& comm() const { return m_cart; }
  const DomainSpec& spec() const { return m_spec; }
  int dim() const { return m_spec.dim; }
  long global_cells(int axis) const { return m_spec.cells[axis]; }
  /// The cell width along a uniform `axis`; along a stretched one the mean width.
  double spacing(int axis) const { return m_spec.length[axis] / double(m_spec.cells[axis]); }
  /// True if `axis` has cells of equal width (DomainSpec::faces).
  bool uniform(int axis) const { return m_spec.uniform(axis); }
  /// True if every axis has cells of equal width.
  bool all_uniform() const { return uniform(0) && uniform(1) && uniform(2); }
  /// The widths of the global cells along `axis`, in order [length]. Not collective.
  std::vector<double> cell_widths(int axis) const { return m_spec.cell_widths(axis); }
  /// The narrowest cell along `axis` [length].
  double min_spacing(int axis) const { return m_min_spacing[axis]; }
  /// The global index of the cell along `axis` that contains the coordinate x (x = a face:
  /// the cell above it); may lie outside [0, cells) for x outside the box. Not collective.
  long cell_containing(int axis, double x) const;
  bool periodic(int axis) const { return m_spec.periodic[axis]; }
  /// The box's volume (its area in 2D) [m^dim].
  double box_volume() const {
    double v = 1.0;
    for (int a = 0; a < dim(); ++a)
      v *= m_spec.length[a];
    return v;
  }

  /// Ranks along `axis` and this rank's coordinate in the process grid.
  int ranks_along(int axis) const { return m_dims[axis]; }
  int coord(int axis) const { return m_coords[axis]; }
  /// True if this rank's box reaches the lower (side 0) or upper (side 1) end of `axis`.
  bool touches_boundary(int axis, int side) const {
    return side == 0 ? m_coords[axis] == 0 : m_coords[axis] == m_dims[axis] - 1;
  }
  /// Rank of process-grid coordinates, or -1 outside a non-periodic boundary (wraps if periodic).
  /// Ranks are numbered x fastest, cx + px * (cy + py * cz), as PETSc's DMDA numbers them.
  int rank_of(std::array<int, 3> coords) const;

  /// First global cell and number of cells owned along `axis` by process-grid coordinate `c`.
  long cell_offset(int axis, int c) const;
  long cell_count(int axis, int c) const;
  long cell_offset(int axis) const { return cell_offset(axis, m_coords[axis]); }
  long cell_count(int axis) const { return cell_count(axis, m_coords[axis]); }

  /// Ghost width actually used along `axis` (0 along z in 2D).
  int ghost_along(int axis, int ghost) const { return axis < m_spec.dim ? ghost : 0; }
  /// True if `loc` sits on cell boundaries along `axis` (see undertow::staggered).
  bool staggered(Location loc, int axis) const { return undertow::staggered(loc, axis, dim()); }
  /// Number of distinct global points of `loc` along `axis` (N cells give N+1 non-periodic faces
  /// and nodes).
  long global_points(Location loc, int axis) const;
  /// Global [begin, end) owned along `axis` by coordinate `c`. Faces and nodes on a rank's upper
  /// side belong to the next rank; the last ones of a non-periodic axis belong to the last rank.
  std::pair<long, long> owned_interval(Location loc, int axis, int c) const;
  /// Global [begin, end) of the local array along `axis` for coordinate `c` (may leave the box).
  std::pair<long, long> ghosted_interval(Location loc, int axis, int c, int ghost) const;

  /// This rank's layout for `loc` with `ghost` ghost layers. Throws for FaceZ in 2D.
  FieldLayout layout(Location loc, int ghost) const;

  /// "2x2x1 ranks, 37x23x1 cells, ..." for logs.
  std::string describe() const;

 private:
  DomainSpec m_spec;
  std::array<int, 3> m_dims{1, 1, 1};
  std::array<int, 3> m_coords{0, 0, 0};
  Communicator m_cart;
  StretchedFaces m_stretched;            ///< shared by every layout's geometry
  std::array<double, 3> m_min_spacing{}; ///< per axis, the narrowest cell
};

/// First cell of part `c` of the balanced split of `cells` cells into `parts` parts, which every
/// Domain uses along each axis: the first cells % parts parts get one cell more. c = parts gives
/// `cells`. Not collective.
long split_offset(long cells, int parts, int c);

/// The process grid for `size` ranks: entries of `requested` that are > 0 are kept, zeros are
/// chosen to minimise the cut area. Throws ConfigError if it cannot be done. Not collective.
std::array<int, 3> choose_process_grid(const DomainSpec& spec, int size);

/// Throws ConfigError naming domain.box unless every axis of `domain` has uniform cells: for the
/// parts of undertow (`what`) that do not yet run on stretched grids. Not collective.
void require_uniform_cells(const Domain& domain, const std::string& what);

/// Throws ConfigError naming `key` unless the point x [length unit] lies in the domain's box
/// (lower faces included, upper faces excluded; z ignored in 2D). Not collective.
void require_inside(const Domain& domain, const std::array<double, 3>& x, const std::string& key);

} // namespace undertow
