#include "undertow/io/snapshot_series.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/xdmf.hpp"

#include <cstdio>

namespace undertow {
namespace io {

SnapshotSeries::SnapshotSeries(const Domain& domain, const std::string& dir,
                               const std::string& stem,
                               std::map<std::string, std::string> attributes)
    : m_domain(domain), m_dir(dir), m_stem(stem), m_attributes(std::move(attributes)) {
  run_on_root(domain.comm(), [&] { make_directories(dir + "/" + stem); });
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
