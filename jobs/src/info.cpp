/// `undertow info`: versions of undertow and every dependency, the Kokkos execution space and the
/// MPI ranks. `undertow keys`: every case-file key, as text or as the Markdown of
/// docs/configuration.md.

#include "commands.hpp"
#include "models.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/hdf5_info.hpp"
#include "undertow/io/insitu.hpp"
#include "undertow/solvers/linear/petsc_session.hpp"

#include <Kokkos_Core.hpp>
#include <boost/version.hpp>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace undertow {
namespace jobs {

namespace {
std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string s(text, static_cast<std::size_t>(length));
  const auto newline = s.find_first_of("\r\n");
  return newline == std::string::npos ? s : s.substr(0, newline);
}

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100);
}
} // namespace

int command_info(const Communicator& comm, const std::vector<std::string>& args) {
  if (!args.empty())
    throw ConfigError("undertow info takes no arguments (got '" + args.front() + "')");
  int mpi_major = 0, mpi_minor = 0;
  MPI_Get_version(&mpi_major, &mpi_minor);
  std::ostringstream out;
  out << "undertow " << UNDERTOW_VERSION_STRING << "\n"
      << "  compiler          " << __VERSION__ << " (C++ " << __cplusplus << ")\n"
      << "  MPI               " << mpi_major << "." << mpi_minor << ", " << mpi_library() << "\n"
      << "  MPI ranks         " << comm.size() << "\n"
      << "  Kokkos            " << kokkos_version() << "\n"
      << "  Kokkos execution  " << ExecutionSpace::name() << " (concurrency "
      << ExecutionSpace().concurrency() << ")\n"
      << "  Kokkos memory     " << MemorySpace::name() << "\n"
      << "  PETSc             " << linear::petsc_version() << "\n"
      << "  HDF5              " << io::hdf5_version() << "\n"
      << "  Boost             " << BOOST_VERSION / 100000 << "." << BOOST_VERSION / 100 % 1000
      << "." << BOOST_VERSION % 100 << " (program_options)\n";
  // The in-situ plugin is loaded by runs with [catalyst] only (docs/insitu.md).
  const std::string plugin = io::insitu_plugin_path({});
  const bool found = std::filesystem::exists(plugin);
#ifdef UNDERTOW_HAVE_CATALYST
  out << "  ParaView Catalyst legacy API, plugin " << plugin
      << (found ? "" : " (missing: reinstall, or set UNDERTOW_CATALYST_PLUGIN)") << "\n";
#else
  out << "  ParaView Catalyst "
      << (found ? "plugin " + plugin + " (UNDERTOW_CATALYST_PLUGIN)"
                : std::string("not built (UNDERTOW_ENABLE_CATALYST)"))
      << "\n";
#endif
  out << "  models            ";
  for (const auto& m : models())
    out << m.name << " ";
  out << "\n";
  if (comm.is_root())
    std::cout << out.str() << std::flush;
  return kSuccess;
}

int command_keys(const Communicator& comm, const std::vector<std::string>& args) {
  bool markdown = false;
  for (const auto& a : args) {
    if (a == "--markdown")
      markdown = true;
    else
      throw ConfigError("undertow keys: unknown argument '" + a +
                        "'; usage: undertow keys "
                        "[--markdown]");
  }
  std::ostringstream out;
  for (const auto& model : models()) {
    const ConfigSchema schema = schema_for(model);
    if (markdown) {
      out << "## Model `" << model.name << "`\n\n"
          << model.description << ".\n\n"
          << schema.markdown();
    } else {
      out << "model " << model.name << ":\n";
      for (const auto& kv : schema.keys())
        out << "  " << kv.first << " = "
            << (kv.second.required ? "(required)" : kv.second.default_value) << "    # "
            << kv.second.description << "; " << kv.second.allowed() << "\n";
    }
  }
  if (comm.is_root())
    std::cout << out.str() << std::flush;
  return kSuccess;
}

} // namespace jobs
} // namespace undertow
