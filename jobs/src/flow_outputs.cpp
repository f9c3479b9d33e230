#include "flow_outputs.hpp"

#include "command_line.hpp"
#include "restart.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/core/signals.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/files.hpp"
#include "undertow/solvers/navier_stokes/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>

namespace undertow {
namespace jobs {

using navier_stokes::kAdvectiveCourantLimit;
using navier_stokes::NavierStokes;
using navier_stokes::NavierStokesParams;
using navier_stokes::TimeScheme;

ForceReport::ForceReport(const Config& cfg, const Domain& domain,
                         const NavierStokesParams& params) {
  obstacles = params.obstacles.shapes.size();
  const double U = cfg.get_real("forces.reference_velocity");
  coefficient_scale = 2.0 / (U * U *
                             (domain.dim() == 2 ? cfg.get_real("forces.reference_length")
                                                : cfg.get_real("forces.reference_area")));
  const auto probes = cfg.get_real_list("diagnostics.pressure_probes");
  has_probes = cfg.is_given("diagnostics.pressure_probes");
  if (has_probes && static_cast<int>(probes.size()) != 2 * domain.dim())
    throw ConfigError("diagnostics.pressure_probes needs 2 points of " +
                      std::to_string(domain.dim()) + " coordinates, got " +
                      std::to_string(probes.size()) + " numbers.");
  for (int a = 0; has_probes && a < domain.dim(); ++a) {
    probe1[a] = probes[a];
    probe2[a] = probes[domain.dim() + a];
  }
  if (has_probes) {
    require_inside(domain, probe1, "diagnostics.pressure_probes");
    require_inside(domain, probe2, "diagnostics.pressure_probes");
  }
}

std::array<double, 3> ForceReport::coefficients(const NavierStokes& ns, std::size_t k) const {
  std::array<double, 3> c{0, 0, 0};
  for (int a = 0; a < ns.domain().dim(); ++a)
    c[a] = coefficient_scale * ns.forces()[k][a];
  return c;
}

double ForceReport::pressure_drop(NavierStokes& ns) const {
  return navier_stokes::probe(ns.domain(), ns.pressure(), probe1) -
         navier_stokes::probe(ns.domain(), ns.pressure(), probe2);
}

DivergenceGuard::DivergenceGuard(NavierStokes& ns, std::string output_dir, double steady_tolerance,
                                 long first_step, double first_dt)
    : m_ns(ns), m_output_dir(std::move(output_dir)), m_steady_tolerance(steady_tolerance),
      m_previous_time(ns.time()), m_previous_step(first_step),
      m_last_courant(courant(ns, first_dt)) {
  // Velocity scale: the initial field and every boundary velocity.
  for (double m : max_velocity(ns))
    m_scale = std::max(m_scale, m);
  for (double v : max_boundary_velocity(ns))
    m_scale = std::max(m_scale, v);
  m_scale = std::max(m_scale, 1e-12);
  for (int c = 0; c < ns.domain().dim(); ++c) {
    m_previous[c] = Field(ns.domain(), ns.velocity(c).location(), 1, "previous");
    copy(ns.velocity(c), m_previous[c]);
  }
}

void DivergenceGuard::attach(Simulation& sim, const Cadence& also) {
  sim.on_step_error([this](Simulation& s, const CollectiveError& e) { step_failed(s, e); });
  sim.add_callback("divergence guard", Cadence::steps(kEvery) | also | Cadence::last_step(),
                   [this](Simulation& s) { check(s); });
}

double DivergenceGuard::scale_courant(double dt) const {
  double sum = 0;
  for (int c = 0; c < m_ns.domain().dim(); ++c)
    sum += m_scale / m_ns.domain().min_spacing(c);
  return dt * sum;
}

void DivergenceGuard::require_bounded(const Simulation& sim) {
  const auto umax = max_velocity(m_ns);
  const double largest = std::max({umax[0], umax[1], umax[2]});
  const bool finite = !has_nonfinite(m_ns) && std::isfinite(largest);
  if (finite && largest <= 1e3 * m_scale) {
    m_last_courant = courant(m_ns, sim.dt());
    // An unstable run can stay bounded for many steps (RK3-CN's implicit viscous terms keep it
    // bounded for good): its Courant number beyond the explicit advection's linear stability
    // limit sqrt 3 catches it.
    const double limit = kAdvectiveCourantLimit;
    if (m_last_courant > kUnstableCourantRatio * limit)
      throw CollectiveError(
          "the Navier-Stokes run diverged at step " + std::to_string(sim.step()) +
          format(" (t = %.6e, dt = %.3e): the Courant number is %.3f, ", m_ns.time(), sim.dt(),
                 m_last_courant) +
          format("%.1f times the linear stability limit %.3f of the advection, which ",
                 m_last_courant / limit, limit) +
          (m_ns.params().scheme == TimeScheme::Rk3CrankNicolson
               ? "time.scheme = imex takes explicitly (RK3); its implicit viscous terms keep the "
                 "velocity bounded, but the flow is wrong. "
               : "time.scheme = explicit takes by SSP-RK3: the flow is wrong (max |u| " +
                     format("%.3e against a velocity scale of %.3e). ", largest, m_scale)) +
          "Reduce time.cfl or time.dt, or refine the grid (domain.cells)." + save_last_good());
    return;
  }
  throw CollectiveError(
      "the Navier-Stokes run diverged at step " + std::to_string(sim.step()) +
      format(" (t = %.6e, dt = %.3e): ", m_ns.time(), sim.dt()) +
      (finite ? format("max |u|, |v|, |w| = %.3e, %.3e, ", umax[0], umax[1]) +
                    format("%.3e against a velocity scale of %.3e", umax[2], m_scale)
              : std::string("the velocity holds NaN or infinite values")) +
      format("; Courant number %.3f at the last check, ", m_last_courant) +
      format("%.3f for the velocity scale %.3e. ", scale_courant(sim.dt()), m_scale) +
      "Reduce time.cfl or time.dt, or refine the grid (domain.cells)." + save_last_good());
}

void DivergenceGuard::check(Simulation& sim) {
  const Domain& domain = m_ns.domain();
  require_bounded(sim);
  double change = 0;
  for (int c = 0; c < domain.dim(); ++c) {
    axpy(-1.0, m_ns.velocity(c), m_previous[c]);
    change = std::max(change, global_max_abs(domain.comm(), m_previous[c]));
    copy(m_ns.velocity(c), m_previous[c]);
  }
  dudt = change / (m_ns.time() - m_previous_time);
  m_previous_time = m_ns.time();
  m_previous_step = sim.step();
  if (m_steady_tolerance > 0 && dudt < m_steady_tolerance) {
    steady = true;
    sim.request_stop("steady state");
  }
}

void DivergenceGuard::step_failed(const Simulation& sim, const CollectiveError& e) const {
  throw CollectiveError(
      "the Navier-Stokes run diverged at step " + std::to_string(sim.step() + 1) +
      format(" (t = %.6e, dt = %.3e; Courant number %.3f at the last check, ", m_ns.time(),
             sim.dt(), m_last_courant) +
      format("%.3f for the velocity scale %.3e): ", scale_courant(sim.dt()), m_scale) + e.what() +
      ". Reduce time.cfl or time.dt, or refine the grid." + save_last_good());
}

/// Writes the velocity of the last check that passed to <output>/last_good_state.h5 and says
/// so. Collective; never throws.
std::string DivergenceGuard::save_last_good() const {
  const std::string path = m_output_dir + "/last_good_state.h5";
  try {
    run_on_root(m_ns.domain().comm(), [&] { io::make_directories(m_output_dir); });
    io::FieldFile file(m_ns.domain(), path, io::FieldFile::Mode::Create);
    const char* names[3] = {"u", "v", "w"};
    for (int c = 0; c < m_ns.domain().dim(); ++c)
      file.write(names[c], m_previous[c]);
    file.set_attribute("step", double(m_previous_step));
    file.set_attribute("time", m_previous_time);
    file.set_attribute("contents", "velocity components on the MAC faces (u on x faces, v on y "
                                   "faces, w on z faces) at the last check before divergence");
    file.commit();
    return format(" The last good state (step %.0f, ", double(m_previous_step)) +
           format("t = %.6e) is saved in ", m_previous_time) + path + ".";
  } catch (const std::exception& e) {
    return std::string(" The last good state could not be saved: ") + e.what();
  }
}

namespace {

std::vector<std::string> diagnostics_columns(const ForceReport& forces, int dim,
                                             const NavierStokesParams& params) {
  std::vector<std::string> columns = {
      "step",      "time",           "dt",      "courant", "poisson_iterations", "kinetic_energy",
      "enstrophy", "max_divergence", "max_dudt"};
  for (std::size_t k = 0; k < forces.obstacles; ++k)
    for (int a = 0; a < dim; ++a)
      columns.push_back(std::string("C") + "xyz"[a] + "_" + std::to_string(k + 1));
  if (forces.has_probes)
    columns.push_back("pressure_drop");
  // Each actuator's amplitude: "obstacle1.jet" [m/s], "obstacle1.rotation" [rad/s].
  for (const auto& a : params.actuators)
    columns.push_back(a.name());
  return columns;
}

} // namespace

bool FlowOutputs::requested(const Config& cfg) {
  return cfg.get_int("fields.every") > 0 || cfg.get_real("fields.interval") > 0 ||
         cfg.get_int("diagnostics.every") > 0 || cfg.get_int("restart.every") > 0 ||
         cfg.get_int("restart.at_step") > 0;
}

FlowOutputs::FlowOutputs(const Config& cfg, NavierStokes& ns, const std::string& output_dir,
                         const std::string& case_file, FlowOutputKinds kinds, const Log& log,
                         long first_step)
    : m_cfg(cfg), m_ns(ns), m_output_dir(output_dir), m_case_file(case_file), m_kinds(kinds),
      m_log(log), m_forces(cfg, ns.domain(), ns.params()),
      m_every(cfg.get_int("output.progress_every")),
      m_diagnostics_every(cfg.get_int("diagnostics.every")),
      m_diagnostics(ns.domain().comm(), output_dir + "/diagnostics.csv",
                    diagnostics_columns(m_forces, ns.domain().dim(), ns.params()),
                    first_step > 0 ? first_step : -1) {}

void FlowOutputs::attach(Simulation& sim) {
  NavierStokes& ns = m_ns;
  m_guard = std::make_unique<DivergenceGuard>(
      ns, m_output_dir, m_kinds.steady_stop ? m_cfg.get_real("time.steady_tolerance") : 0.0,
      sim.first_step(), sim.next_dt());

  // Restart files: on their cadence and on SIGUSR1 (go on) or SIGTERM (stop).
  Cadence restart = restart_cadence(m_cfg);
  if (m_kinds.signals) {
    sim.watch_signals();
    restart = restart | Cadence::signal();
  }
  if (!restart.empty())
    sim.add_callback("restart files", restart, [this](Simulation& s) { write_restart_file(s); });

  // Field snapshots: at the start, on their cadence, at the last step and at the end (a steady
  // stop ends between snapshot steps).
  const long fields_every = m_cfg.get_int("fields.every");
  const double fields_interval = m_cfg.get_real("fields.interval");
  if (fields_every > 0 || fields_interval > 0) {
    m_fields = std::make_unique<FieldOutput>(ns.domain(), m_output_dir, m_cfg.hash(),
                                             sim.first_step() > 0 ? sim.first_step() : -1);
    // The start (a continued run's series goes on with the snapshots an uninterrupted run
    // writes: the restart step's is not one of them).
    if (sim.first_step() == 0)
      m_fields->write(ns, 0);
    sim.add_callback("fields",
                     Cadence::steps(fields_every) | Cadence::interval(fields_interval) |
                         Cadence::last_step(),
                     [this](Simulation& s) { m_fields->write(m_ns, s.step()); });
    sim.add_finish("fields", [this](Simulation& s) { m_fields->write(m_ns, s.step()); });
  }

  m_guard->attach(sim, Cadence::steps(m_every) | Cadence::steps(m_diagnostics_every));

  // A diagnostics row with every progress line and every diagnostics.every steps (at the end
  // too, when either is on), and at a steady stop.
  sim.add_callback("diagnostics",
                   Cadence::steps(m_every) | Cadence::steps(m_diagnostics_every) |
                       Cadence::last_step(),
                   [this](Simulation& s) {
                     if (m_every > 0 || m_diagnostics_every > 0 || m_guard->steady)
                       m_diagnostics.append(sample(s).row);
                   });
  if (m_kinds.progress && m_every > 0) {
    m_progress =
        std::make_unique<Progress>(m_log, sim.clock().t_end, m_every, ns.time(), sim.step());
    sim.add_callback("progress", Cadence::steps(m_every) | Cadence::last_step(),
                     [this](Simulation& s) { print_progress(s); });
  }
}

const FlowOutputs::Sample& FlowOutputs::sample(const Simulation& sim) {
  if (m_sample.step == sim.step())
    return m_sample;
  NavierStokes& ns = m_ns;
  Sample& x = m_sample;
  x.step = sim.step();
  x.divergence = max_divergence(ns);
  x.kinetic_energy = kinetic_energy(ns);
  x.courant = courant(ns, sim.dt());
  x.row = {double(sim.step()),
           ns.time(),
           sim.dt(),
           x.courant,
           double(ns.poisson_iterations()),
           x.kinetic_energy,
           enstrophy(ns),
           x.divergence,
           m_guard->dudt};
  x.forces_text.clear();
  for (std::size_t k = 0; k < m_forces.obstacles; ++k) {
    const auto c = m_forces.coefficients(ns, k);
    for (int a = 0; a < ns.domain().dim(); ++a)
      x.row.push_back(c[a]);
    // Five significant digits: a lift of 0.009 shows as 0.0090772, not 0.0091.
    x.forces_text +=
        format("  CD%.0f %.5g", double(k + 1), c[0]) + format(" CL%.0f %.5g", double(k + 1), c[1]);
  }
  if (m_forces.has_probes)
    x.row.push_back(m_forces.pressure_drop(ns));
  for (std::size_t k = 0; k < ns.params().actuators.size(); ++k) {
    x.row.push_back(ns.actuator_amplitude(k));
    x.forces_text += format("  A%.0f %.4f", double(k + 1), ns.actuator_amplitude(k));
  }
  return x;
}

void FlowOutputs::write_restart_file(Simulation& sim) {
  // Never a restart file of a diverged state: the rotation (restart.keep) would delete the good
  // ones for it.
  m_guard->require_bounded(sim);
  undertow::write_restart_file(sim, restart_state(m_ns), m_ns.domain(), m_cfg, m_output_dir,
                               m_case_file, m_log);
}

void FlowOutputs::print_progress(const Simulation& sim) {
  const Sample& x = sample(sim);
  m_progress->update(
      sim.step(), m_ns.time(), sim.dt(),
      // time.cfl is a fraction of the SSP-RK3 limit sqrt(3): print the Courant number and that
      // fraction, so that the line and the case file speak the same language.
      format("CFL %.3f (%.2f of the advective limit)", x.courant, x.courant / std::sqrt(3.0)) +
          format("  Poisson its %2.0f", m_ns.poisson_iterations()) +
          (m_ns.params().scheme == navier_stokes::TimeScheme::Rk3CrankNicolson
               ? format("  viscous its %2.0f", m_ns.viscous_iterations())
               : std::string()) +
          format("  KE %.5e", x.kinetic_energy) +
          format("  max|div u| %.1e  max|du/dt| %.2e", x.divergence, m_guard->dudt) + x.forces_text,
      true);
}

} // namespace jobs
} // namespace undertow
