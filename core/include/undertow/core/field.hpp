#pragma once
/// \file
/// Field: a Kokkos View with a staggered location and a ghost width, plus the labelled iteration
/// helpers every kernel uses.

#include "undertow/core/domain.hpp"

#include <Kokkos_Core.hpp>
#include <limits>
#include <string>

namespace undertow {

/// Field storage: 3 indices (i, j, k) in local array coordinates; k has extent 1 in 2D. x is the
/// fastest index (LayoutLeft) on every backend: contiguous inner loops in 2D and 3D on CPUs, and
/// coalesced accesses on GPUs, where neighbouring threads take neighbouring i.
using FieldLayoutTag = Kokkos::LayoutLeft;
using FieldView = Kokkos::View<double***, FieldLayoutTag, MemorySpace>;
/// Iteration order matching the layout: i innermost.
using IterationRank = Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>;

/// Values at one staggered location, with ghost layers, on one rank's part of a Domain.
/// The View is reference-counted: copies of a Field share storage (like Kokkos Views).
class Field {
 public:
  Field() = default;
  /// Allocates a zeroed field labelled `name`. Not collective.
  Field(const Domain& domain, Location loc, int ghost, const std::string& name);
  /// Allocates a field with the layout of another one (e.g. a copy), zeroed unless `zero` is
  /// false (then its values are undefined until written). Not collective.
  Field(const FieldLayout& layout, const std::string& name, bool zero = true);

  const std::string& name() const { return m_name; }
  Location location() const { return m_layout.location; }
  int ghost() const { return m_layout.ghost; }
  const FieldLayout& layout() const { return m_layout; }
  /// Owned points, in local indices.
  const IndexSpace& owned() const { return m_layout.owned; }
  /// The whole local array, ghosts included.
  const IndexSpace& ghosted() const { return m_layout.ghosted; }
  const GridGeometry& geometry() const { return m_layout.geometry; }
  const FieldView& view() const { return m_view; }

 private:
  std::string m_name;
  FieldLayout m_layout;
  FieldView m_view;
};

/// MDRange policy over an index space.
inline Kokkos::MDRangePolicy<ExecutionSpace, IterationRank> policy(const IndexSpace& space) {
  return Kokkos::MDRangePolicy<ExecutionSpace, IterationRank>(
      {space.begin[0], space.begin[1], space.begin[2]}, {space.end[0], space.end[1], space.end[2]});
}

/// Runs `f(i, j, k)` over `space` as the kernel `label`. An empty space launches nothing.
template <class Functor>
void for_each(const std::string& label, const IndexSpace& space, const Functor& f) {
  if (space.empty())
    return;
  Kokkos::parallel_for(label, policy(space), f);
}

/// MDRange policy over the (j, k) rows of an index space (its axes 1 and 2).
using RowPolicy =
    Kokkos::MDRangePolicy<ExecutionSpace,
                          Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>>;
inline RowPolicy row_policy(const IndexSpace& space) {
  return RowPolicy({space.begin[1], space.begin[2]}, {space.end[1], space.end[2]});
}

/// for_each for kernels in which no point reads what another point writes (a stencil's output
/// is not its input; a point may read its own value before writing it): on a host backend, the
/// (j, k) rows in parallel and each row's i loop marked free of loop-carried dependences, so
/// that GCC vectorises it without run-time alias checks and a scalar fallback; on a device,
/// for_each. The same values as for_each, bitwise (each point is computed alone). The caller
/// guarantees the condition.
template <class Functor>
void for_each_rows(const std::string& label, const IndexSpace& space, const Functor& f) {
  if (space.empty())
    return;
  // A host execution space (Serial, OpenMP), whatever memory space it defaults to: a CUDA build
  // with UVM memory is host-accessible memory but a device execution space.
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    const long i0 = space.begin[0], i1 = space.end[0];
    Kokkos::parallel_for(label, row_policy(space), [=](long j, long k) {
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
      for (long i = i0; i < i1; ++i)
        f(i, j, k);
    });
  } else {
    for_each(label, space, f);
  }
}

