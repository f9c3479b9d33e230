#pragma once
/// \file
/// Staggered locations and index spaces: the one vocabulary every kernel iterates with.

#include <array>
#include <string>

namespace undertow {

/// Where a value lives on the staggered (MAC) grid. Cell: cell centre. FaceX/Y/Z: the centre of
/// the face normal to x/y/z, at the lower side of the cell with the same index. Node: the vertex
/// at the lower corner of the cell with the same index (finite-element degrees of freedom).
enum class Location { Cell, FaceX, FaceY, FaceZ, Node };

/// The axis a face location is normal to, or -1 for cell centres and nodes.
inline int normal_axis(Location loc) {
  switch (loc) {
  case Location::FaceX:
    return 0;
  case Location::FaceY:
    return 1;
  case Location::FaceZ:
    return 2;
  default:
    return -1;
  }
}

inline std::string to_string(Location loc) {
  switch (loc) {
  case Location::Cell:
    return "cell";
  case Location::FaceX:
    return "face-x";
  case Location::FaceY:
    return "face-y";
  case Location::FaceZ:
    return "face-z";
  case Location::Node:
    return "node";
  }
  return "?";
}

/// True if `loc` sits on cell boundaries along `axis` (N cells give N + 1 points there when the
/// axis is not periodic): a face along its normal, a node along every axis of a `dim`-D domain.
inline bool staggered(Location loc, int axis, int dim) {
  return loc == Location::Node ? axis < dim : normal_axis(loc) == axis;
}

/// A half-open box [begin, end) of indices along three axes. In 2D the z range is [0, 1).
/// Used both for local array indices (a field's owned or ghosted space) and for global indices.
struct IndexSpace {
  std::array<long, 3> begin{0, 0, 0};
  std::array<long, 3> end{0, 0, 0};

  long extent(int axis) const { return end[axis] > begin[axis] ? end[axis] - begin[axis] : 0; }
  long size() const { return extent(0) * extent(1) * extent(2); }
  bool empty() const { return size() == 0; }
  bool contains(long i, long j, long k) const {
    return i >= begin[0] && i < end[0] && j >= begin[1] && j < end[1] && k >= begin[2] &&
           k < end[2];
  }
  /// The same box moved by `shift`.
  IndexSpace shifted(const std::array<long, 3>& shift) const {
    IndexSpace out = *this;
    for (int a = 0; a < 3; ++a) {
      out.begin[a] += shift[a];
      out.end[a] += shift[a];
    }
    return out;
  }
};

inline bool operator==(const IndexSpace& a, const IndexSpace& b) {
  return a.begin == b.begin && a.end == b.end;
}

} // namespace undertow
