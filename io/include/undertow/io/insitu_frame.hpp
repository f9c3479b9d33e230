#pragma once
/// \file
/// The data of one step that a job hands to in-situ pipelines (io/insitu.hpp): plain host data,
/// with no undertow or Kokkos types, so that back-end plugins (io/insitu_backend.hpp) build
/// against it alone.

#include <array>
#include <map>
#include <string>
#include <vector>

namespace undertow {
namespace io {

/// One named array of a frame: `components` values per cell or point, components fastest, then
/// x, y, z over the piece (ghosts included).
struct InSituArray {
  std::string name;
  bool on_points = false; ///< false: cell data
  int components = 1;
  std::vector<double> values;
};

/// One step's data on one rank, on the host. Lengths in the case's length unit.
struct InSituFrame {
  long step = 0;
  double time = 0; ///< [s] (or a design iteration's number, see metadata "time_means")
  int dim = 2;
  std::array<long, 3> whole_cells{}; ///< global cells per axis (1 along z in 2D)
  std::array<long, 3> piece_begin{}; ///< first global cell of this piece, ghosts included
  std::array<long, 3> piece_end{};   ///< one past its last global cell
  std::array<double, 3> origin{};    ///< lower corner of the box
  std::array<double, 3> spacing{};   ///< cell size per axis (the mean on a stretched one)
  /// Per stretched axis, the piece's point (cell face) coordinates, piece_points(axis) of them;
  /// empty on a uniform axis, which origin and spacing describe.
  std::array<std::vector<double>, 3> coordinates;
  /// The box, x_min, x_max, y_min, y_max, z_min, z_max (z 0 in 2D): pipelines place cameras by
  /// it, since a piece's own bounds differ from rank to rank.
  std::array<double, 6> bounds{};
  std::vector<unsigned char> ghost_cells;  ///< per piece cell: 1 if another piece owns it
  std::vector<unsigned char> ghost_points; ///< per piece point: 1 if another piece owns it
  std::vector<InSituArray> arrays;
  /// Text passed along with the grid: case, job, phase ("forward", "reverse", ...), units.
  std::map<std::string, std::string> metadata;
  /// Numbers passed along with the grid, the same on every rank (e.g. an objective, a design
  /// iteration, the largest value of an array: a pipeline's own range is its piece's).
  std::map<std::string, double> numbers;

  long piece_cells(int axis) const { return piece_end[axis] - piece_begin[axis]; }
  long cell_count() const { return piece_cells(0) * piece_cells(1) * piece_cells(2); }
  /// Points of the piece along `axis` (one more than cells, one along z in 2D).
  long piece_points(int axis) const { return axis < dim ? piece_cells(axis) + 1 : 1; }
  long point_count() const { return piece_points(0) * piece_points(1) * piece_points(2); }
  const InSituArray* find(const std::string& name) const;
};

} // namespace io
} // namespace undertow
