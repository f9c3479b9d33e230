/// The dynamic run of the elasticity model (dynamics.enabled): Newmark from rest, with progress
/// lines, the per-step work balance in diagnostics.csv, an XDMF time series of the fields, and
/// the --check of the measured frequency, the work balance and the final probe displacement.

#include "elasticity_case.hpp"
#include "restart.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/core/simulation.hpp"
#include "undertow/io/csv.hpp"
#include "undertow/solvers/elasticity/dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

namespace undertow {
namespace jobs {

namespace {

using elasticity::LinearElasticity;
using elasticity::Newmark;
using elasticity::WorkBalance;

/// Frequency [Hz] of a sampled oscillation from its upward crossings of the mean, linearly
/// interpolated between samples; 0 if fewer than three crossings. `t` and `u` have equal sizes.
double crossing_frequency(const std::vector<double>& t, const std::vector<double>& u,
                          long& crossings) {
  crossings = 0;
  if (u.size() < 3)
    return 0;
  double mean = 0;
  for (double x : u)
    mean += x;
  mean /= double(u.size());
  double first = 0, last = 0;
  for (std::size_t n = 1; n < u.size(); ++n) {
    const double a = u[n - 1] - mean, b = u[n] - mean;
    if (a < 0 && b >= 0) {
      const double at = t[n - 1] + (t[n] - t[n - 1]) * a / (a - b);
      if (crossings == 0)
        first = at;
      last = at;
      ++crossings;
    }
  }
  return crossings >= 3 ? double(crossings - 1) / (last - first) : 0.0;
}

/// The probe component with the largest range over the recorded history.
int dominant_component(const std::array<std::vector<double>, 3>& history, int dim) {
  int best = 0;
  double widest = -1;
  for (int c = 0; c < dim; ++c) {
    const auto& h = history[static_cast<std::size_t>(c)];
    if (h.empty())
      continue;
    const auto mm = std::minmax_element(h.begin(), h.end());
    if (*mm.second - *mm.first > widest) {
      widest = *mm.second - *mm.first;
      best = c;
    }
  }
  return best;
}

} // namespace

void declare_elastodynamics_keys(ConfigSchema& s) {
  s.add("dynamics.enabled", ValueType::Boolean, "false",
        "run in time by Newmark from rest to time.t_end with steps of time.dt, instead of a "
        "static solve");
  elasticity::NewmarkSettings::declare_keys(s);
  declare_restart_keys(s);
  s.add("fields.every", ValueType::Integer, "0",
        "dynamic run: write a snapshot of the fields (the XDMF time series fields.xmf) every "
        "this many steps; the start and the end are always written")
      .at_least(0);
  s.add("check.frequency", ValueType::Real, "0",
        "--check (dynamic run): the reference frequency [Hz] of the probe's oscillation, "
        "measured from the upward crossings of its mean by the component that moves most (0: "
        "not checked)")
      .at_least(0);
  s.add("check.frequency_rtol", ValueType::Real, "0.01",
        "--check: allowed relative deviation from check.frequency")
      .above(0);
  s.add("check.frequency_after", ValueType::Real, "0",
        "dynamic run: measure the frequency from this time [s] on (e.g. after a load pulse)")
      .at_least(0);
  s.add("check.energy_balance_max", ValueType::Real, "0",
        "--check (dynamic run): the largest allowed residual of a step's work balance "
        "d(KE + SE) = work - dissipation, relative to the largest KE + SE of the run (0: not "
        "checked)")
      .at_least(0);
}

namespace {

/// The step of a dynamic run: time.dt rounded down to land on time.t_end, after the checks of
/// the keys a dynamic run needs. Throws ConfigError. Not collective.
double dynamic_step(const RunContext& ctx, const ElasticityProbe& probe, long& n_steps) {
  const Config& cfg = ctx.config;
  const double f_ref = cfg.get_real("check.frequency");
  const double balance_ref = cfg.get_real("check.energy_balance_max");
  if (ctx.check_requested && f_ref <= 0 && balance_ref <= 0 && !probe.has_reference)
    throw ConfigError("--check needs a reference: set check.frequency, check.energy_balance_max "
                      "or check.probe_displacement in [check]");
  if ((f_ref > 0 || cfg.is_given("check.frequency_after")) && !probe.given)
    throw ConfigError("check.frequency is measured at a node: set check.probe");
  if (cfg.is_given("time.cfl"))
    throw ConfigError("time.cfl does not apply to a dynamic elasticity run (Newmark is implicit "
                      "and unconditionally stable): set time.dt [s], e.g. a fortieth of the "
                      "shortest period of interest");
  const double t_end = cfg.get_real("time.t_end"), dt_asked = cfg.get_real("time.dt");
  if (!(dt_asked > 0))
    throw ConfigError("a dynamic run needs time.dt > 0 [s]: the step of Newmark, e.g. a fortieth "
                      "of the shortest period of interest");
  n_steps = std::max(1L, static_cast<long>(std::ceil(t_end / dt_asked - 1e-9)));
  const double measure_after = cfg.get_real("check.frequency_after");
  if (measure_after >= t_end)
    throw ConfigError(format("check.frequency_after = %g s is not before time.t_end = %g s: "
                             "measure within the run",
                             measure_after, t_end));
  return t_end / double(n_steps);
}

/// Newmark as a Simulation steps it: the work balance and the probe around each step.
class NewmarkStepper : public TimeStepper {
 public:
  NewmarkStepper(Newmark& run, Timers& timers, const ElasticityProbe& probe)
      : m_run(run), m_balance(run), m_timers(timers), m_probe(probe) {}
  double time() const override { return m_run.time(); }
  void step(double dt) override {
    {
      auto scope = m_timers.scope("dynamics diagnostics");
      m_balance.before();
    }
    {
      auto scope = m_timers.scope("dynamics solve");
      info = m_run.step(dt);
    }
    auto scope = m_timers.scope("dynamics diagnostics");
    energies = m_balance.after(dt);
    if (m_probe.given)
      u_probe = m_run.solver().node_value_at(m_run.displacement(), m_probe.point);
  }
  elasticity::SolveInfo info;             ///< of the last step
  WorkBalance::Step energies;             ///< of the last step
  std::array<double, 3> u_probe{0, 0, 0}; ///< the probe's displacement after the last step [m]

