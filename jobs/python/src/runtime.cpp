#include "runtime.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mpi.h>
#include <thread>
#include <vector>

namespace undertow {
namespace python {

namespace {

struct Runtime {
  bool initialized = false;
  bool finalized = false;
  bool owns_kokkos = false;
  std::unique_ptr<linear::PetscSession> petsc;
  std::vector<std::weak_ptr<Resource>> resources;
};

Runtime& runtime() {
  static Runtime r;
  return r;
}

} // namespace

void initialize() {
  Runtime& r = runtime();
  if (r.initialized)
    return;
  int mpi = 0;
  MPI_Initialized(&mpi);
  if (!mpi)
    throw Error("MPI is not initialised: import undertow (which imports mpi4py first) rather "
                "than undertow._undertow");
  if (!Kokkos::is_initialized()) {
    choose_threads_per_rank(MPI_COMM_WORLD, 0, nullptr);
    Kokkos::initialize();
    r.owns_kokkos = true;
  }
  r.petsc = std::make_unique<linear::PetscSession>(MPI_COMM_WORLD);
  r.initialized = true;
}

void finalize() {
  Runtime& r = runtime();
  if (!r.initialized || r.finalized)
    return;
  for (auto& weak : r.resources)
    if (auto resource = weak.lock())
      resource->release();
  r.resources.clear();
  r.petsc.reset();
  if (r.owns_kokkos && Kokkos::is_initialized())
    Kokkos::finalize();
  r.finalized = true;
}

void require_runtime() {
  const Runtime& r = runtime();
  if (!r.initialized || r.finalized)
    throw CollectiveError("undertow's runtime is not running (finalised at exit, or the "
                          "extension was imported without the package): import undertow");
}

void track(const std::shared_ptr<Resource>& resource) {
  auto& list = runtime().resources;
  // Forget the ones already gone, so that a training loop's list stays short.
  list.erase(std::remove_if(list.begin(), list.end(),
                            [](const std::weak_ptr<Resource>& w) { return w.expired(); }),
             list.end());
  list.push_back(resource);
}

Communicator communicator_from(const py::object& comm) {
  require_runtime();
  if (comm.is_none())
    return Communicator(MPI_COMM_WORLD);
  if (!py::hasattr(comm, "py2f"))
    throw ConfigError("comm must be an mpi4py communicator (e.g. mpi4py.MPI.COMM_WORLD) or "
                      "None for MPI_COMM_WORLD");
  const MPI_Comm raw = MPI_Comm_f2c(comm.attr("py2f")().cast<MPI_Fint>());
  if (raw == MPI_COMM_NULL)
    throw ConfigError("comm is MPI.COMM_NULL: pass a communicator this rank belongs to");
  return Communicator(raw);
}

void register_exceptions(py::module_& m) {
  static py::exception<ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  static py::exception<CollectiveError> run_error(m, "RunError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const py::builtin_exception&) {
      throw; // pybind11's own (cast errors and the like): its translator
    } catch (const py::error_already_set&) {
      throw;
    } catch (const ConfigError& e) {
      config_error(e.what());
    } catch (const Stopped& e) {
      run_error(e.what());
    } catch (const CollectiveError& e) {
      run_error(e.what());
    } catch (const std::exception& e) {
      int size = 1, rank = 0;
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (size == 1) {
        run_error(e.what());
        return;
      }
      // Raised on this rank alone: the others would wait for it forever.
      std::fprintf(stderr, "undertow: error on rank %d: %s\nundertow: aborting all ranks\n", rank,
                   e.what());
      std::cout.flush();
      std::fflush(stdout);
      std::fflush(stderr);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  });
}

} // namespace python
} // namespace undertow
