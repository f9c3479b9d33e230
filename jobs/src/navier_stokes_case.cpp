/// The Navier-Stokes model for `undertow run`: initial conditions, the time loop (fixed or
/// CFL-adaptive dt, optional stop at steady state), progress, diagnostics CSV, divergence guard,
/// and the reference checks (exact solutions, Ghia et al. 1982 cavity centrelines).

#include "field_output.hpp"
#include "models.hpp"
#include "navier_stokes_setup.hpp"
#include "restart.hpp"

#include "undertow/adjoint/objective.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/core/simulation.hpp"
#include "undertow/io/csv.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/files.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>

namespace undertow {
namespace jobs {

namespace {

using navier_stokes::NavierStokes;
using navier_stokes::NavierStokesParams;
using navier_stokes::VelocityFunction;

void declare_keys(ConfigSchema& s) {
  s.add("fluid.nu", ValueType::Real, "0.01", "kinematic viscosity [m^2/s]").above(0);
  s.add("fluid.body_force", ValueType::RealList, "0 0 0",
        "uniform body force per unit mass, one entry per axis [m/s^2]")
      .items(2, 3);
  navier_stokes::BoundarySet::declare_keys(s);
  navier_stokes::ObstacleSet::declare_keys(s);
  declare_error_check_keys(s);
  s.add("forces.reference_velocity", ValueType::Real, "1",
        "velocity U in the force coefficients C = 2 F / (U^2 L) (2D, per unit span) or "
        "2 F / (U^2 A) (3D) [m/s]")
      .above(0);
  s.add("forces.reference_length", ValueType::Real, "1",
        "length L of the 2D force coefficients [m]")
      .above(0);
  s.add("forces.reference_area", ValueType::Real, "1", "area A of the 3D force coefficients [m^2]")
      .above(0);
  s.add("fields.every", ValueType::Integer, "0",
        "write a snapshot of the fields (HDF5 + the XDMF time series fields.xmf) every this many "
        "steps, and at the start and end; 0: off unless fields.interval is set")
      .at_least(0);
  s.add("fields.interval", ValueType::Real, "0",
        "write a snapshot of the fields every this much simulated time [s] (at the first step "
        "that reaches it), and at the start and end; 0: off unless fields.every is set")
      .at_least(0);
  s.add("restart.every", ValueType::Integer, "0",
        "write a restart file to <output>/restart/ every this many steps; 0: off")
      .at_least(0);
  s.add("restart.at_step", ValueType::Integer, "0",
        "also write a restart file after this step; 0: none")
      .at_least(0);
  s.add("restart.keep", ValueType::Integer, "2", "how many of the newest restart files to keep")
      .at_least(1);
  s.add("diagnostics.every", ValueType::Integer, "0",
        "write a row of diagnostics.csv every this many steps; 0: with every progress line "
        "(output.progress_every)")
      .at_least(0);
  s.add("diagnostics.pressure_probes", ValueType::RealList, "0 0 0 0",
        "two points (x1 y1 [z1] x2 y2 [z2]) whose pressure difference p1 - p2 is reported; all "
        "zero: none")
      .items(4, 6);
  s.add("initial.type", ValueType::Choice, "rest", "initial velocity field")
      .one_of({"rest", "taylor_green", "abc", "poiseuille"});
  s.add("initial.amplitude", ValueType::Real, "1",
        "velocity scale of the initial field (peak velocity for poiseuille) [m/s]");
  s.add("pressure.rtol", ValueType::Real, "1e-10",
        "relative residual reduction of the pressure Poisson solve")
      .range(1e-15, 0.1);
  s.add("pressure.max_iterations", ValueType::Integer, "1000",
        "iteration limit of the pressure Poisson solve")
      .at_least(1);
  s.add("pressure.preconditioner", ValueType::Choice, "auto",
        "preconditioner of the pressure CG: multigrid (our geometric multigrid), hypre "
        "(BoomerAMG), gamg, or auto (multigrid where the grid allows it, else hypre)")
      .one_of({"auto", "multigrid", "hypre", "gamg"});
  s.add("pressure.petsc_options", ValueType::String, "",
        "PETSc options for the pressure solver, without prefix (e.g. '-pc_type hypre')");
  s.add("time.steady_tolerance", ValueType::Real, "0",
        "stop when max |du/dt| falls below this [m/s^2]; 0 runs to t_end")
      .at_least(0);
  adjoint::declare_objective_keys(s);
  declare_adjoint_keys(s);
  declare_optimize_keys(s);
  s.add("check.reference", ValueType::Choice, "none",
        "what --check compares with: exact (initial.type's exact solution) or ghia (cavity "
        "centrelines of Ghia et al. 1982)")
      .one_of({"none", "exact", "ghia"});
  s.add("check.ghia_re", ValueType::Choice, "100", "Reynolds number column of the Ghia tables")
      .one_of({"100", "400", "1000"});
  s.add("check.ghia_u_file", ValueType::String, "ghia_u_vertical_centreline.csv",
        "Ghia's u along x = 0.5, relative to the case file");
  s.add("check.ghia_v_file", ValueType::String, "ghia_v_horizontal_centreline.csv",
        "Ghia's v along y = 0.5, relative to the case file");
}

/// One column of a Ghia table: positions and values.
struct Profile {
  std::vector<double> position, value;
};

Profile read_ghia(const std::string& path, const std::string& re) {
  std::istringstream in(io::read_file(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::istringstream h(line);
    std::string cell;
    while (std::getline(h, cell, ','))
      header.push_back(cell);
  }
  std::size_t column = 0;
  for (std::size_t c = 0; c < header.size(); ++c)
    if (header[c].size() > re.size() &&
        header[c].substr(header[c].size() - re.size() - 2) == "Re" + re)
      column = c;
  if (column == 0)
    throw ConfigError(path + " has no column for Re = " + re + " (header: " + line + ")");
  Profile p;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    std::istringstream row(line);
    std::string cell;
    std::vector<double> values;
    while (std::getline(row, cell, ','))
      values.push_back(std::stod(cell));
    if (values.size() != header.size())
      throw ConfigError(path + ": malformed row '" + line + "'");
    p.position.push_back(values[0]);
    p.value.push_back(values[column]);
  }
  return p;
}

/// Linear interpolation in a sampled profile (positions increasing).
double interpolate(const std::vector<double>& x, const std::vector<double>& f, double at) {
  if (at <= x.front())
    return f.front();
  for (std::size_t i = 1; i < x.size(); ++i)
    if (at <= x[i])
      return f[i - 1] + (f[i] - f[i - 1]) * (at - x[i - 1]) / (x[i] - x[i - 1]);
  return f.back();
}

struct GhiaComparison {
  double max_error = 0, rms_error = 0;
  int points = 0;
};

/// Compares u on x = 0.5 and v on y = 0.5 (from the gathered u and v of an nx x ny unit-square
/// cavity with lid speed `lid`) with Ghia's tables. Rank 0 only: it reads the tables.
GhiaComparison compare_with_ghia(const std::vector<double>& u, const std::vector<double>& v,
                                 long nx, long ny, const Config& cfg, const std::string& case_dir,
                                 const std::string& re, double lid) {
  GhiaComparison out;
  const double hx = 1.0 / nx, hy = 1.0 / ny;
  // u(x = 0.5, y): interpolate between face columns in x, then along y through the wall values.
  std::vector<double> ys{0.0}, us{0.0};
  for (long j = 0; j < ny; ++j) {
    const double xi = 0.5 / hx;
    const long i0 = static_cast<long>(std::floor(xi));
    const double w = xi - i0;
    const long i1 = std::min(i0 + 1, nx);
    ys.push_back((j + 0.5) * hy);
    us.push_back((1 - w) * u[i0 * ny + j] + w * u[i1 * ny + j]);
  }
  ys.push_back(1.0);
  us.push_back(lid);
  std::vector<double> xs{0.0}, vs{0.0};
  for (long i = 0; i < nx; ++i) {
    const double yj = 0.5 / hy;
    const long j0 = static_cast<long>(std::floor(yj));
    const double w = yj - j0;
    const long j1 = std::min(j0 + 1, ny);
    xs.push_back((i + 0.5) * hx);
    vs.push_back((1 - w) * v[i * (ny + 1) + j0] + w * v[i * (ny + 1) + j1]);
  }
  xs.push_back(1.0);
  vs.push_back(0.0);
  const Profile gu = read_ghia(case_dir + "/" + cfg.get_string("check.ghia_u_file"), re);
  const Profile gv = read_ghia(case_dir + "/" + cfg.get_string("check.ghia_v_file"), re);
  double squares = 0;
  const auto add = [&](double computed, double reference) {
    const double e = std::abs(computed - reference);
    out.max_error = std::max(out.max_error, e);
    squares += e * e;
    ++out.points;
  };
  for (std::size_t q = 0; q < gu.position.size(); ++q)
    if (gu.position[q] > 0 && gu.position[q] < 1)
      add(interpolate(ys, us, gu.position[q]), gu.value[q]);
  for (std::size_t q = 0; q < gv.position.size(); ++q) {
    // Ghia's v at Re = 400, x = 0.9063 is a known misprint (shared/data/README.md).
    if (re == "400" && std::abs(gv.position[q] - 0.9063) < 1e-4)
      continue;
    if (gv.position[q] > 0 && gv.position[q] < 1)
      add(interpolate(xs, vs, gv.position[q]), gv.value[q]);
  }
  out.rms_error = std::sqrt(squares / out.points);
  return out;
}

/// The forces and the pressure drop of a run, as the diagnostics and the report give them.
struct ForceReport {
  std::size_t obstacles = 0;
  double coefficient_scale = 1; ///< C = scale * F
  bool has_probes = false;
  std::array<double, 3> probe1{0, 0, 0}, probe2{0, 0, 0};