/// The device form of for_each_colour: point ii of a (j, k) row is the row's ii-th point of
/// the colour (a functor rather than a lambda, so that it nests in any caller's on every
/// backend).
template <class Functor>
struct ColourPoints {
  Functor f;
  long i0, i1, origin;
  int colour;
  KOKKOS_INLINE_FUNCTION void operator()(long ii, long j, long k) const {
    const long i = i0 + 2 * ii + (((i0 + j + k + origin) & 1) ^ colour);
    if (i < i1)
      f(i, j, k);
  }
};

/// Runs `f(i, j, k)` over one colour of a red-black ordering of `space`: the points whose
/// i + j + k + origin is even (colour 0) or odd (colour 1), `origin` the sum of the global
/// offsets of the indices. The points of one colour must not read each other's writes (a
/// red-black Gauss-Seidel half-sweep reads only the other colour). On a host backend, the (j, k)
/// rows in parallel and each row's i loop, of stride 2, marked free of loop-carried
/// dependences (as for_each_rows); on a device, one thread per point of the colour. The same
/// values either way, bitwise.
template <class Functor>
void for_each_colour(const std::string& label, const IndexSpace& space, long origin, int colour,
                     const Functor& f) {
  if (space.empty())
    return;
  const long i0 = space.begin[0], i1 = space.end[0];
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    Kokkos::parallel_for(label, row_policy(space), [=](long j, long k) {
      const long first = i0 + (((i0 + j + k + origin) & 1) ^ colour);
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
      for (long i = first; i < i1; i += 2)
        f(i, j, k);
    });
  } else {
    IndexSpace half = space;
    half.begin[0] = 0;
    half.end[0] = (i1 - i0 + 1) / 2;
    Kokkos::parallel_for(label, policy(half), ColourPoints<Functor>{f, i0, i1, origin, colour});
  }
}

/// The (j, k) rows of an index space tiled as `policy` tiles its (j, k) plane on a host
/// backend (2 x 2 rows a tile, the tiles and their rows in the same order): row by row, the
/// three-index policy's order of points.
inline RowPolicy reduction_row_policy(const IndexSpace& space) {
  return RowPolicy({space.begin[1], space.begin[2]}, {space.end[1], space.end[2]}, {2, 2});
}

/// The host form of a local reduction: `f(i, j, k, acc)` along one (j, k) row, added into a
/// local copy of the accumulator. Through the reference itself GCC keeps the accumulator in
/// memory whenever the kernel also stores (a store might alias it), and each point then waits
/// for a store and a load as well as its addition; the copy lives in a register. The points are
/// added one after the other, in the order of the three-index reduction: the same sums, bitwise.
template <class Functor, class Value>
struct RowReduction {
  Functor f;
  long i0, i1;
  void operator()(long j, long k, Value& acc) const {
    Value local = acc;
    for (long i = i0; i < i1; ++i)
      f(i, j, k, local);
    acc = local;
  }
};

/// Runs the reduction of `f` over `space` into `reducer` (whose value type is Value): row by
/// row on a host backend (RowReduction), point by point on a device.
template <class Value, class Functor, class Reducer>
void reduce_points(const std::string& label, const IndexSpace& space, const Functor& f,
                   const Reducer& reducer) {
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible)
    Kokkos::parallel_reduce(label, reduction_row_policy(space),
                            RowReduction<Functor, Value>{f, space.begin[0], space.end[0]}, reducer);
  else
    Kokkos::parallel_reduce(label, policy(space), f, reducer);
}

/// Sums `f(i, j, k, double& acc)` over `space` on this rank (not collective). On a host
/// backend the points are added in the order of a three-index MDRange reduction (the results
/// are those of one, bitwise, on the Serial backend), with the partial sum in a register.
template <class Functor>
double local_sum(const std::string& label, const IndexSpace& space, const Functor& f) {
  double result = 0;
  if (!space.empty())
    reduce_points<double>(label, space, f, Kokkos::Sum<double>(result));
  return result;
}

/// Two sums in one pass: the value of local_sums.
struct SumPair {
  double first = 0, second = 0;
};

