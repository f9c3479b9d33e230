#include "undertow/io/insitu.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/insitu_backend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <dlfcn.h>
#include <filesystem>

#ifndef UNDERTOW_INSITU_PLUGIN_INSTALLED
#define UNDERTOW_INSITU_PLUGIN_INSTALLED ""
#endif

namespace undertow {
namespace io {

namespace {

constexpr const char* kPluginName = "undertow_catalyst.so";

/// The folder of the running executable ("" if unknown).
std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

/// The piece's global cell range along `axis`: owned cells and one ghost layer towards each
/// neighbouring piece (none across a periodic boundary or at the box's ends).
std::pair<long, long> piece_cells(const Domain& domain, int axis) {
  long begin = domain.cell_offset(axis);
  long end = begin + domain.cell_count(axis);
  if (axis < domain.dim()) {
    if (begin > 0)
      --begin;
    if (end < domain.global_cells(axis))
      ++end;
  }
  return {begin, end};
}

/// The message of the lowest rank whose `error` is not empty, on every rank ("" if none).
/// Collective.
std::string first_error(const Communicator& comm, const std::string& error) {
  const int n = comm.size();
  const long long failing =
      comm.max(error.empty() ? -1LL : static_cast<long long>(n - 1 - comm.rank()));
  if (failing < 0)
    return "";
  const int root = n - 1 - static_cast<int>(failing);
  std::string text = comm.rank() == root ? error : std::string();
  long long size = static_cast<long long>(text.size());
  MPI_Bcast(&size, 1, MPI_LONG_LONG, root, comm.raw());
  text.resize(static_cast<std::size_t>(size));
  MPI_Bcast(text.data(), static_cast<int>(size), MPI_CHAR, root, comm.raw());
  if (comm.size() > 1)
    text += " (rank " + std::to_string(root) + ")";
  return text;
}

} // namespace

const InSituArray* InSituFrame::find(const std::string& name) const {
  for (const auto& a : arrays)
    if (a.name == name)
      return &a;
  return nullptr;
}

// --- InSituBuilder -------------------------------------------------------------------------------

InSituBuilder::InSituBuilder(const Domain& domain)
    : m_domain(domain), m_cell(domain, Location::Cell, 1, "insitu::cell"),
      m_node(domain, Location::Node, 1, "insitu::node"),
      m_cell_halo(std::make_unique<HaloPlan>(domain, Location::Cell, 1)),
      m_node_halo(std::make_unique<HaloPlan>(domain, Location::Node, 1)) {}

InSituBuilder::~InSituBuilder() = default;

InSituFrame InSituBuilder::begin(long step, double time) const {
  InSituFrame f;
  f.step = step;
  f.time = time;
  f.dim = m_domain.dim();
  for (int a = 0; a < 3; ++a) {
    f.whole_cells[a] = m_domain.global_cells(a);
    const auto [b, e] = piece_cells(m_domain, a);
    f.piece_begin[a] = b;
    f.piece_end[a] = e;
    f.origin[a] = m_domain.spec().origin[a];
    f.spacing[a] = m_domain.spacing(a);
    if (a < f.dim && !m_domain.uniform(a)) { // the faces of the piece's cells
      const std::vector<double>& faces = m_domain.spec().faces[static_cast<std::size_t>(a)];
      f.coordinates[a].assign(faces.begin() + b, faces.begin() + e + 1);
    }
    if (a < f.dim) {
      f.bounds[2 * a] = f.origin[a];
      f.bounds[2 * a + 1] = f.origin[a] + m_domain.spec().length[a];
    }
  }
  // Ghost cells: outside this rank's owned cells; ghost points: outside its owned nodes.
  std::array<std::pair<long, long>, 3> cells, nodes;
  for (int a = 0; a < 3; ++a) {
    cells[a] = {m_domain.cell_offset(a), m_domain.cell_offset(a) + m_domain.cell_count(a)};
    nodes[a] = a < f.dim ? m_domain.owned_interval(Location::Node, a, m_domain.coord(a))
                         : std::pair<long, long>{0, 1};
  }
  auto inside = [](const std::array<std::pair<long, long>, 3>& box, long i, long j, long k) {
    return i >= box[0].first && i < box[0].second && j >= box[1].first && j < box[1].second &&
           k >= box[2].first && k < box[2].second;
  };
  f.ghost_cells.reserve(static_cast<std::size_t>(f.cell_count()));
  for (long k = f.piece_begin[2]; k < f.piece_end[2]; ++k)
    for (long j = f.piece_begin[1]; j < f.piece_end[1]; ++j)
      for (long i = f.piece_begin[0]; i < f.piece_end[0]; ++i)
        f.ghost_cells.push_back(inside(cells, i, j, k) ? 0 : 1);
  f.ghost_points.reserve(static_cast<std::size_t>(f.point_count()));
  for (long k = 0; k < f.piece_points(2); ++k)
    for (long j = 0; j < f.piece_points(1); ++j)
      for (long i = 0; i < f.piece_points(0); ++i)
        f.ghost_points.push_back(inside(nodes, f.piece_begin[0] + i, f.piece_begin[1] + j,
                                        f.dim == 3 ? f.piece_begin[2] + k : 0)
                                     ? 0
                                     : 1);
  return f;
}

void InSituBuilder::cell(InSituFrame& frame, const std::string& name,
                         const std::vector<const Field*>& parts) {
  add(frame, name, parts, false);
}

void InSituBuilder::point(InSituFrame& frame, const std::string& name,
                          const std::vector<const Field*>& parts) {
  add(frame, name, parts, true);
}

void InSituBuilder::add(InSituFrame& frame, const std::string& name,
                        const std::vector<const Field*>& parts, bool on_points) {
  require(!parts.empty(), "in-situ array '" + name + "' has no components");
  Field& scratch = on_points ? m_node : m_cell;
  HaloPlan& halo = on_points ? *m_node_halo : *m_cell_halo;
  InSituArray array;
  array.name = name;
  array.on_points = on_points;
  array.components = static_cast<int>(parts.size());
  const std::array<long, 3> n = {on_points ? frame.piece_points(0) : frame.piece_cells(0),
                                 on_points ? frame.piece_points(1) : frame.piece_cells(1),
                                 on_points ? frame.piece_points(2) : frame.piece_cells(2)};
  array.values.assign(static_cast<std::size_t>(n[0] * n[1] * n[2] * array.components), 0.0);
  for (std::size_t c = 0; c < parts.size(); ++c) {
    const Field& part = *parts[c];
    require(part.location() == (on_points ? Location::Node : Location::Cell),
            "in-situ array '" + name + "': field '" + part.name() + "' is at " +
                to_string(part.location()) + ", not at " + (on_points ? "nodes" : "cells"));
    copy_owned(part, scratch);
    halo.fill(scratch);
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), scratch.view());
    const auto& offset = scratch.layout().global_offset;
    std::size_t at = c;
    for (long k = 0; k < n[2]; ++k)
      for (long j = 0; j < n[1]; ++j)
        for (long i = 0; i < n[0]; ++i, at += parts.size())
          array.values[at] =
              host(frame.piece_begin[0] + i - offset[0], frame.piece_begin[1] + j - offset[1],
                   frame.piece_begin[2] + k - offset[2]);
  }
  frame.arrays.push_back(std::move(array));
}

