#pragma once
// Snapshots of a Navier-Stokes run for ParaView: <output>/fields/fields_<step>.h5 (one global
// dataset per field, see io/field_file.hpp) and the time series <output>/fields.xmf that opens
// them all. The XDMF file is rewritten atomically after every snapshot, so it always lists
// complete files only.

#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>
#include <vector>

namespace undertow {

class FieldOutput {
 public:
  /// Creates <dir>/fields. `config_hash` goes into every file. Collective.
  FieldOutput(const Domain& domain, const std::string& dir, const std::string& config_hash);

  /// Writes the snapshot of `ns` at its current step and time, unless that step was the last one
  /// written. Collective.
  void write(navier_stokes::NavierStokes& ns, long step);

  long count() const { return static_cast<long>(m_snapshots.size()); }

  /// The datasets of every snapshot: cell-centred ones (listed in the XDMF file) first.
  static std::vector<std::string> cell_datasets(int dim);

 private:
  const Domain& m_domain;
  std::string m_dir;
  std::string m_hash;
  std::vector<std::pair<double, std::string>> m_snapshots; ///< time, file relative to m_dir
  long m_last_step = -1;
  Field m_cell; ///< scratch for cell-centred fields
};

} // namespace undertow
