#pragma once
// Snapshots of a Navier-Stokes run for ParaView: <output>/fields/fields_<step>.h5 and the time
// series <output>/fields.xmf that opens them all (io/snapshot_series.hpp).

#include "undertow/io/snapshot_series.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>
#include <vector>

namespace undertow {

class FieldOutput {
 public:
  /// Creates <dir>/fields. `config_hash` goes into every file. `continued_from` >= 0: a run
  /// continued from a restart file at that step keeps the earlier snapshots up to it in the
  /// series (io::SnapshotSeries). Collective.
  FieldOutput(const Domain& domain, const std::string& dir, const std::string& config_hash,
              long continued_from = -1);

  /// Writes the snapshot of `ns` at its current step and time, unless that step was the last one
  /// written. Collective.
  void write(navier_stokes::NavierStokes& ns, long step) { write(ns, step, ns.time()); }
  /// The same, listed in the XDMF series at `time` (e.g. a design iteration). Collective.
  void write(navier_stokes::NavierStokes& ns, long step, double time);

  long count() const { return m_series.count(); }

  /// The datasets of every snapshot: cell-centred ones (listed in the XDMF file) first.
  static std::vector<std::string> cell_datasets(int dim);

 private:
  const Domain& m_domain;
  io::SnapshotSeries m_series;
  Field m_cell; ///< scratch for cell-centred fields
};

} // namespace undertow
