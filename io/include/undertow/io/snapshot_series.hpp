#pragma once
/// \file
/// A time series of field snapshots for ParaView: <dir>/<stem>/<stem>_<step>.h5 (one global
/// dataset per field, io/field_file.hpp) and <dir>/<stem>.xmf, which opens them all as one
/// time-dependent dataset. Each snapshot is written under a temporary name and renamed when
/// complete, and the XDMF file is rewritten atomically after it, so it lists complete files only.
///
/// Usage, collective throughout: begin(step, time); cell(...), node(...), extra(...); commit().

#include "undertow/core/field.hpp"
#include "undertow/io/field_file.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace io {

class SnapshotSeries {
 public:
  /// Creates <dir>/<stem>. `attributes` (config hash, units, layout, ...) go into every file.
  /// `continued_from` >= 0: a run continued from a restart file at that step into the folder of
  /// its earlier parts; their snapshots up to that step stay in the series (listed first in the
  /// XDMF file, a snapshot of that step is not written again), later ones are replaced.
  /// Throws Error naming an earlier snapshot that cannot be read. Collective.
  SnapshotSeries(const Domain& domain, const std::string& dir, const std::string& stem,
                 std::map<std::string, std::string> attributes, long continued_from = -1);

  /// Starts the snapshot of `step` at `time` [s]. Returns false (and writes nothing) if that
  /// step is the last one written. Collective.
  bool begin(long step, double time);
  /// Writes a cell-centred field, listed in the XDMF file. Collective.
  void cell(const std::string& name, const Field& f);
  /// Writes a vertex field (Location::Node, no periodic axis), listed in the XDMF file.
  /// Collective.
  void node(const std::string& name, const Field& f);
  /// Writes a field that the XDMF file does not list (e.g. staggered raw data). Collective.
  void extra(const std::string& name, const Field& f);
  /// Adds a number to the snapshot's attributes (step and time are added by commit()).
  /// Collective.
  void attribute(const std::string& name, double value);
  /// Renames the snapshot to its final name and rewrites the XDMF file. Collective.
  void commit();

  long count() const { return static_cast<long>(m_snapshots.size()); }
  /// The path of the XDMF file.
  std::string xdmf_path() const { return m_dir + "/" + m_stem + ".xmf"; }

 private:
  const Domain& m_domain;
  std::string m_dir, m_stem;
  std::map<std::string, std::string> m_attributes;
  std::unique_ptr<FieldFile> m_open;
  long m_open_step = -1, m_last_step = -1;
  double m_open_time = 0;
  std::string m_open_name;
  std::vector<std::string> m_cells, m_nodes; ///< listed in the XDMF: those of the last snapshot
  std::vector<std::pair<double, std::string>> m_snapshots; ///< time, file relative to m_dir
};

} // namespace io
} // namespace undertow
