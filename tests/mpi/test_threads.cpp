// The threads of each rank on a threaded Kokkos backend (core/include/undertow/core/threads.hpp):
// the ranks of a node share its CPUs, neither leaving them idle nor oversubscribing them, and a
// thread count the user chose is left alone.

#include "test_support.hpp"

#include "undertow/core/threads.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <sched.h>
#endif

namespace {

TEST(ThreadsPerRank, TheRanksOfANodeShareItsCpus) {
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
#if !defined(KOKKOS_ENABLE_OPENMP)
  EXPECT_EQ(threads, 1);
  GTEST_SKIP() << "the host backend runs no threads";
#else
  if (std::getenv("OMP_NUM_THREADS"))
    GTEST_SKIP() << "OMP_NUM_THREADS chose the threads";
  // The test environment leaves ranks unbound: every rank may run on the same CPUs.
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  const int cpus = CPU_COUNT(&mask);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int ranks = 1, all_threads = 0;
  MPI_Comm_size(node, &ranks);
  MPI_Allreduce(&threads, &all_threads, 1, MPI_INT, MPI_SUM, node);
  MPI_Comm_free(&node);
  EXPECT_GE(threads, 1);
  EXPECT_LE(all_threads, std::max(cpus, ranks)) << cpus << " CPUs, " << ranks << " ranks";
  EXPECT_GT(all_threads, cpus - ranks) << cpus << " CPUs, " << ranks << " ranks";
#endif
}

TEST(ThreadsPerRank, AThreadCountTheUserChoseIsKept) {
  char program[] = "undertow", option[] = "--kokkos-threads=3";
  char* argv[] = {program, option, nullptr};
  EXPECT_EQ(undertow::choose_threads_per_rank(MPI_COMM_WORLD, 2, argv), 0);
}

TEST(ThreadsPerRank, TheStartLineNamesRanksBackendAndThreads) {
  const auto& comm = undertow::testing::world();
  const std::string text = undertow::parallel_layout(comm);
  const std::string start =
      std::to_string(comm.size()) + " MPI rank(s), Kokkos " + Kokkos::DefaultExecutionSpace::name();
  EXPECT_EQ(text.substr(0, start.size()), start) << text;
#if defined(KOKKOS_ENABLE_OPENMP)
  const std::string threads = std::to_string(Kokkos::DefaultExecutionSpace().concurrency());
  EXPECT_NE(text.find(" with " + threads + " thread"), std::string::npos) << text;
#else
  EXPECT_EQ(text, start);
#endif
}

} // namespace
