#pragma once
/// \file
/// Pieces shared by the elasticity model's static/topology run (elasticity_case.cpp) and its
/// dynamic run (elastodynamics_case.cpp): the probe node, the field snapshots and the dynamic
/// run itself.

#include "insitu_output.hpp"
#include "models.hpp"
#include "restart.hpp"

#include "undertow/io/snapshot_series.hpp"
#include "undertow/optimisation/topology_optimisation.hpp"
#include "undertow/solvers/elasticity/elasticity.hpp"

#include <array>
#include <map>
#include <memory>
#include <string>

namespace undertow {
namespace jobs {

/// check.probe and check.probe_displacement: a node whose displacement is reported, and the
/// reference it is checked against (components that are nonzero).
struct ElasticityProbe {
  bool given = false;
  std::array<double, 3> point{0, 0, 0};     ///< [m]
  std::array<double, 3> reference{0, 0, 0}; ///< [m]
  bool has_reference = false;

  /// Reads them; throws ConfigError for a wrong count, a reference without a node, or a zero
  /// reference. Not collective.
  static ElasticityProbe from_config(const Config& config, int dim);
  /// Appends "u_y at the probe ... (relative deviation ..., allowed ...)" per nonzero reference
  /// component to `summary` and clears `ok` if one deviates by more than check.probe_rtol. Not
  /// collective.
  void check(const Config& config, int dim, const std::array<double, 3>& measured, bool& ok,
             std::string& summary) const;
};

/// Snapshots of a solved or evolving state as an XDMF time series: the displacement (and, for a
/// dynamic run, the velocity) on the vertices; strain, stress, von Mises and density on the
/// elements.
class ElasticityFieldWriter {
 public:
  /// Creates <output_dir>/fields. `continued_from` >= 0: a run continued from a restart file at
  /// that step keeps the earlier snapshots up to it in the series. Collective.
  ElasticityFieldWriter(const RunContext& context, const std::string& time_meaning,
                        long continued_from = -1);
  /// Writes the state u (v: optional) as snapshot `step` at `time`; von Mises is left in
  /// von_mises(). Returns false if that step was already written. Collective.
  bool write(long step, double time, const elasticity::LinearElasticity& solver,
             const elasticity::NodeVector& u, const elasticity::NodeVector* v);
  const Field& von_mises() const { return m_vm; }
  long count() const { return m_series.count(); }
  std::string xdmf_path() const { return m_series.xdmf_path(); }
  const std::map<std::string, std::string>& attributes() const { return m_attributes; }

 private:
  std::map<std::string, std::string> m_attributes;
  io::SnapshotSeries m_series;
  std::array<Field, 6> m_strain, m_stress;
  Field m_vm;
};

/// An elasticity frame for in-situ pipelines: the displacement u (and velocity v, if given) on
/// the points, as 3-component vectors (z = 0 in 2D, so that a warp by vector works), and the
/// von Mises stress and the density on the cells. Collective.
io::InSituFrame elasticity_frame(io::InSituBuilder& builder,
                                 const elasticity::LinearElasticity& solver,
                                 const elasticity::NodeVector& u, const elasticity::NodeVector* v,
                                 long step, double time);

/// Minimum-compliance topology optimisation (topology.enabled), from the uniform design or from
/// context.restart_file: the iterations with their table, diagnostics.csv, density snapshots and
/// PNGs, restart files (restart.* in iterations, SIGUSR1, SIGTERM, --walltime: exit 75 with the
/// command that continues the run), then one more solve at the final densities.
class TopologyRun {
 public:
  /// Sets the optimisation up, and loads context.restart_file if given (throws ConfigError for
  /// one that does not fit, or whose design has converged). Writes nothing. Collective.
  TopologyRun(const RunContext& context, elasticity::LinearElasticity& solver);
  /// Runs the iterations; returns the design iterations and sets `compliance` (the 88-line
  /// code's: at the densities the last iteration started from). Collective.
  /// `insitu` gets the start and the iterations on its cadence (density, displacement, von
  /// Mises).
  long run(ElasticityFieldWriter& fields, InSituOutput& insitu, RunResult& result,
           double& compliance);

 private:
  /// The restart state over the scratch copies m_design and m_displacement.
  RestartState restart_state();
  /// restart_state() holding the current design and displacement. Collective.
  RestartState current_state();

  const RunContext& m_ctx;
  elasticity::LinearElasticity& m_solver;
  optimisation::TopologyOptimisation m_opt;
  Field m_design;                        ///< scratch: the design as written or read
  elasticity::NodeVector m_displacement; ///< scratch: the displacement as written or read
  long m_first = 0;                      ///< the iteration the run starts from
};

/// The dynamic keys of the run: dynamics.enabled, the Newmark settings, fields.every and the
/// dynamic --check references (check.frequency, check.energy_balance_max). Not collective.
void declare_elastodynamics_keys(ConfigSchema& schema);

/// Newmark from rest (or from context.restart_file) to time.t_end with steps of time.dt:
/// progress lines, diagnostics.csv (step, time, energies, work balance, probe), field snapshots
/// every fields.every steps, restart files (restart.*, SIGUSR1, SIGTERM, --walltime: exit 75
/// with the command that continues the run), and the --check of the measured frequency, the
/// work balance and the final probe displacement. Accepts the run (context.accept()) once the
/// restart file is read. Collective.
RunResult run_elastodynamics(const RunContext& context, elasticity::LinearElasticity& solver,
                             const ElasticityProbe& probe);

/// The in-situ pipelines of an elasticity run ([catalyst]), with the run's metadata. Collective.
std::unique_ptr<InSituOutput> elasticity_insitu(const RunContext& context);

} // namespace jobs
} // namespace undertow
