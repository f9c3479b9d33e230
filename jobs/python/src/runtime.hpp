#pragma once
/// \file
/// What every binding of the Python package shares: undertow's runtime (Kokkos and PETSc, after
/// mpi4py has initialised MPI), the objects that hold its resources (released before it is
/// finalised at exit), communicators from mpi4py, and the error policy of the CLI.

#include "undertow/core/communicator.hpp"

#include <pybind11/pybind11.h>

#include <memory>

namespace undertow {
namespace python {

namespace py = pybind11;

/// An object that holds Kokkos views or PETSc objects: release() frees them, so that the
/// runtime can be finalised at exit while Python still holds the object. Methods of a released
/// object throw.
class Resource {
 public:
  virtual ~Resource() = default;
  virtual void release() = 0;
};

/// Initialises Kokkos (unless the process already did) and PETSc on MPI_COMM_WORLD. MPI must be
/// initialised (the package imports mpi4py first). Collective over MPI_COMM_WORLD. Idempotent.
void initialize();
/// Releases every live Resource, then finalises PETSc and Kokkos (if initialize() initialised
/// it); MPI stays with mpi4py. Registered with atexit by the package. Collective. Idempotent.
void finalize();
/// Throws RunError unless initialize() ran and finalize() has not.
void require_runtime();
/// Keeps `resource` in the list finalize() releases (a weak reference).
void track(const std::shared_ptr<Resource>& resource);

/// The communicator of an mpi4py communicator (its Fortran handle: no mpi4py headers needed),
/// or MPI_COMM_WORLD for None; duplicated. Collective.
Communicator communicator_from(const py::object& comm);

/// Translates undertow's exceptions as the CLI treats them: ConfigError (bad input, raised on
/// every rank) becomes undertow.ConfigError (a ValueError), CollectiveError and Stopped become
/// undertow.RunError; any other C++ exception is one rank's alone, so on more than one rank it
/// is printed with the rank and ends every rank (MPI_Abort), as the CLI does, and on one rank it
/// becomes RunError.
void register_exceptions(py::module_& m);

} // namespace python
} // namespace undertow
