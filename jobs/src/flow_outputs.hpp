#pragma once
// The outputs a case file asks of a Navier-Stokes flow, as callbacks of the Simulation that runs
// it: restart files ([restart], and on SIGUSR1/SIGTERM), field snapshots ([fields]), the
// diagnostics rows ([diagnostics]), the divergence guard with the steady-state stop
// (time.steady_tolerance) and the progress line (output.progress_every). `undertow run` attaches
// them all; the forward sweep of `undertow gradient` and every flow evaluation of
// `undertow optimize` attach the files (fields, diagnostics, restart) when the case asks for them.

#include "field_output.hpp"

#include "undertow/core/config.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/simulation.hpp"
#include "undertow/io/csv.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace jobs {

/// The forces and the pressure drop of a flow, as the diagnostics and the report give them.
struct ForceReport {
  std::size_t obstacles = 0;
  double coefficient_scale = 1; ///< C = scale * F
  bool has_probes = false;
  std::array<double, 3> probe1{0, 0, 0}, probe2{0, 0, 0};

  /// Reads forces.* and diagnostics.pressure_probes; throws ConfigError. Not collective.
  ForceReport(const Config& cfg, const Domain& domain,
              const navier_stokes::NavierStokesParams& params);
  /// The force coefficients of obstacle k (C = 2 F / (U^2 L) or 2 F / (U^2 A)). Not collective.
  std::array<double, 3> coefficients(const navier_stokes::NavierStokes& ns, std::size_t k) const;
  /// p(probe1) - p(probe2) [m^2/s^2]. Collective.
  double pressure_drop(navier_stokes::NavierStokes& ns) const;
};

/// The Navier-Stokes solver as a Simulation steps it, counting the Poisson iterations.
class FlowStepper : public TimeStepper {
 public:
  explicit FlowStepper(navier_stokes::NavierStokes& ns) : m_ns(ns) {}
  double time() const override { return m_ns.time(); }
  void step(double dt) override {
    m_ns.step(dt);
    poisson_total += m_ns.poisson_iterations();
  }
  double stable_dt(double cfl) const override { return m_ns.stable_dt(cfl); }
  long poisson_total = 0;

 private:
  navier_stokes::NavierStokes& m_ns;
};

/// Which of the case's outputs a job attaches.
struct FlowOutputKinds {
  bool progress = true;    ///< the progress line (the sweep of a gradient prints its own)
  bool steady_stop = true; ///< stop at time.steady_tolerance (a gradient's steps are frozen)
  bool signals = true;     ///< restart files on SIGUSR1 and SIGTERM (SIGTERM then stops)
};

/// The divergence guard and the steady-state test of a flow: every few steps it checks that the
/// velocity is finite and bounded, measures max |du/dt| since the last check, and asks the
/// Simulation to stop when the flow is steady. When the run diverges it saves the velocity of the
/// last check that passed. The velocity scale is the largest of the initial field and every
/// boundary velocity.
class DivergenceGuard {
 public:
  static constexpr long kEvery = 10; ///< steps between checks (besides output steps)
  /// A Courant number beyond this many times the advective limit sqrt 3 is a diverged run: with
  /// time.scheme = imex its velocity stays bounded, so the velocity test does not see it; with
  /// the explicit scheme it may stay under that test's bound for many steps.
  static constexpr double kUnstableCourantRatio = 2.0;

  /// Collective (reductions of the initial field).
  DivergenceGuard(navier_stokes::NavierStokes& ns, std::string output_dir, double steady_tolerance,
                  long first_step, double first_dt);
  /// Makes `sim` call check() every kEvery steps, on the steps of `also` and at the last step,
  /// and step_failed() when a step throws. Call once, before the run. Not collective.
  void attach(Simulation& sim, const Cadence& also);
  /// Checks the state after step `sim.step()`; throws CollectiveError if it diverged; requests a
  /// stop at a steady state. Collective.
  void check(Simulation& sim);
  /// Throws CollectiveError (and saves the last good state) if the velocity is not finite, is
  /// beyond 1e3 times the velocity scale, or its Courant number is beyond kUnstableCourantRatio
  /// times the advection's limit. Collective.
  void require_bounded(const Simulation& sim);
  /// A failed step, told with the Courant number of the last check and that of the velocity
  /// scale (which a flow at rest reaches at once from its boundaries). Collective.
  [[noreturn]] void step_failed(const Simulation& sim, const CollectiveError& e) const;

  double dudt = HUGE_VAL; ///< max |du/dt| between the last two checks [m/s^2]
  bool steady = false;

 private:
  std::string save_last_good() const;
  /// dt times the velocity scale summed over 1/h per axis.
  double scale_courant(double dt) const;

  navier_stokes::NavierStokes& m_ns;
  std::string m_output_dir;
  double m_steady_tolerance;
  double m_scale = 0;
  std::array<Field, 3> m_previous;
  double m_previous_time;
  long m_previous_step;
  double m_last_courant;
};

class FlowOutputs {
 public:
  /// Whether the case asks for a file output of a flow: fields, diagnostics or restart files.
  /// Not collective.
  static bool requested(const Config& cfg);

  /// The outputs of `ns` into `output_dir` as `cfg` asks (`case_file` is named in the message of
  /// a SIGTERM stop). Creates diagnostics.csv (a run restarted at `first_step` > 0 keeps the
  /// rows of its first part up to that step) and, if fields are asked for, the first snapshot.
  /// Collective.
  FlowOutputs(const Config& cfg, navier_stokes::NavierStokes& ns, const std::string& output_dir,
              const std::string& case_file, FlowOutputKinds kinds, const Log& log,
              long first_step = 0);
  /// Adds the callbacks to `sim`, which runs `ns` (a run's: from its first step). Call once.
  /// Not collective.
  void attach(Simulation& sim);

  const ForceReport& forces() const { return m_forces; }
  /// The guard (attached by attach()); its dudt and steady say how the run ended.
  const DivergenceGuard& guard() const { return *m_guard; }
  /// Field snapshots written (0 without [fields]).
  long snapshots() const { return m_fields ? m_fields->count() : 0; }
  bool writes_fields() const { return m_fields != nullptr; }

 private:
  /// The figures of the current step that the diagnostics row and the progress line share,
  /// computed once per step. Collective.
  struct Sample {
    long step = -1;
    double divergence = 0, kinetic_energy = 0, courant = 0;
    std::vector<double> row;
    std::string forces_text;
  };
  const Sample& sample(const Simulation& sim);
  void write_restart_file(Simulation& sim);
  void print_progress(const Simulation& sim);

  const Config& m_cfg;
  navier_stokes::NavierStokes& m_ns;
  std::string m_output_dir, m_case_file;
  FlowOutputKinds m_kinds;
  const Log& m_log;
  ForceReport m_forces;
  long m_every, m_diagnostics_every;
  io::CsvSeries m_diagnostics;
  std::unique_ptr<FieldOutput> m_fields;
  std::unique_ptr<DivergenceGuard> m_guard;
  std::unique_ptr<Progress> m_progress;
  Sample m_sample;
};

} // namespace jobs
} // namespace undertow
