// Global reductions and gathers give the same exact answers on any number of ranks.

#include "test_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"

#include <gtest/gtest.h>
#include <type_traits>

namespace {

using namespace undertow;
using undertow::testing::make_spec;
using undertow::testing::world;

/// Sets the owned values of `f` to their global linear index (k fastest).
void set_to_global_index(Field& f) {
  const FieldLayout lay = f.layout();
  const FieldView v = f.view();
  const long o0 = lay.global_offset[0], o1 = lay.global_offset[1], o2 = lay.global_offset[2];
  const long n1 = lay.global.extent(1), n2 = lay.global.extent(2);
  for_each(
      "test::global_index", f.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        v(i, j, k) = double(((i + o0) * n1 + (j + o1)) * n2 + (k + o2));
      });
}

TEST(Reductions, SumMaxDotAreExact) {
  const auto& comm = world();
  for (int dim = 2; dim <= 3; ++dim) {
    const Domain d(comm, make_spec(dim, {17, 13, 11}, {false, true, false}));
    for (const Location loc : {Location::Cell, Location::FaceX, Location::FaceY}) {
      Field f(d, loc, 2, "f");
      fill_value(f, f.ghosted(), 1.0e30); // ghosts hold garbage that must not count
      set_to_global_index(f);
      const double n = double(f.layout().global.size());
      EXPECT_EQ(global_sum(comm, f), n * (n - 1) / 2);
      EXPECT_EQ(global_max(comm, f), n - 1);
      EXPECT_EQ(global_max_abs(comm, f), n - 1);
      EXPECT_EQ(global_dot(comm, f, f), (n - 1) * n * (2 * n - 1) / 6);
    }
  }
}

/// Values whose sum depends on the order of the additions (their magnitudes span 16 decades).
void set_to_order_sensitive_values(Field& f) {
  const FieldView v = f.view();
  for_each(
      "test::order_sensitive", f.ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long n = i + 7 * j + 31 * k;
        v(i, j, k) = (n % 3 == 0 ? 1.0e16 : 1.0) * (n % 2 ? 1.0 : -0.7) + 1.0e-3 * double(n % 11);
      });
}

/// A sum, a sum of squares and a maximum over a space.
struct ThreeReductions {
  double sum = 0, squares = 0, max = 0;
};

/// The three by Kokkos' three-index MDRange reductions (the form local_sum had before).
ThreeReductions three_index_reductions(const FieldView& v, const IndexSpace& space) {
  ThreeReductions r;
  Kokkos::parallel_reduce(
      "test::mdrange_sum", policy(space),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += v(i, j, k); }, r.sum);
  Kokkos::parallel_reduce(
      "test::mdrange_squares", policy(space),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += v(i, j, k) * v(i, j, k); },
      r.squares);
  Kokkos::parallel_reduce(
      "test::mdrange_max", policy(space),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        acc = v(i, j, k) > acc ? v(i, j, k) : acc;
      },
      Kokkos::Max<double>(r.max));
  return r;
}

/// The three by local_sum, local_sums (the sum again, and the squares) and local_max.
ThreeReductions local_reductions(const FieldView& v, const IndexSpace& space, double& pair_sum) {
  ThreeReductions r;
  r.sum = local_sum(
      "test::row_sum", space,
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += v(i, j, k); });
  const SumPair pair = local_sums(
      "test::row_sums", space, KOKKOS_LAMBDA(long i, long j, long k, SumPair& acc) {
        acc.first += v(i, j, k);
        acc.second += v(i, j, k) * v(i, j, k);
      });
  pair_sum = pair.first;
  r.squares = pair.second;
  r.max = local_max(
      "test::row_max", space, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        acc = v(i, j, k) > acc ? v(i, j, k) : acc;
      });
  return r;
}

// local_sum, local_sums and local_max run row by row on host backends, with the partial sums in
// registers; on the Serial backend they must add the points in the order of the three-index
// MDRange reduction they replaced, so that every result stays bitwise what it was. Spaces with
// odd j and k extents leave the 2 x 2 row tiles partial at their ends.
TEST(Reductions, RowReductionsAddInTheOrderOfTheThreeIndexReduction) {
  const auto& comm = world();
  for (int dim = 2; dim <= 3; ++dim) {
    const Domain d(comm, make_spec(dim, {9, 7, 5}, {false, false, false}));
    Field f(d, Location::FaceX, 2, "f");
    set_to_order_sensitive_values(f);
    for (const IndexSpace& space : {f.owned(), f.ghosted()}) {
      const ThreeReductions mdrange = three_index_reductions(f.view(), space);
      double pair_sum = 0;
      const ThreeReductions rows = local_reductions(f.view(), space, pair_sum);
      EXPECT_EQ(rows.max, mdrange.max);
      if (std::is_same<ExecutionSpace, Kokkos::Serial>::value) {
        EXPECT_EQ(rows.sum, mdrange.sum) << "dim " << dim;
        EXPECT_EQ(pair_sum, mdrange.sum) << "dim " << dim;
        EXPECT_EQ(rows.squares, mdrange.squares) << "dim " << dim;
      } else { // threads add their partial sums: the same to round-off of the largest terms
        EXPECT_NEAR(rows.sum, mdrange.sum, 1e-14 * 1e16 * double(space.size()));
        EXPECT_NEAR(rows.squares, mdrange.squares, 1e-14 * mdrange.squares);
      }
    }
  }
}

TEST(Reductions, GatherToRootRestoresGlobalOrder) {
  const auto& comm = world();
  const Domain d(comm, make_spec(3, {7, 6, 5}, {true, false, false}));
  Field f(d, Location::FaceY, 1, "f");
  set_to_global_index(f);
  const std::vector<double> all = gather_to_root(comm, f);
  if (comm.is_root()) {
    ASSERT_EQ(all.size(), static_cast<std::size_t>(7 * 7 * 5));
    for (std::size_t p = 0; p < all.size(); ++p)
      ASSERT_EQ(all[p], double(p));
  } else {
    EXPECT_TRUE(all.empty());
  }
}

TEST(Reductions, CommunicatorHelpers) {
  const auto& comm = world();
  EXPECT_EQ(comm.sum(1.0), double(comm.size()));
  EXPECT_EQ(comm.max(double(comm.rank())), double(comm.size() - 1));
  EXPECT_EQ(comm.min(double(comm.rank())), 0.0);
  EXPECT_EQ(comm.sum(2LL), 2LL * comm.size());
  EXPECT_EQ(comm.broadcast(comm.is_root() ? "from root" : "other"), "from root");
  const auto v = comm.sum(std::vector<double>{1.0, double(comm.rank())});
  EXPECT_EQ(v[0], double(comm.size()));
}

TEST(Reductions, RunOnRootMakesFailuresCollective) {
  const auto& comm = world();
  EXPECT_THROW(run_on_root(comm, [] { throw ConfigError("bad input"); }), ConfigError);
  try {
    run_on_root(comm, [] { throw std::runtime_error("disk full"); });
    FAIL() << "no exception";
  } catch (const CollectiveError& e) {
    EXPECT_STREQ(e.what(), "disk full");
  }
  int calls = 0;
  run_on_root(comm, [&] { ++calls; });
  EXPECT_EQ(calls, comm.is_root() ? 1 : 0);
}

} // namespace