/// The Kokkos reducer of local_sums: SumPair added member by member.
class SumPairReducer {
 public:
  using reducer = SumPairReducer;
  using value_type = SumPair;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

  KOKKOS_INLINE_FUNCTION explicit SumPairReducer(value_type& value) : m_value(&value) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const {
    dest.first += src.first;
    dest.second += src.second;
  }
#if KOKKOS_VERSION < 40000
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest,
                                   const volatile value_type& src) const {
    dest.first += src.first;
    dest.second += src.second;
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const {
    value.first = 0;
    value.second = 0;
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const {
    return *m_value.data();
  }
  KOKKOS_INLINE_FUNCTION result_view_type view() const {
    return m_value;
  }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const {
    return true;
  }

 private:
  result_view_type m_value;
};

/// Sums `f(i, j, k, SumPair& acc)` over `space` on this rank (not collective): two sums for the
/// price of one pass, each added in the order local_sum would add it.
template <class Functor>
SumPair local_sums(const std::string& label, const IndexSpace& space, const Functor& f) {
  SumPair result;
  if (!space.empty())
    reduce_points<SumPair>(label, space, f, SumPairReducer(result));
  return result;
}

/// Maximum of `f(i, j, k, double& acc)` over `space` on this rank; -infinity if empty.
template <class Functor>
double local_max(const std::string& label, const IndexSpace& space, const Functor& f) {
  double result = -std::numeric_limits<double>::infinity();
  if (!space.empty())
    reduce_points<double>(label, space, f, Kokkos::Max<double>(result));
  return result;
}

/// An IndexSpace's box in a form kernels can test on any backend. IndexSpace holds std::arrays,
/// whose operator[] is a host function: CUDA device code that calls it does not compute the
/// index (nvcc only warns; undertow's CUDA builds make that warning an error). Device-copyable.
struct KernelBox {
  long begin[3], end[3];

  explicit KernelBox(const IndexSpace& s)
      : begin{s.begin[0], s.begin[1], s.begin[2]}, end{s.end[0], s.end[1], s.end[2]} {}
  KOKKOS_INLINE_FUNCTION bool contains(long i, long j, long k) const {
    return i >= begin[0] && i < end[0] && j >= begin[1] && j < end[1] && k >= begin[2] &&
           k < end[2];
  }
  KOKKOS_INLINE_FUNCTION long extent(int a) const { return end[a] - begin[a]; }
  /// Position of (i, j, k) in the box, i fastest.
  KOKKOS_INLINE_FUNCTION long packed(long i, long j, long k) const {
    return ((k - begin[2]) * extent(1) + (j - begin[1])) * extent(0) + (i - begin[0]);
  }
};

/// Maps a local index of one field's array to the local index of the same global point in
/// another's (fields of different ghost widths or locations): to = from + s. Device-copyable.
struct IndexShift {
  long s[3];
};

/// The shift from `from`'s local indices to `to`'s. Not collective.
inline IndexShift index_shift(const Field& from, const Field& to) {
  IndexShift shift;
  for (int a = 0; a < 3; ++a)
    shift.s[a] = from.layout().global_offset[a] - to.layout().global_offset[a];
  return shift;
}

/// Sets every point of `space` (local indices) of `field` to `value`.
void fill_value(Field& field, const IndexSpace& space, double value);

/// y := a * x + y over the owned points. Fields must share location and layout.
void axpy(double a, const Field& x, Field& y);
/// dst := src over every local point (ghosts included).
void copy(const Field& src, Field& dst);
/// dst := scale * src over dst's owned points, read from src at the same global points (src's
/// array must hold them: same owned box with another ghost width, or a gathered whole grid). Not
/// collective.
void copy_owned(const Field& src, Field& dst, double scale = 1.0);

/// f := f / V (divide) or f V over `space`, V the control volume of each point of f's layout
/// (GridGeometry::control_volume) [m^dim]. Not collective.
void scale_by_control_volume(Field& f, const IndexSpace& space, int dim, bool divide);

} // namespace undertow
