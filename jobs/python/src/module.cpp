/// undertow._undertow: the extension module of the Python package (docs/python.md). The package
/// (undertow/__init__.py) imports mpi4py first, so MPI is initialised, then calls _initialize()
/// and registers _finalize() with atexit.

#include "bindings.hpp"

#include "undertow/core/field.hpp"
#include "undertow/core/version.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_undertow, m) {
  using namespace undertow::python;
  m.doc() = "undertow's solvers and adjoints (the C++ extension of the undertow package)";
  register_exceptions(m);
  m.def("_initialize", &initialize,
        "Initialises Kokkos and PETSc (MPI must be initialised: the package imports mpi4py).");
  m.def("_finalize", &finalize,
        "Releases every live object's resources, then finalises PETSc and Kokkos (at exit).");
  m.attr("__version__") = UNDERTOW_VERSION_STRING;
  m.attr("execution_space") = std::string(undertow::ExecutionSpace::name());
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, undertow::MemorySpace>::accessible;
  m.attr("host_memory") = py::bool_(host);
  bind_case(m);
  bind_simulation(m);
  bind_problem(m);
}
