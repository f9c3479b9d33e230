#pragma once
// Helpers shared by the MPI tests.

#include "undertow/core/domain.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/hash.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mpi.h>
#include <vector>

namespace undertow {
namespace testing {

/// The communicator every test runs on (the executable's world; library code never sees it).
inline const Communicator& world() {
  static const Communicator comm(MPI_COMM_WORLD);
  return comm;
}

/// Every location of a dim-D domain: cell centres, the dim face locations, nodes.
inline std::vector<Location> locations(int dim) {
  std::vector<Location> out{Location::Cell, Location::FaceX, Location::FaceY};
  if (dim == 3)
    out.push_back(Location::FaceZ);
  out.push_back(Location::Node);
  return out;
}

/// Faces of [origin, origin + length] on n cells at origin + length (xi + a sin(2 pi xi) /
/// (2 pi)), xi = i / n: cells 1 + a times the mean width in the middle and 1 - a at both ends,
/// smoothly (a DomainSpec::faces entry of a stretched axis).
inline std::vector<double> smoothly_stretched(long n, double length, double a,
                                              double origin = 0.0) {
  const double two_pi = 8.0 * std::atan(1.0);
  std::vector<double> f;
  for (long i = 0; i <= n; ++i) {
    const double xi = double(i) / double(n);
    f.push_back(origin + (i == n ? length : length * (xi + a * std::sin(two_pi * xi) / two_pi)));
  }
  return f;
}

/// `s` with every active axis stretched by smoothly_stretched(..., a, origin): cells 1 + a times
/// the mean width in the middle, 1 - a at the ends; a = 0 gives faces of equal widths (the
/// stretched code path on a uniform grid).
inline DomainSpec stretch_axes(DomainSpec s, double a) {
  for (int axis = 0; axis < s.dim; ++axis)
    s.faces[std::size_t(axis)] =
        smoothly_stretched(s.cells[axis], s.length[axis], a, s.origin[axis]);
  return s;
}

/// Every process grid (px, py, pz) with product `size` (pz = 1 in 2D).
inline std::vector<std::array<int, 3>> process_grids(int dim, int size) {
  std::vector<std::array<int, 3>> out;
  for (int px = 1; px <= size; ++px)
    for (int py = 1; py <= size; ++py)
      for (int pz = 1; pz <= (dim == 3 ? size : 1); ++pz)
        if (px * py * pz == size)
          out.push_back({px, py, pz});
  return out;
}

inline DomainSpec make_spec(int dim, std::array<long, 3> cells, std::array<bool, 3> periodic,
                            std::array<int, 3> ranks = {0, 0, 0}) {
  DomainSpec s;
  s.dim = dim;
  s.cells = cells;
  if (dim == 2) {
    s.cells[2] = 1;
    periodic[2] = false;
    ranks[2] = 1;
  }
  s.periodic = periodic;
  s.ranks = ranks;
  s.length = {1.0, 0.75, 0.5};
  s.origin = {-0.5, 0.25, 1.0};
  return s;
}

using undertow::hash_uniform;

/// Fills every local value (ghosts too) of `f` with hash_uniform of (seed, rank, local index).
inline void fill_random(Field& f, std::uint64_t seed, int rank) {
  auto host = Kokkos::create_mirror_view(f.view());
  const auto& e = f.layout().extent;
  for (long i = 0; i < e[0]; ++i)
    for (long j = 0; j < e[1]; ++j)
      for (long k = 0; k < e[2]; ++k)
        host(i, j, k) =
            hash_uniform(seed * 1000003ull + std::uint64_t(rank) * 7919ull * 1000003ull +
                         std::uint64_t((i * e[1] + j) * e[2] + k));
  Kokkos::deep_copy(f.view(), host);
}

/// Fills the owned values of `f` with lo + span * hash_uniform(seed, global index): the same
/// field on any decomposition. Not collective.
inline void fill_global_random(Field& f, std::uint64_t seed, double lo = 0.0, double span = 1.0) {
  auto host = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(host, f.view());
  const IndexSpace o = f.owned();
  const auto& off = f.layout().global_offset;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        host(i, j, k) =
            lo + span * hash_uniform(
                            seed * 1000003ull +
                            std::uint64_t(((k + off[2]) * 1000 + j + off[1]) * 1000 + i + off[0]));
  Kokkos::deep_copy(f.view(), host);
}

/// max |a - b| / max |a| over two equally long vectors (0 if a is all zero). Not collective.
inline double relative_max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 0, diff = 0;
  for (std::size_t q = 0; q < a.size() && q < b.size(); ++q) {
    scale = std::max(scale, std::abs(a[q]));
    diff = std::max(diff, std::abs(a[q] - b[q]));
  }
  return scale > 0 ? diff / scale : diff;
}

/// min over consecutive h of log2(r(h) / r(h/2)), r = |J(m + h dm) - J(m) - h dJ.dm|; or 2 if
/// every remainder is at round-off (J linear along dm). Prints the remainders on rank 0.
/// Collective (J_at is).
inline double taylor_rate(const std::function<double(double)>& J_at, double J0, double slope,
                          const char* what) {
  std::vector<double> r;
  double h = 0.05;
  for (int q = 0; q < 5; ++q, h /= 2)
    r.push_back(std::abs(J_at(h) - J0 - h * slope));
  double rate = HUGE_VAL;
  bool exact = true;
  for (std::size_t q = 0; q < r.size(); ++q)
    exact = exact && r[q] < 1e-11 * std::abs(J0);
  if (exact) {
    if (world().is_root())
      std::printf("%-32s remainders at round-off (J is linear along this direction)\n", what);
    return 2.0;
  }
  for (std::size_t q = 0; q + 1 < r.size(); ++q)
    rate = std::min(rate, std::log2(r[q] / r[q + 1]));
  if (world().is_root())
    std::printf("%-32s remainders %.3e ... %.3e, minimum rate %.3f\n", what, r.front(), r.back(),
                rate);
  return rate;
}

} // namespace testing
} // namespace undertow