void InSituBuilder::maximum(InSituFrame& frame, const std::string& name) const {
  const InSituArray* a = frame.find(name);
  require(a != nullptr, "in-situ frame has no array '" + name + "'");
  const std::vector<unsigned char>& ghost = a->on_points ? frame.ghost_points : frame.ghost_cells;
  double largest = 0;
  for (std::size_t n = 0; n < ghost.size(); ++n) {
    if (ghost[n])
      continue;
    double norm2 = 0;
    for (int c = 0; c < a->components; ++c) {
      const double v = a->values[n * std::size_t(a->components) + std::size_t(c)];
      norm2 += v * v;
    }
    largest = std::max(largest, norm2);
  }
  frame.numbers[name + "_max"] = std::sqrt(m_domain.comm().max(largest));
}

// --- InSitu ----------------------------------------------------------------------------------

struct InSitu::Backend {
  void* library = nullptr;
  InSituBackend* backend = nullptr;
  std::string path;
};

std::string insitu_plugin_path(const InSituOptions& options) {
  if (!options.plugin.empty())
    return options.plugin;
  if (const char* env = std::getenv("UNDERTOW_CATALYST_PLUGIN"); env && *env)
    return env;
  // The build tree (bin/undertow, lib/undertow/...) and an install with the same layout.
  const std::string dir = executable_dir();
  if (!dir.empty()) {
    const auto next_to = std::filesystem::path(dir) / ".." / "lib" / "undertow" / kPluginName;
    if (std::filesystem::exists(next_to))
      return std::filesystem::path(next_to).lexically_normal().string();
  }
  const std::string installed = UNDERTOW_INSITU_PLUGIN_INSTALLED;
  return installed.empty() ? std::string(kPluginName) : installed + "/" + kPluginName;
}

