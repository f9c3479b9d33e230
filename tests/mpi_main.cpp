/// One main for every GoogleTest executable: MPI first, then Kokkos, then (for tests of solvers)
/// PETSc, then GoogleTest. Only rank 0
/// prints test progress; a failure on any rank fails the test on every rank (and the exit code).

#include "undertow/core/mpi_start.hpp"
#include "undertow/core/threads.hpp"
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <memory>
#include <mpi.h>
#ifdef UNDERTOW_TEST_WITH_PETSC
#include "undertow/solvers/linear/petsc_session.hpp"
#endif

namespace {

/// Forwards results from ranks other than 0 only when they fail, tagged with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : m_rank(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", m_rank,
                   result.file_name() ? result.file_name() : "?", result.line_number(),
                   result.summary());
  }

 private:
  int m_rank;
};

} // namespace

int main(int argc, char** argv) {
  undertow::mpi_init(argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int failed = 0;
  {
    const undertow::KokkosSession kokkos(MPI_COMM_WORLD, argc, argv);
#ifdef UNDERTOW_TEST_WITH_PETSC
    const undertow::linear::PetscSession petsc(MPI_COMM_WORLD);
#endif
    ::testing::InitGoogleTest(&argc, argv);
    if (rank != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new RankFailurePrinter(rank));
    }
    failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  }
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}