 private:
  Newmark& m_run;
  WorkBalance m_balance;
  Timers& m_timers;
  const ElasticityProbe& m_probe;
};

/// The energies of every step: the work balance, the diagnostics row and the probe's history.
struct EnergyRecord {
  EnergyRecord(const RunContext& ctx, const ElasticityProbe& probe)
      : probe(probe), dim(ctx.domain.dim()),
        measure_after(ctx.config.get_real("check.frequency_after")),
        t_end(ctx.config.get_real("time.t_end")) {}

  /// Opens diagnostics.csv, once the run is accepted; `first_step` > 0: a run continued from a
  /// restart file at that step, whose diagnostics.csv keeps the rows up to it. Collective.
  void open_csv(const RunContext& ctx, long first_step) {
    csv = std::make_unique<io::CsvSeries>(ctx.domain.comm(), ctx.output_dir + "/diagnostics.csv",
                                          columns(probe, dim), first_step > 0 ? first_step : -1);
  }

  /// After step `sim.step()`. Throws CollectiveError for a non-finite energy. Not collective.
  void record(const Simulation& sim, const NewmarkStepper& stepper, double load_factor) {
    const WorkBalance::Step& b = stepper.energies;
    iterations += stepper.info.iterations;
    work += b.work;
    dissipated += b.dissipated;
    const double energy = b.kinetic + b.strain;
    if (!std::isfinite(energy))
      throw CollectiveError("the dynamic run produced a non-finite energy at step " +
                            std::to_string(sim.step()) +
                            ": check the material (youngs_modulus, mass_density) and the loads");
    largest_energy = std::max(largest_energy, energy);
    worst_residual = std::max(worst_residual, std::abs(b.residual));
    std::vector<double> row = {
        double(sim.step()), sim.time(), sim.dt(),   load_factor, b.kinetic,
        b.strain,           work,       dissipated, b.residual,  double(stepper.info.iterations)};
    for (int c = 0; c < dim && probe.given; ++c)
      row.push_back(stepper.u_probe[static_cast<std::size_t>(c)]);
    csv->append(row);
    if (probe.given && sim.time() >= measure_after - 1e-12 * t_end) {
      history_time.push_back(sim.time());
      for (int c = 0; c < dim; ++c)
        history[static_cast<std::size_t>(c)].push_back(
            stepper.u_probe[static_cast<std::size_t>(c)]);
    }
  }
  double relative_residual() const {
    return largest_energy > 0 ? worst_residual / largest_energy : 0.0;
  }