InSitu::InSitu(const Communicator& comm, const InSituOptions& options)
    : m_comm(comm), m_backend(std::make_unique<Backend>()) {
  // Scripts first: a missing one is named before ParaView is loaded.
  for (const auto& script : options.scripts) {
    const std::string missing =
        std::filesystem::is_regular_file(script)
            ? ""
            : "catalyst.scripts: pipeline script '" + script +
                  "' not found; give a path relative to the working folder or to the case file";
    const std::string error = first_error(comm, missing);
    if (!error.empty())
      throw ConfigError(error);
  }
  m_backend->path = insitu_plugin_path(options);
  std::string error;
  // RTLD_GLOBAL: the Python extension modules ParaView imports resolve libpython through it.
  // RTLD_NODELETE: ParaView's libraries stay until exit (their static destructors run then).
  m_backend->library = dlopen(m_backend->path.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  if (!m_backend->library) {
    const char* why = dlerror();
    error = "in-situ visualisation ([catalyst]) needs ParaView Catalyst, but its plugin " +
            m_backend->path + " could not be loaded: " + (why ? why : "unknown error") +
            ". Install ParaView 5.11 (Debian: apt install paraview python3-paraview) and build "
            "undertow with -DUNDERTOW_ENABLE_CATALYST=ON, or set UNDERTOW_CATALYST_PLUGIN to the "
            "plugin's path, or remove the [catalyst] section";
  } else {
    void* symbol = dlsym(m_backend->library, kInSituBackendSymbol);
    if (!symbol)
      error = m_backend->path + " is not an undertow in-situ plugin (no symbol " +
              kInSituBackendSymbol + ")";
    else
      m_backend->backend = reinterpret_cast<InSituBackendFactory>(symbol)();
  }
  error = first_error(comm, error);
  if (!error.empty())
    throw ConfigError(error);
  m_name = m_backend->backend->name();
  error = first_error(comm, m_backend->backend->missing_prerequisite());
  if (!error.empty())
    throw ConfigError("catalyst.scripts: " + error);
  std::error_code ec;
  if (comm.is_root())
    std::filesystem::create_directories(options.output_dir, ec);
  comm.barrier();
  // Absolute paths: the pipelines run in their working folder.
  std::vector<std::string> scripts;
  for (const auto& script : options.scripts)
    scripts.push_back(std::filesystem::absolute(script).lexically_normal().string());
  error =
      first_error(comm, m_backend->backend->initialize(comm.raw(), scripts, options.output_dir));
  if (!error.empty()) {
    m_backend->backend->finalize();
    throw ConfigError("catalyst.scripts: " + error);
  }
}

InSitu::~InSitu() {
  if (m_backend && m_backend->backend) {
    m_backend->backend->finalize();
    delete m_backend->backend;
  }
}

void InSitu::execute(const InSituFrame& frame) {
  const auto start = std::chrono::steady_clock::now();
  const std::string error = first_error(m_comm, m_backend->backend->execute(frame));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m_seconds += seconds;
  if (++m_calls == 1)
    m_first_seconds = seconds;
  if (error.empty())
    return;
  if (m_calls == 1) // the start, before any step
    throw ConfigError("catalyst.scripts: the pipelines failed on their first call (step " +
                      std::to_string(frame.step) + "): " + error + ". Fix the script");
  throw CollectiveError("in-situ pipeline failed at step " + std::to_string(frame.step) + ": " +
                        error +
                        ". Fix the script, or remove [catalyst], and continue from the "
                        "last restart file");
}

} // namespace io
} // namespace undertow
