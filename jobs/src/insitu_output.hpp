#pragma once
// In-situ visualisation of a job ([catalyst], docs/insitu.md): the pipelines of the case, the
// cadence they run at, and the frames each model hands them. A Simulation callback for time
// loops; `optimize` and the reverse sweep of `gradient` call execute() themselves.

#include "undertow/adjoint/gradient.hpp"
#include "undertow/core/config.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/simulation.hpp"
#include "undertow/io/insitu.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace undertow {
namespace jobs {

/// Declares [catalyst]: scripts, every, interval. Not collective.
void declare_catalyst_keys(ConfigSchema& schema);

/// The pipelines of a run, or nothing when the case has no catalyst.scripts.
class InSituOutput {
 public:
  /// What a model hands over at `step` and `time`: a frame of its fields. Collective.
  using FrameMaker = std::function<io::InSituFrame(io::InSituBuilder&, long step, double time)>;

  /// Loads the scripts of [catalyst] (paths as given, else relative to the case file) with
  /// <output_dir>/insitu as their folder, so that a missing ParaView or a broken script is
  /// reported before any step. `metadata` (case, job, model, ...) goes with every frame. Throws
  /// ConfigError. Collective.
  InSituOutput(const Config& cfg, const Domain& domain, const std::string& case_file,
               const std::string& output_dir, std::map<std::string, std::string> metadata,
               const Log& log);
  ~InSituOutput();

  bool active() const { return m_insitu != nullptr; }
  /// The frame `make` builds at `step` and `time`, handed to the pipelines (nothing if
  /// inactive). Collective.
  void execute(const FrameMaker& make, long step, double time,
               const std::map<std::string, std::string>& extra = {});
  /// Hands the current state to the pipelines now (the start: a script's error shows before
  /// any step), then on the [catalyst] cadence and at the last step. Collective.
  void attach(Simulation& sim, FrameMaker make,
              const std::map<std::string, std::string>& extra = {});
  /// Whether the [catalyst] cadence selects `step` (counting design iterations, for example).
  bool due(long step) const;
  long calls() const { return m_insitu ? m_insitu->calls() : 0; }
  double seconds() const { return m_insitu ? m_insitu->seconds() : 0.0; } ///< on this rank
  double first_seconds() const { return m_insitu ? m_insitu->first_seconds() : 0.0; }
  /// "in situ: 12 calls, 3.4 s" for the end of a run (empty if inactive).
  std::string summary() const;

 private:
  const Log& m_log;
  std::unique_ptr<io::InSitu> m_insitu;
  std::unique_ptr<io::InSituBuilder> m_builder;
  std::map<std::string, std::string> m_metadata;
  long m_every = 0;
  double m_interval = 0;
};

/// The metadata of a `job` ("run", "gradient", "optimize") of `ctx` that goes with every frame:
/// job, model, case file, config hash. Not collective.
std::map<std::string, std::string> insitu_metadata(const Config& cfg, const std::string& case_file,
                                                   const std::string& job);

/// A Navier-Stokes frame: cell velocity, pressure, vorticity (3D: its vector and the
/// Q-criterion), the penalty mask and, if the flow has one, the design field. Collective.
io::InSituFrame flow_frame(io::InSituBuilder& builder, navier_stokes::NavierStokes& ns, long step,
                           double time);

/// A frame of the reverse sweep of a gradient: the adjoint velocity (cell means of lambda), the
/// sensitivity to the Brinkman mask summed so far (dJ/dchi, cell means summed over the faces'
/// components) and the mask. Collective.
io::InSituFrame adjoint_frame(io::InSituBuilder& builder, const adjoint::ReverseState& state,
                              long step, double time);

} // namespace jobs
} // namespace undertow
