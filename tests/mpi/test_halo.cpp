// HaloPlan: fill is exact for every location, in 2D and 3D, with periodic and non-periodic axes,
// uneven splits, every process grid and ghost widths 1 to 3; scatter_add is its exact transpose
// (dot-product test) and zeroes the halo ghosts it folded back.

#include "test_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/halo.hpp"
#include "undertow/core/reductions.hpp"

#include <gtest/gtest.h>

namespace {

using namespace undertow;
using undertow::testing::fill_random;
using undertow::testing::locations;
using undertow::testing::make_spec;
using undertow::testing::process_grids;
using undertow::testing::world;

constexpr double kSentinel = -12345.0;

/// A value unique to each global point.
double code(long i, long j, long k) {
  return 1.0 + double(i) + 1000.0 * double(j) + 1.0e6 * double(k);
}

struct Case {
  int dim;
  std::array<long, 3> cells;
  std::array<bool, 3> periodic;
  int ghost;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int ghost = 1; ghost <= 2; ++ghost) {
    for (const auto& p : std::vector<std::array<bool, 3>>{
             {false, false, false}, {true, false, false}, {false, true, false}, {true, true, true}})
      out.push_back({2, {37, 23, 1}, p, ghost});
    for (const auto& p : std::vector<std::array<bool, 3>>{
             {false, false, false}, {true, false, true}, {true, true, true}})
      out.push_back({3, {17, 13, 11}, p, ghost});
  }
  // Subdomains thinner than the ghost width: ghosts reach past the nearest neighbour.
  out.push_back({2, {5, 4, 1}, {true, true, false}, 3});
  out.push_back({3, {4, 5, 3}, {true, false, true}, 3});
  return out;
}

std::string describe(const Case& c, const std::array<int, 3>& grid, Location loc) {
  return std::to_string(c.dim) + "D " + std::to_string(c.cells[0]) + "x" +
         std::to_string(c.cells[1]) + "x" + std::to_string(c.cells[2]) + " periodic " +
         std::to_string(c.periodic[0]) + std::to_string(c.periodic[1]) +
         std::to_string(c.periodic[2]) + " ghost " + std::to_string(c.ghost) + " grid " +
         std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]) +
         " " + to_string(loc);
}

/// Calls `test(case, grid, domain, location)` for every case, process grid and location.
template <class Test>
void for_every_configuration(const Test& test) {
  const auto& comm = world();
  for (const Case& c : cases()) {
    for (const auto& grid : process_grids(c.dim, comm.size())) {
      bool fits = true;
      for (int a = 0; a < 3; ++a)
        fits = fits && grid[a] <= c.cells[a];
      if (!fits)
        continue;
      const Domain d(comm, make_spec(c.dim, c.cells, c.periodic, grid));
      for (const Location loc : locations(c.dim))
        test(c, grid, d, loc);
    }
  }
}

TEST(Halo, FillIsExactForEveryLocation) {
  long checked = 0;
  for_every_configuration([&](const Case& c, const std::array<int, 3>& grid, const Domain& d,
                              Location loc) {
    Field f(d, loc, c.ghost, "f");
    const FieldLayout& lay = f.layout();
    auto host = Kokkos::create_mirror_view(f.view());
    Kokkos::deep_copy(host, kSentinel);
    for (long i = lay.owned.begin[0]; i < lay.owned.end[0]; ++i)
      for (long j = lay.owned.begin[1]; j < lay.owned.end[1]; ++j)
        for (long k = lay.owned.begin[2]; k < lay.owned.end[2]; ++k)
          host(i, j, k) =
              code(i + lay.global_offset[0], j + lay.global_offset[1], k + lay.global_offset[2]);
    Kokkos::deep_copy(f.view(), host);
    HaloPlan plan(d, loc, c.ghost);
    plan.fill(f);
    Kokkos::deep_copy(host, f.view());

    long wrong = 0;
    for (long i = 0; i < lay.extent[0]; ++i)
      for (long j = 0; j < lay.extent[1]; ++j)
        for (long k = 0; k < lay.extent[2]; ++k) {
          const long local[3] = {i, j, k};
          long global[3];
          bool outside = false;
          for (int a = 0; a < 3; ++a) {
            const long n = lay.global.end[a];
            long g = local[a] + lay.global_offset[a];
            if (d.periodic(a))
              g = ((g % n) + n) % n;
            else if (g < 0 || g >= n)
              outside = true;
            global[a] = g;
          }
          const double expected = outside ? kSentinel : code(global[0], global[1], global[2]);
          if (host(i, j, k) != expected && ++wrong <= 3)
            ADD_FAILURE() << describe(c, grid, loc) << ": local (" << i << "," << j << "," << k
                          << ") holds " << host(i, j, k) << ", expected " << expected;
        }
    EXPECT_EQ(wrong, 0) << describe(c, grid, loc);
    ++checked;
  });
  EXPECT_GT(checked, 40);
}

