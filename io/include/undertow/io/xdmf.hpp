#pragma once
/// \file
/// XDMF sidecars: the light-weight XML that lets ParaView (and VisIt) open a series of HDF5
/// snapshots as one time-dependent dataset. We describe uniform grids (CoRectMesh), and
/// stretched ones (RectMesh, each axis's vertex coordinates listed: ParaView places the cells
/// where they are), with
/// cell- or vertex-centred scalar attributes stored as datasets of FieldFile layout (slowest axis
/// first).

#include "undertow/core/domain.hpp"

#include <array>
#include <string>
#include <vector>

namespace undertow {
namespace io {

struct XdmfGrid {
  int dim = 2;
  std::array<long, 3> cells{1, 1, 1};     ///< cells per axis (x, y, z)
  std::array<double, 3> origin{0, 0, 0};  ///< lower corner [m]
  std::array<double, 3> spacing{1, 1, 1}; ///< cell size per axis [m]
  /// Per axis, the vertex coordinates of a stretched axis (cells + 1) [m]; empty: uniform.
  std::array<std::vector<double>, 3> faces;
};

struct XdmfSnapshot {
  double time = 0;  ///< [s]
  std::string file; ///< HDF5 file, relative to the XDMF file's directory
};

/// The grid of the cells of `domain` (uniform or stretched). Not collective.
XdmfGrid xdmf_grid(const Domain& domain);

/// The XDMF document of a time series: one uniform grid per snapshot, each with the cell
/// datasets named in `cell_datasets` and the vertex datasets in `node_datasets` (Location::Node
/// fields of a grid without periodic axes: cells + 1 points per axis). Not collective.
std::string xdmf_time_series(const XdmfGrid& grid, const std::vector<std::string>& cell_datasets,
                             const std::vector<XdmfSnapshot>& snapshots,
                             const std::vector<std::string>& node_datasets = {});

} // namespace io
} // namespace undertow