  const ElasticityProbe& probe;
  int dim;
  double measure_after, t_end;
  std::unique_ptr<io::CsvSeries> csv;
  std::array<std::vector<double>, 3> history; ///< probe displacement from measure_after on
  std::vector<double> history_time;
  double work = 0, dissipated = 0, worst_residual = 0, largest_energy = 0;
  long iterations = 0;

 private:
  static std::vector<std::string> columns(const ElasticityProbe& probe, int dim) {
    std::vector<std::string> c = {
        "step",   "time", "dt",         "load_factor",      "kinetic",
        "strain", "work", "dissipated", "balance_residual", "solver_iterations"};
    for (int a = 0; a < dim && probe.given; ++a)
      c.push_back(std::string("probe_u") + "xyz"[a]);
    return c;
  }
};

/// The probe's oscillation frequency [Hz] (0 if too few crossings), into the figures and the
/// log. Not collective.
double measure_frequency(const RunContext& ctx, const EnergyRecord& e,
                         const std::array<double, 3>& u_probe, long& crossings, io::Json& f) {
  crossings = 0;
  if (!e.probe.given)
    return 0;
  for (int c = 0; c < e.dim; ++c)
    f["probe_displacement"][std::string(1, "xyz"[c])] = u_probe[static_cast<std::size_t>(c)];
  const int component = dominant_component(e.history, e.dim);
  const double frequency =
      crossing_frequency(e.history_time, e.history[static_cast<std::size_t>(component)], crossings);
  if (frequency > 0) {
    f["frequency"] = frequency;
    ctx.log.info(format("probe oscillation: %.6f Hz from %.0f upward crossings of u_", frequency,
                        double(crossings)) +
                 std::string(1, "xyz"[component]) +
                 format("'s mean after t = %g s", e.measure_after));
  }
  return frequency;
}

/// The --check of a dynamic run: frequency, work balance, the probe's final displacement. Not
/// collective.
void check_dynamics(const RunContext& ctx, const EnergyRecord& e, double frequency, long crossings,
                    const std::array<double, 3>& u_probe, RunResult& result) {
  const Config& cfg = ctx.config;
  const double f_ref = cfg.get_real("check.frequency");
  const double balance_ref = cfg.get_real("check.energy_balance_max");
  result.has_reference = f_ref > 0 || balance_ref > 0 || e.probe.has_reference;
  if (!result.has_reference)
    return;
  bool ok = true;
  std::string summary;
  if (f_ref > 0) {
    const double allowed = cfg.get_real("check.frequency_rtol");
    const double rel = std::abs(frequency - f_ref) / f_ref;
    ok = ok && frequency > 0 && rel <= allowed;
    summary += frequency > 0
                   ? format("frequency %.6f Hz against %.6f (relative deviation %.2e", frequency,
                            f_ref, rel) +
                         format(", allowed %.1e)", allowed)
                   : format("frequency: only %.0f upward crossings after t = %g s, too few to "
                            "measure (raise time.t_end)",
                            double(crossings), e.measure_after);
  }
  if (balance_ref > 0) {
    ok = ok && e.relative_residual() <= balance_ref;
    summary += (summary.empty() ? "" : "; ") +
               format("work balance %.2e of the largest energy (allowed %.1e)",
                      e.relative_residual(), balance_ref);
  }
  e.probe.check(cfg, e.dim, u_probe, ok, summary);
  result.check_passed = ok;
  result.check_summary = summary;
}

/// "Newmark beta = ..., ... steps of dt = ... to t = ..." for the log. Not collective.
std::string describe_newmark(const Config& cfg, const elasticity::NewmarkSettings& settings,
                             const LinearElasticity& solver, long n_steps, double dt) {
  return format("Newmark beta = %g, gamma = %g", settings.beta, settings.gamma) +
         format(", Rayleigh alpha = %g 1/s, beta_R = %g s", settings.rayleigh_mass,
                settings.rayleigh_stiffness) +
         format(", mass density %g kg/m^3", solver.spec().mass_density) + ", load " +
         cfg.get_string("dynamics.load_history") + ", " + std::to_string(n_steps) +
         format(" steps of dt = %.4e s to t = %g s", dt, cfg.get_real("time.t_end"));
}

/// What a restart file holds of a dynamic run: the Newmark state (u, v, a), its clock, the
/// running totals of the work balance, and the probe's history for the frequency measurement.
RestartState restart_state(Newmark& run, EnergyRecord& e) {
  RestartState s;
  s.model = "elasticity";
  s.units = "SI: lengths and u m, v m/s, a m/s^2, time s, energies J (per unit thickness in 2D)";
  elasticity::NodeVector* parts[3] = {&run.displacement(), &run.velocity(), &run.acceleration()};
  const char* names[3] = {"displacement_", "velocity_", "acceleration_"};
  for (int p = 0; p < 3; ++p)
    for (int c = 0; c < e.dim; ++c)
      s.fields.emplace_back(names[p] + std::string(1, "xyz"[c]), &(*parts[p])[c]);
  s.numbers = {{"time", run.time()},
               {"solver_steps", double(run.steps())},
               {"work", e.work},
               {"dissipated", e.dissipated},
               {"largest_energy", e.largest_energy},
               {"worst_residual", e.worst_residual},
               {"solver_iterations", double(e.iterations)}};
  if (e.probe.given) {
    s.series.emplace_back("probe_time", &e.history_time);
    for (int c = 0; c < e.dim; ++c)
      s.series.emplace_back(std::string("probe_u") + "xyz"[c], &e.history[c]);
  }
  return s;
}

/// Continues from ctx.restart_file, if given: the state, its clock and the run's totals; returns
/// its step (0: none, the run starts from rest). Throws ConfigError. Collective.
long start_from_restart(const RunContext& ctx, Newmark& run, EnergyRecord& e, double dt,
                        long n_steps) {
  if (ctx.restart_file.empty())
    return 0;
  RestartState state = restart_state(run, e);
  const long first_step = read_restart(ctx.restart_file, state, ctx.domain, ctx.config);
  check_restart_step(ctx.restart_file, first_step, state.numbers[1].second, state.numbers[0].second,
                     dt, n_steps);
  for (const auto& named : state.fields)
    run.solver().node_halo().fill(*named.second);
  run.restore_clock(state.numbers[0].second, first_step);
  e.work = state.numbers[2].second;
  e.dissipated = state.numbers[3].second;
  e.largest_energy = state.numbers[4].second;
  e.worst_residual = state.numbers[5].second;
  e.iterations = static_cast<long>(state.numbers[6].second);
  ctx.log.info("restarted from " + ctx.restart_file +
               format(" at step %.0f, t = %.9e", double(first_step), run.time()));
  return first_step;
}

} // namespace

RunResult run_elastodynamics(const RunContext& ctx, LinearElasticity& solver,
                             const ElasticityProbe& probe) {
  const Config& cfg = ctx.config;
  const int dim = ctx.domain.dim();
  long n_steps = 0;
  const double dt = dynamic_step(ctx, probe, n_steps);
  const double t_end = cfg.get_real("time.t_end");
  Newmark run(solver, elasticity::NewmarkSettings::from_config(cfg));
  const elasticity::NewmarkSettings& settings = run.settings();
  ctx.log.info(describe_newmark(cfg, settings, solver, n_steps, dt));

  RunResult result;
  Timers& timers = result.timers;
  EnergyRecord energies(ctx, probe);
  const long first_step = start_from_restart(ctx, run, energies, dt, n_steps);
  if (first_step == 0) {
    auto scope = timers.scope("dynamics solve");
    run.start();
  }
  ctx.accept();
  energies.open_csv(ctx, first_step);
  ElasticityFieldWriter fields(ctx, "the simulated time [s]", first_step > 0 ? first_step : -1);
  NewmarkStepper stepper(run, timers, probe);
  const long progress_every = cfg.get_int("output.progress_every");
  Progress progress(ctx.log, t_end, progress_every, run.time(), first_step);
  if (first_step == 0) { // a continued run's series goes on as the uninterrupted run's
    auto scope = timers.scope("output");
    fields.write(0, run.time(), solver, run.displacement(), &run.velocity());
  }
  Clock clock;
  clock.fixed_dt = dt;
  clock.max_steps = n_steps - first_step;
  Simulation sim(ctx.domain.comm(), stepper, clock, first_step);
  sim.add_callback("energies", Cadence::steps(1), [&](Simulation& s) {
    energies.record(s, stepper, settings.load.at(run.time()));
  });
  // Restart files (restart.every, restart.at_step), and one on SIGUSR1, SIGTERM or a spent
  // --walltime budget, after which the run stops (exit 75) with the command that continues it.
  sim.watch_signals();
  sim.add_callback("restart files", restart_cadence(cfg) | Cadence::signal(), [&](Simulation& s) {
    write_restart_file(s, restart_state(run, energies), ctx.domain, cfg, ctx.output_dir,
                       ctx.case_file, ctx.log);
  });
  sim.add_callback("fields", Cadence::steps(cfg.get_int("fields.every")) | Cadence::last_step(),
                   [&](Simulation& s) {
                     auto scope = timers.scope("output");
                     fields.write(s.step(), run.time(), solver, run.displacement(),
                                  &run.velocity());
                   });
  sim.add_callback(
      "progress", Cadence::steps(progress_every) | Cadence::last_step(), [&](Simulation& s) {
        const WorkBalance::Step& b = stepper.energies;
        const auto& u = stepper.u_probe;
        std::string extra =
            format("solver its %3.0f  KE %.4e  SE %.4e", double(stepper.info.iterations), b.kinetic,
                   b.strain) +
            format("  balance %.1e",
                   energies.largest_energy > 0 ? b.residual / energies.largest_energy : 0.0);
        if (probe.given)
          extra += format("  u_probe (%.4e, %.4e", u[0], u[1]) +
                   (dim == 3 ? format(", %.4e)", u[2]) : std::string(")"));
        progress.update(s.step(), run.time(), dt, extra, s.last_step());
      });
  const auto insitu = elasticity_insitu(ctx);
  insitu->attach(sim, [&](io::InSituBuilder& b, long step, double time) {
    return elasticity_frame(b, solver, run.displacement(), &run.velocity(), step, time);
  });
  sim.run();
  if (insitu->active())
    ctx.log.info(insitu->summary());

  ctx.log.info(
      format("work balance: largest step residual %.3e J = %.2e of the largest energy",
             energies.worst_residual, energies.relative_residual()) +
      format("; total work %.6e J, dissipated %.6e J", energies.work, energies.dissipated));
  auto& f = result.figures;
  f["steps"] = n_steps;
  f["dt"] = dt;
  f["time"] = run.time();
  f["state_checksum"] = state_checksum(ctx.domain.comm(), restart_state(run, energies));
  f["kinetic_energy"] = run.kinetic_energy();
  f["strain_energy"] = run.strain_energy();
  f["work"] = energies.work;
  f["dissipated"] = energies.dissipated;
  f["energy_balance_max_relative"] = energies.relative_residual();
  f["unknowns"] = double(solver.global_dofs());
  f["solver_iterations_per_step"] = double(energies.iterations) / double(n_steps);
  f["field_snapshots"] = fields.count();
  f["von_mises_max"] = global_max(ctx.domain.comm(), fields.von_mises());
  ctx.log.info("fields: " + fields.xdmf_path() + " (" + std::to_string(fields.count()) +
               " snapshots)");
  long crossings = 0;
  const double frequency = measure_frequency(ctx, energies, stepper.u_probe, crossings, f);
  check_dynamics(ctx, energies, frequency, crossings, stepper.u_probe, result);
  return result;
}

} // namespace jobs
} // namespace undertow
