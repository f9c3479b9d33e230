#pragma once
/// \file
/// The classes of undertow._undertow, one binding file each, and what they share: a Case is a
/// validated case file with its communicator (what every other class is made from).

#include "runtime.hpp"

#include "models.hpp"

#include <pybind11/pybind11.h>

#include <string>

namespace undertow {
namespace python {

/// A case file (or a dict's text) read and validated against its model's schema, with the
/// communicator it runs on. Holds no Kokkos or PETSc resources.
struct Case {
  Communicator comm;
  jobs::LoadedCase loaded;
  std::string case_file; ///< its path ("<dict>" for a dict), for data files named relative to it
};

void bind_case(py::module_& m);
void bind_simulation(py::module_& m);
void bind_problem(py::module_& m);

} // namespace python
} // namespace undertow