  ForceReport(const Config& cfg, const Domain& domain, const NavierStokesParams& params) {
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
  }
  std::array<double, 3> coefficients(const NavierStokes& ns, std::size_t k) const {
    std::array<double, 3> c{0, 0, 0};
    for (int a = 0; a < ns.domain().dim(); ++a)
      c[a] = coefficient_scale * ns.forces()[k][a];
    return c;
  }
  /// p(probe1) - p(probe2) [m^2/s^2]. Collective.
  double pressure_drop(NavierStokes& ns) const {
    return ns.probe(ns.pressure(), probe1) - ns.probe(ns.pressure(), probe2);
  }
};

/// The Navier-Stokes solver as a Simulation steps it, counting the Poisson iterations.
class FlowStepper : public TimeStepper {
 public:
  explicit FlowStepper(NavierStokes& ns) : m_ns(ns) {}
  double time() const override { return m_ns.time(); }
  void step(double dt) override {
    m_ns.step(dt);
    poisson_total += m_ns.poisson_iterations();
  }
  double stable_dt(double cfl) const override { return m_ns.stable_dt(cfl); }
  long poisson_total = 0;

 private:
  NavierStokes& m_ns;
};

/// The divergence guard and the steady-state test of a run (a Simulation callback): every few
/// steps it checks that the velocity is finite and bounded, measures max |du/dt| since the last
/// check, and asks the Simulation to stop when the flow is steady. When the run diverges it saves
/// the velocity of the last check that passed.
class DivergenceGuard {
 public:
  static constexpr long kEvery = 10; ///< steps between checks (besides output steps)

