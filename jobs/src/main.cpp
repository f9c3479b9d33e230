/// The `undertow` executable. Order of life: MPI, then Kokkos, then PETSc, then the subcommand;
/// they are finalised in reverse order. Error policy:
///   - ConfigError / CollectiveError / Stopped: every rank raised it, rank 0 prints it, all ranks
///     exit cleanly with code 2 (bad input), 3 (run failure) or 75 (stopped with its state
///     saved, to be continued: a requeue).
///   - any other exception: raised on some ranks only; that rank prints it with its rank number
///     and aborts the whole job (MPI_Abort), so the other ranks never hang.

#include "commands.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/mpi_start.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <mpi.h>
#include <string>
#include <thread>

namespace {

void usage(std::FILE* out) {
  std::fprintf(
      out, "usage: undertow <command> [arguments]\n"
           "commands:\n"
           "  info                      versions of undertow and its dependencies\n"
           "  run CASE.ini [options]    run a case ('undertow run --help' for options)\n"
           "  gradient CASE.ini [opts]  J and dJ/dm by the discrete adjoint, with --taylor and\n"
           "                            --fd checks ('undertow gradient --help')\n"
           "  optimize CASE.ini [opts]  shape optimisation with TAO and adjoint gradients\n"
           "                            ('undertow optimize --help')\n"
           "  submit CASE.ini [run|gradient|optimize] --walltime T [opts]\n"
           "                            a Slurm or PBS batch job that requeues itself until it\n"
           "                            is done ('undertow submit --help'); --sweep key=v1,v2\n"
           "                            makes it a job array, one folder per point\n"
           "  collect DIR               a sweep's reports (DIR/point_*) into DIR/sweep.csv\n"
           "  keys [--markdown]         every case-file key with its default and meaning\n");
}

} // namespace

int main(int argc, char** argv) {
  undertow::jobs::remember_start_environment();
  undertow::mpi_init(argc, argv);
  int code = undertow::jobs::kSuccess;
  {
    const undertow::KokkosSession kokkos(MPI_COMM_WORLD, argc, argv);
    const undertow::linear::PetscSession petsc(MPI_COMM_WORLD);
    int world_rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    try {
      const undertow::Communicator comm(MPI_COMM_WORLD);
      const std::string command = argc > 1 ? argv[1] : "";
      const std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
      using Handler = int (*)(const undertow::Communicator&, const std::vector<std::string>&);
      const std::map<std::string, Handler> handlers = {
          {"info", undertow::jobs::command_info},
          {"run", undertow::jobs::command_run},
          {"gradient", undertow::jobs::command_gradient},
          {"optimize", undertow::jobs::command_optimize},
          {"submit", undertow::jobs::command_submit},
          {"collect", undertow::jobs::command_collect},
          {"keys", undertow::jobs::command_keys}};
      const auto it = handlers.find(command);
      if (command == "--help" || command == "-h" || command == "help") {
        if (comm.is_root())
          usage(stdout);
      } else if (it == handlers.end()) {
        if (comm.is_root()) {
          if (command.empty())
            std::fprintf(stderr, "undertow: error: no command given\n");
          else
            std::fprintf(stderr, "undertow: error: unknown command '%s'\n", command.c_str());
          usage(stderr);
        }
        code = undertow::jobs::kUsageError;
      } else {
        code = it->second(comm, args);
      }
    } catch (const undertow::ConfigError& e) {
      if (world_rank == 0) {
        std::fprintf(stderr, "undertow: error: %s\n", e.what());
        undertow::write_to_command_log(std::string("undertow: error: ") + e.what());
      }
      code = undertow::jobs::kUsageError;
    } catch (const undertow::Stopped& e) {
      if (world_rank == 0) {
        std::fprintf(stderr, "undertow: %s\n", e.what()); // "stopped by ..."
        undertow::write_to_command_log(std::string("undertow: ") + e.what());
      }
      code = undertow::jobs::kStopped;
    } catch (const undertow::CollectiveError& e) {
      if (world_rank == 0) {
        std::fprintf(stderr, "undertow: error: %s\n", e.what());
        undertow::write_to_command_log(std::string("undertow: error: ") + e.what());
      }
      code = undertow::jobs::kRunFailed;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "undertow: error on rank %d: %s\nundertow: aborting all ranks\n",
                   world_rank, e.what());
      undertow::write_to_command_log("undertow: error on rank " + std::to_string(world_rank) +
                                     ": " + e.what());
      // Everything this rank printed goes out before the abort, and mpirun gets a moment to
      // forward it: the abort ends the forwarding, which cut rank 0's configuration listing.
      std::cout.flush();
      std::fflush(stdout);
      std::fflush(stderr);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      MPI_Abort(MPI_COMM_WORLD, undertow::jobs::kRunFailed);
    }
  }
  MPI_Finalize();
  return code;
}
