#include "undertow/io/snapshot_series.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/xdmf.hpp"

#include <cstdio>
#include <filesystem>
#include <map>

namespace undertow {
namespace io {

namespace {

/// The step of "<stem>_<step>.h5", or -1 for any other name.
long snapshot_step(const std::string& name, const std::string& stem) {
  const std::string prefix = stem + "_", suffix = ".h5";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return -1;
  const std::string digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stol(digits);
}

} // namespace

SnapshotSeries::SnapshotSeries(const Domain& domain, const std::string& dir,
                               const std::string& stem,
                               std::map<std::string, std::string> attributes, long continued_from)
    : m_domain(domain), m_dir(dir), m_stem(stem), m_attributes(std::move(attributes)) {
  // The earlier parts' snapshots up to the restart step, in step order ("name\n" each).
  std::string earlier;
  run_on_root(domain.comm(), [&] {
    make_directories(dir + "/" + stem);
    if (continued_from < 0)
      return;
    std::map<long, std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/" + stem)) {
      const std::string name = entry.path().filename().string();
      const long step = snapshot_step(name, stem);
      if (step >= 0 && step <= continued_from)
        found[step] = name;
    }
    for (const auto& kv : found)
      earlier += kv.second + "\n";
  });
  earlier = domain.comm().broadcast(earlier);
  std::size_t begin = 0;
  for (std::size_t end; (end = earlier.find('\n', begin)) != std::string::npos; begin = end + 1) {
    const std::string name = stem + "/" + earlier.substr(begin, end - begin);
    double time = 0;
    try {
      FieldFile file(domain, dir + "/" + name, FieldFile::Mode::Read);
      time = file.real_attribute("time");
    } catch (const CollectiveError& e) {
      throw CollectiveError("continuing the series " + xdmf_path() + ": the earlier snapshot " +
                            dir + "/" + name + " cannot be read (" + e.what() +
                            "); move it away to go on without it");
    }
    m_snapshots.push_back({time, name});
    m_last_step = snapshot_step(earlier.substr(begin, end - begin), stem);
  }
  if (m_last_step != continued_from)
    m_last_step = -1; // no snapshot of the restart step: the run writes one
}

bool SnapshotSeries::begin(long step, double time) {
  if (m_open)
    throw Error("SnapshotSeries::begin: the snapshot of step " + std::to_string(m_open_step) +
                " was not committed");
  if (step == m_last_step)
    return false;
  char name[256];
  std::snprintf(name, sizeof name, "%s/%s_%09ld.h5", m_stem.c_str(), m_stem.c_str(), step);
  m_open_name = name;
  m_open = std::make_unique<FieldFile>(m_domain, m_dir + "/" + name, FieldFile::Mode::Create);
  m_open_step = step;
  m_open_time = time;
  m_cells.clear();
  m_nodes.clear();
  return true;
}

void SnapshotSeries::cell(const std::string& name, const Field& f) {
  if (f.location() != Location::Cell)
    throw Error("SnapshotSeries::cell: " + name + " is not a cell field");
  extra(name, f);
  m_cells.push_back(name);
}

void SnapshotSeries::node(const std::string& name, const Field& f) {
  if (f.location() != Location::Node)
    throw Error("SnapshotSeries::node: " + name + " is not a node field");
  for (int a = 0; a < m_domain.dim(); ++a)
    if (m_domain.periodic(a))
      throw Error("SnapshotSeries::node: XDMF vertex attributes need non-periodic axes");
  extra(name, f);
  m_nodes.push_back(name);
}

void SnapshotSeries::extra(const std::string& name, const Field& f) {
  if (!m_open)
    throw Error("SnapshotSeries: write " + name + " between begin() and commit()");
  m_open->write(name, f);
}

void SnapshotSeries::attribute(const std::string& name, double value) {
  if (!m_open)
    throw Error("SnapshotSeries: attribute " + name + " outside begin()/commit()");
  m_open->set_attribute(name, value);
}

void SnapshotSeries::commit() {
  if (!m_open)
    throw Error("SnapshotSeries::commit without begin()");
  for (const auto& kv : m_attributes)
    m_open->set_attribute(kv.first, kv.second);
  m_open->set_attribute("step", double(m_open_step));
  m_open->set_attribute("time", m_open_time);
  m_open->commit();
  m_open.reset();
  m_last_step = m_open_step;
  m_snapshots.push_back({m_open_time, m_open_name});
  std::vector<XdmfSnapshot> series;
  for (const auto& s : m_snapshots)
    series.push_back({s.first, s.second});
  const std::string xdmf = xdmf_time_series(xdmf_grid(m_domain), m_cells, series, m_nodes);
  run_on_root(m_domain.comm(), [&] { write_file_atomic(xdmf_path(), xdmf); });
}

} // namespace io
} // namespace undertow
