#include "undertow/core/threads.hpp"

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#if defined(KOKKOS_ENABLE_OPENMP)
#include <omp.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace undertow {

namespace {

/// True if the user chose the thread count: OMP_NUM_THREADS, or a Kokkos thread option.
bool threads_chosen(int argc, char** argv) {
  if (std::getenv("OMP_NUM_THREADS") || std::getenv("KOKKOS_NUM_THREADS"))
    return true;
  for (int i = 1; i < argc; ++i)
    if (argv[i] && (std::strncmp(argv[i], "--kokkos-threads", 16) == 0 ||
                    std::strncmp(argv[i], "--kokkos-num-threads", 20) == 0))
      return true;
  return false;
}

} // namespace

int choose_threads_per_rank(MPI_Comm comm, int argc, char** argv) {
#if defined(KOKKOS_ENABLE_OPENMP)
  // The CPUs each rank of this node may run on (collective: every rank takes part).
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof(mine), &mine) != 0) {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < online && c < CPU_SETSIZE; ++c)
      CPU_SET(static_cast<int>(c), &mine);
  }
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int ranks_on_node = 1;
  MPI_Comm_size(node, &ranks_on_node);
  std::vector<cpu_set_t> masks(static_cast<std::size_t>(ranks_on_node));
  MPI_Allgather(&mine, sizeof(cpu_set_t), MPI_BYTE, masks.data(), sizeof(cpu_set_t), MPI_BYTE,
                node);
  MPI_Comm_free(&node);
  if (threads_chosen(argc, argv))
    return 0;
  // The ranks that may run on exactly these CPUs share them: one rank bound to its own cores
  // has them all; unbound ranks (all the node's CPUs) split them.
  int sharing = 0;
  for (const cpu_set_t& m : masks)
    sharing += CPU_EQUAL(&m, &mine) ? 1 : 0;
  int threads = CPU_COUNT(&mine) / (sharing > 0 ? sharing : 1);
  if (threads < 1)
    threads = 1;
  omp_set_num_threads(threads);
  return threads;
#else
  (void)comm;
  return threads_chosen(argc, argv) ? 0 : 1;
#endif
}

KokkosSession::KokkosSession(MPI_Comm comm, int& argc, char** argv) {
  choose_threads_per_rank(comm, argc, argv);
  Kokkos::initialize(argc, argv);
}

KokkosSession::~KokkosSession() {
  Kokkos::finalize();
}

std::string parallel_layout(const Communicator& comm) {
  using Space = Kokkos::DefaultExecutionSpace;
  std::string text = std::to_string(comm.size()) + " MPI rank(s), Kokkos " + Space::name();
#if defined(KOKKOS_ENABLE_OPENMP)
  if (std::is_same<Space, Kokkos::OpenMP>::value) {
    const long long threads = Space().concurrency();
    const long long fewest = -comm.max(-threads), most = comm.max(threads);
    text += " with " + std::to_string(fewest) +
            (most != fewest ? "-" + std::to_string(most) : std::string()) + " thread" +
            (most > 1 ? "s" : "") + " a rank";
  }
#endif
  return text;
}

} // namespace undertow