  DivergenceGuard(NavierStokes& ns, const NavierStokesParams& params, std::string output_dir,
                  double steady_tolerance, long first_step, double first_dt)
      : m_ns(ns), m_output_dir(std::move(output_dir)), m_steady_tolerance(steady_tolerance),
        m_previous_time(ns.time()), m_previous_step(first_step),
        m_last_courant(ns.courant(first_dt)) {
    // Velocity scale: the initial field and every boundary velocity.
    for (double m : ns.max_velocity())
      m_scale = std::max(m_scale, m);
    for (const auto& f : params.boundaries.face)
      for (double v : f.velocity)
        m_scale = std::max(m_scale, std::abs(v));
    m_scale = std::max(m_scale, 1e-12);
    for (int c = 0; c < ns.domain().dim(); ++c) {
      m_previous[c] = Field(ns.domain(), ns.velocity(c).location(), 1, "previous");
      copy(ns.velocity(c), m_previous[c]);
    }
  }

  /// Checks the state after step `sim.step()`; throws CollectiveError if it diverged; requests a
  /// stop at a steady state. Collective.
  void check(Simulation& sim) {
    const Domain& domain = m_ns.domain();
    const auto umax = m_ns.max_velocity();
    const double largest = std::max({umax[0], umax[1], umax[2]});
    m_last_courant = m_ns.courant(sim.dt());
    if (m_ns.has_nonfinite() || largest > 1e3 * m_scale)
      throw CollectiveError(
          "the Navier-Stokes run diverged at step " + std::to_string(sim.step()) +
          format(" (t = %.6e): max |u|, |v|, |w| = %.3e, %.3e, ", m_ns.time(), umax[0], umax[1]) +
          format("%.3e against a velocity scale of %.3e; Courant number %.3f. ", umax[2], m_scale,
                 m_ns.courant(sim.dt())) +
          "Reduce time.cfl or time.dt, or refine the grid (domain.cells)." + save_last_good());
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

  /// A failed step, told with the Courant number of the last check. Collective.
  [[noreturn]] void step_failed(const Simulation& sim, const CollectiveError& e) {
    throw CollectiveError(
        "the Navier-Stokes run diverged at step " + std::to_string(sim.step() + 1) +
        format(" (t = %.6e, dt = %.3e; Courant number %.3f at the last check): ", m_ns.time(),
               sim.dt(), m_last_courant) +
        e.what() + ". Reduce time.cfl or time.dt, or refine the grid." + save_last_good());
  }

  double dudt = HUGE_VAL; ///< max |du/dt| between the last two checks [m/s^2]
  bool steady = false;

 private:
  /// Writes the velocity of the last check that passed to <output>/last_good_state.h5 and says
  /// so. Collective; never throws.
  std::string save_last_good() const {
    const std::string path = m_output_dir + "/last_good_state.h5";
    try {
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

  NavierStokes& m_ns;
  std::string m_output_dir;
  double m_steady_tolerance;
  double m_scale = 0;
  std::array<Field, 3> m_previous;
  double m_previous_time;
  long m_previous_step;
  double m_last_courant;
};

/// The figures of one step that the diagnostics row and the progress line share, computed once.
struct FlowSample {
  long step = -1;
  double divergence = 0, kinetic_energy = 0, courant = 0;
  std::vector<double> row;
  std::string forces_text;
};

RunResult run_navier_stokes(const RunContext& ctx) {
  require_error_check(ctx);
  const Config& cfg = ctx.config;
  const Domain& domain = ctx.domain;
  const NavierStokesParams params = flow_parameters(cfg, domain);
  if (ctx.check_requested && cfg.get_string("check.reference") == "none")
    throw ConfigError("--check needs a reference: set check.reference = exact (with an exact "
                      "initial.type) or ghia (the cavity) in [check] of " +
                      ctx.case_file + ".");
  NavierStokes ns(domain, params);

  bool has_exact = false;
  const std::string initial = cfg.get_string("initial.type");
  const VelocityFunction field =
      initial_field(initial, cfg.get_real("initial.amplitude"), domain, params.nu, has_exact);
  navier_stokes::set_velocity(ns, field, 0.0);
  ns.project_initial();
  long first_step = 0;
  if (!ctx.restart_file.empty()) {
    first_step = read_restart(ctx.restart_file, ns, domain, cfg);
    ctx.log.info("restarted from " + ctx.restart_file +
                 format(" at step %.0f, ", double(first_step)) + format("t = %.9e", ns.time()));
  }

  Clock clock;
  clock.t_end = cfg.get_real("time.t_end");
  clock.fixed_dt = cfg.get_real("time.dt");
  clock.cfl = cfg.get_real("time.cfl");
  const double steady_tol = cfg.get_real("time.steady_tolerance");
  const long every = cfg.get_int("output.progress_every");
  const long diagnostics_every = cfg.get_int("diagnostics.every");
  const long fields_every = cfg.get_int("fields.every");
  const double fields_interval = cfg.get_real("fields.interval");

  ctx.log.info(format("Navier-Stokes: nu = %g, ", params.nu) +
               (clock.fixed_dt > 0 ? format("fixed dt = %.4e", clock.fixed_dt)
                                   : format("CFL-adaptive dt (time.cfl = %.2f)", clock.cfl)) +
               ", pressure solver " + ns.pressure_method());
  if (clock.fixed_dt > 0 && clock.fixed_dt > ns.stable_dt(1.0))
    ctx.log.info(format("warning: time.dt = %.3e exceeds the linear stability limit %.3e of "
                        "SSP-RK3 for the initial field; expect the run to diverge",
                        clock.fixed_dt, ns.stable_dt(1.0)));
  const ForceReport forces(cfg, domain, params);
  std::vector<std::string> columns = {
      "step",      "time",           "dt",      "courant", "poisson_iterations", "kinetic_energy",
      "enstrophy", "max_divergence", "max_dudt"};
  for (std::size_t k = 0; k < forces.obstacles; ++k)
    for (int a = 0; a < domain.dim(); ++a)
      columns.push_back(std::string("C") + "xyz"[a] + "_" + std::to_string(k + 1));
  if (forces.has_probes)
    columns.push_back("pressure_drop");
  io::CsvSeries diagnostics(domain.comm(), ctx.output_dir + "/diagnostics.csv", columns);

  FlowStepper stepper(ns);
  Simulation sim(domain.comm(), stepper, clock, first_step);
  DivergenceGuard guard(ns, params, ctx.output_dir, steady_tol, first_step, sim.next_dt());
  sim.on_step_error([&](Simulation& s, const CollectiveError& e) { guard.step_failed(s, e); });

  // Restart files: on their cadence and on SIGUSR1 (go on) or SIGTERM (stop).
  sim.watch_signals();
  const std::string restart_dir = ctx.output_dir + "/restart";
  sim.add_callback(
      "restart files",
      Cadence::steps(cfg.get_int("restart.every")) |
          Cadence::at_step(cfg.get_int("restart.at_step")) | Cadence::signal(),
      [&](Simulation& s) {
        const std::string written = write_restart(restart_dir, ns, domain, cfg, s.step(),
                                                  int(cfg.get_int("restart.keep")), s.dt());
        ctx.log.info(format("restart file for step %.0f: ", double(s.step())) + written);
        if (s.signal() == SIGTERM)
          throw CollectiveError(format("stopped by SIGTERM at step %.0f ", double(s.step())) +
                                format("(t = %.6e); continue with: undertow run ", ns.time()) +
                                ctx.case_file + " --restart " + written);
      });

  // Field snapshots: at the start, on their cadence, at the last step and after the run.
  std::unique_ptr<FieldOutput> fields;
  if (fields_every > 0 || fields_interval > 0) {
    fields = std::make_unique<FieldOutput>(domain, ctx.output_dir, ctx.config.hash());
    fields->write(ns, first_step);
    sim.add_callback("fields",
                     Cadence::steps(fields_every) | Cadence::interval(fields_interval) |
                         Cadence::last_step(),
                     [&](Simulation& s) { fields->write(ns, s.step()); });
    // The final state: a steady stop ends between snapshot steps.
    sim.add_finish("fields", [&](Simulation& s) { fields->write(ns, s.step()); });
  }

  sim.add_callback("divergence guard",
                   Cadence::steps(DivergenceGuard::kEvery) | Cadence::steps(every) |
                       Cadence::steps(diagnostics_every) | Cadence::last_step(),
                   [&](Simulation& s) { guard.check(s); });

  // The diagnostics row and the progress line, from one sample per step.
  FlowSample sample;
  const auto sample_at = [&](const Simulation& s) -> const FlowSample& {
    if (sample.step == s.step())
      return sample;
    sample.step = s.step();
    sample.divergence = ns.max_divergence();
    sample.kinetic_energy = ns.kinetic_energy();
    sample.courant = ns.courant(s.dt());
    sample.row = {double(s.step()),
                  ns.time(),
                  s.dt(),
                  sample.courant,
                  double(ns.poisson_iterations()),
                  sample.kinetic_energy,
                  ns.enstrophy(),
                  sample.divergence,
                  guard.dudt};
    sample.forces_text.clear();
    for (std::size_t k = 0; k < forces.obstacles; ++k) {
      const auto c = forces.coefficients(ns, k);
      for (int a = 0; a < domain.dim(); ++a)
        sample.row.push_back(c[a]);
      sample.forces_text += format("  CD%.0f %.4f", double(k + 1), c[0]) +
                            format(" CL%.0f %.4f", double(k + 1), c[1]);
    }
    if (forces.has_probes)
      sample.row.push_back(forces.pressure_drop(ns));
    return sample;
  };
  // A row with every progress line and every diagnostics.every steps (at the end too, when
  // either is on), and at a steady stop.
  sim.add_callback("diagnostics",
                   Cadence::steps(every) | Cadence::steps(diagnostics_every) | Cadence::last_step(),
                   [&](Simulation& s) {
                     if (every > 0 || diagnostics_every > 0 || guard.steady)
                       diagnostics.append(sample_at(s).row);
                   });
  Progress progress(ctx.log, clock.t_end, every, ns.time());
  sim.add_callback("progress", Cadence::steps(every) | Cadence::last_step(), [&](Simulation& s) {
    if (every <= 0)
      return;
    const FlowSample& x = sample_at(s);
    progress.update(
        s.step(), ns.time(), s.dt(),
        // time.cfl is a fraction of the SSP-RK3 limit sqrt(3): print the Courant number and
        // that fraction, so that the line and the case file speak the same language.
        format("CFL %.3f (%.2f of the advective limit)", x.courant, x.courant / std::sqrt(3.0)) +
            format("  Poisson its %2.0f  KE %.5e", ns.poisson_iterations(), x.kinetic_energy) +
            format("  max|div u| %.1e  max|du/dt| %.2e", x.divergence, guard.dudt) + x.forces_text,
        true);
  });

  sim.run();
  const long n = sim.step();
  const double dt = sim.dt();
  const bool steady = guard.steady;
  const double dudt = guard.dudt;
  const long poisson_total = stepper.poisson_total;
  if (steady)
    ctx.log.info(
        format("steady state reached at t = %.4e: max |du/dt| = %.3e < ", ns.time(), dudt) +
        format("%.3e (time.steady_tolerance)", steady_tol));

  RunResult result;
  result.timers = ns.timers();
  auto& f = result.figures;
  f["steps"] = n;
  f["time"] = ns.time();
  f["last_dt"] = dt;
  f["courant"] = ns.courant(dt);
  f["kinetic_energy"] = ns.kinetic_energy();
  f["max_divergence"] = ns.max_divergence();
  f["max_dudt"] = dudt;
  f["poisson_iterations_per_step"] = double(poisson_total) / std::max(n - first_step, 1L);
  {
    // Bitwise fingerprint of the final state, the same on any number of ranks: restarted and
    // uninterrupted runs can be compared exactly.
    std::string sums;
    for (const auto& named : ns.state_fields())
      sums += named.first + ":" +
              io::checksum_text(io::field_checksum(domain.comm(), *named.second)) + " ";
    f["state_checksum"] = sums;
  }
  if (fields) {
    f["field_snapshots"] = fields->count();
    ctx.log.info("fields: " + std::to_string(fields->count()) + " snapshots, open " +
                 ctx.output_dir + "/fields.xmf in ParaView");
  }
  f["cell_updates"] =
      double(n) * double(domain.global_cells(0) * domain.global_cells(1) * domain.global_cells(2));
  f["steady"] = steady;
  f["enstrophy"] = ns.enstrophy();
  for (std::size_t k = 0; k < forces.obstacles; ++k) {
    const auto c = forces.coefficients(ns, k);
    io::Json& o = f["obstacle" + std::to_string(k + 1)];
    o["drag_coefficient"] = c[0];
    o["lift_coefficient"] = c[1];
    if (domain.dim() == 3)
      o["side_force_coefficient"] = c[2];
    ctx.log.info("obstacle " + std::to_string(k + 1) +
                 format(": drag coefficient %.5f, lift coefficient %.5f", c[0], c[1]));
  }
  if (forces.has_probes) {
    const double drop = forces.pressure_drop(ns);
    f["pressure_drop"] = drop;
    ctx.log.info(format("pressure drop between the probes: %.6f [m^2/s^2]", drop));
  }

  const std::string reference = cfg.get_string("check.reference");
  const double l2_max = cfg.get_real("check.l2_error_max");
  const double linf_max = cfg.get_real("check.linf_error_max");
  double rms = 0, worst = 0;
  std::string against;
  if (reference == "exact") {
    if (!has_exact)
      throw ConfigError("check.reference = exact, but initial.type = " + initial +
                        " has no exact solution here; use taylor_green (2D), abc or poiseuille.");
    std::tie(rms, worst) = navier_stokes::velocity_error(ns, field, ns.time());
    against = "the exact solution";
  } else if (reference == "ghia") {
    const std::string re = cfg.get_string("check.ghia_re");
    const std::string dir = std::filesystem::path(ctx.case_file).parent_path().string();
    const DomainSpec& spec = domain.spec();
    if (domain.dim() != 2 || spec.length[0] != 1.0 || spec.length[1] != 1.0)
      throw ConfigError("check.reference = ghia needs the 2D unit square of Ghia et al. "
                        "(domain.dim = 2, domain.length = 1 1)");
    const std::vector<double> u = gather_to_root(domain.comm(), ns.velocity(0));
    const std::vector<double> v = gather_to_root(domain.comm(), ns.velocity(1));
    GhiaComparison g;
    run_on_root(domain.comm(), [&] {
      g = compare_with_ghia(u, v, spec.cells[0], spec.cells[1], cfg, dir.empty() ? "." : dir, re,
                            params.boundaries.face[3].velocity[0]);
    });
    // Rank 0 computed the comparison; every rank returns the same verdict.
    const std::string packed =
        domain.comm().broadcast(format("%.17g %.17g %.0f", g.rms_error, g.max_error, g.points));
    std::istringstream(packed) >> rms >> worst >> g.points;
    against = "Ghia et al. (1982), Re = " + re + ", " + std::to_string(g.points) + " points";
  }
  if (!against.empty()) {
    ctx.log.info("velocity error against " + against + format(": RMS %.4e, max %.4e", rms, worst));
    f["reference"] = reference;
    f["error_l2"] = rms;
    f["error_linf"] = worst;
    result.has_reference = l2_max > 0;
    result.check_passed = rms <= l2_max && (linf_max <= 0 || worst <= linf_max);
    result.check_summary =
        format("RMS error %.4e (allowed %.3e)", rms, l2_max) +
        (linf_max > 0 ? format(", max error %.4e (allowed %.3e)", worst, linf_max)
                      : std::string()) +
        " against " + against;
  }
  return result;
}

} // namespace

Model navier_stokes_model() {
  return {"navier_stokes",
          "incompressible Navier-Stokes, MAC grid, SSP-RK3 + projection (PETSc CG + algebraic "
          "multigrid)",
          &declare_keys, &run_navier_stokes};
}

} // namespace jobs
} // namespace undertow
