#include "bindings.hpp"

#include <pybind11/stl.h>

namespace undertow {
namespace python {

namespace {

Case load(const std::string& path, const std::vector<std::string>& overrides,
          const std::string& output, const py::object& comm) {
  Communicator c = communicator_from(comm);
  jobs::LoadedCase loaded = jobs::load_case(c, path, overrides, output);
  return Case{c, std::move(loaded), path};
}

Case from_text(const std::string& text, const std::string& source,
               const std::vector<std::string>& overrides, const std::string& output,
               const py::object& comm) {
  Communicator c = communicator_from(comm);
  jobs::LoadedCase loaded = jobs::load_case_text(c, text, source, overrides, output);
  return Case{c, std::move(loaded), source};
}

} // namespace

void bind_case(py::module_& m) {
  py::class_<Case>(m, "Case",
                   "A case file read and validated as `undertow run` reads it (same keys, "
                   "defaults and errors), with the MPI communicator it runs on. Make one with "
                   "undertow.load().")
      .def_static("_load", &load, py::arg("path"), py::arg("overrides"), py::arg("output"),
                  py::arg("comm"))
      .def_static("_from_text", &from_text, py::arg("text"), py::arg("source"),
                  py::arg("overrides"), py::arg("output"), py::arg("comm"))
      .def_property_readonly(
          "name", [](const Case& c) { return c.loaded.name; }, "case.name (or the file's stem)")
      .def_property_readonly(
          "model", [](const Case& c) { return c.loaded.model->name; }, "case.model")
      .def_property_readonly(
          "output_dir", [](const Case& c) { return c.loaded.output_dir; },
          "where runs of the case write (output.dir, or runs/<name>)")
      .def_property_readonly(
          "path", [](const Case& c) { return c.case_file; },
          "the case file ('<dict>' for a dict); data files are looked for beside it")
      .def_property_readonly(
          "ranks", [](const Case& c) { return c.comm.size(); }, "MPI ranks of its communicator")
      .def(
          "get",
          [](const Case& c, const std::string& key) { return c.loaded.config.get_string(key); },
          py::arg("key"), "The value of 'section.key' as text (its default if not given).")
      .def(
          "to_ini", [](const Case& c) { return c.loaded.config.to_ini(); },
          "Every key with its value, as an INI file.")
      .def("__repr__", [](const Case& c) {
        return "<undertow.Case '" + c.loaded.name + "' (" + c.loaded.model->name + ") on " +
               std::to_string(c.comm.size()) + " rank(s)>";
      });
}

} // namespace python
} // namespace undertow