TEST(Halo, ScatterAddIsTheTransposeOfFill) {
  const auto& comm = world();
  std::uint64_t seed = 1;
  long checked = 0;
  for_every_configuration(
      [&](const Case& c, const std::array<int, 3>& grid, const Domain& d, Location loc) {
        HaloPlan plan(d, loc, c.ghost);
        Field x(d, loc, c.ghost, "x"), y(d, loc, c.ghost, "y");
        Field fx(d, loc, c.ghost, "fill x"), sy(d, loc, c.ghost, "scatter y");
        fill_random(x, ++seed, comm.rank());
        fill_random(y, ++seed, comm.rank());
        copy(x, fx);
        copy(y, sy);
        plan.fill(fx);
        plan.scatter_add(sy);
        // <fill x, y> = <x, scatter_add y> over all local values of all ranks, ghosts included.
        const double lhs = global_dot_with_ghosts(comm, fx, y);
        const double rhs = global_dot_with_ghosts(comm, x, sy);
        EXPECT_LE(std::abs(lhs - rhs), 1e-14 * std::abs(lhs))
            << describe(c, grid, loc) << ": <Fx,y> = " << lhs << ", <x,F'y> = " << rhs;

        // The halo ghosts are zero after scatter_add.
        auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sy.view());
        for (const auto& box : plan.ghost_boxes())
          for (long i = box.begin[0]; i < box.end[0]; ++i)
            for (long j = box.begin[1]; j < box.end[1]; ++j)
              for (long k = box.begin[2]; k < box.end[2]; ++k)
                ASSERT_EQ(host(i, j, k), 0.0) << describe(c, grid, loc);
        ++checked;
      });
  EXPECT_GT(checked, 40);
}

TEST(Halo, SplitFillAllowsWorkBetweenBeginAndEnd) {
  const auto& comm = world();
  const Domain d(comm, make_spec(2, {37, 23, 1}, {true, true, false}));
  Field f(d, Location::Cell, 1, "f"), g(d, Location::Cell, 1, "g"), h(d, Location::Cell, 1, "h");
  fill_random(f, 11, comm.rank());
  copy(f, g);
  HaloPlan plan(d, Location::Cell, 1);
  plan.fill(g);
  plan.fill_begin(f);
  fill_value(h, h.owned(), 2.0); // interior work overlapping the exchange
  plan.fill_end(f);
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.view());
  for (long i = 0; i < f.layout().extent[0]; ++i)
    for (long j = 0; j < f.layout().extent[1]; ++j)
      ASSERT_EQ(a(i, j, 0), b(i, j, 0));
  EXPECT_THROW(plan.fill_end(f), Error);
}

TEST(Halo, PlanRejectsAFieldOfAnotherLayout) {
  const Domain d(world(), make_spec(2, {16, 16, 1}, {false, false, false}));
  HaloPlan plan(d, Location::Cell, 1);
  Field face(d, Location::FaceX, 1, "u");
  Field wide(d, Location::Cell, 2, "wide");
  EXPECT_THROW(plan.fill(face), Error);
  EXPECT_THROW(plan.scatter_add(wide), Error);
}

} // namespace
