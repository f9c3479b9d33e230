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
#include "undertow/io/csv.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/files.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <cmath>
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
  const long restart_every = cfg.get_int("restart.every");
  const long restart_at = cfg.get_int("restart.at_step");
  const int restart_keep = static_cast<int>(cfg.get_int("restart.keep"));
  const std::string restart_dir = ctx.output_dir + "/restart";
  install_restart_signals();

  const double t_end = cfg.get_real("time.t_end");
  const double fixed_dt = cfg.get_real("time.dt");
  const double cfl = cfg.get_real("time.cfl");
  const double steady_tol = cfg.get_real("time.steady_tolerance");
  const long every = cfg.get_int("output.progress_every");
  const long diagnostics_every = cfg.get_int("diagnostics.every");
  const long fields_every = cfg.get_int("fields.every");
  const double fields_interval = cfg.get_real("fields.interval");
  constexpr long kGuardEvery = 10;

  ctx.log.info(format("Navier-Stokes: nu = %g, ", params.nu) +
               (fixed_dt > 0 ? format("fixed dt = %.4e", fixed_dt)
                             : format("CFL-adaptive dt (time.cfl = %.2f)", cfl)) +
               ", pressure solver " + ns.pressure_method());

  if (fixed_dt > 0 && fixed_dt > ns.stable_dt(1.0))
    ctx.log.info(format("warning: time.dt = %.3e exceeds the linear stability limit %.3e of "
                        "SSP-RK3 for the initial field; expect the run to diverge",
                        fixed_dt, ns.stable_dt(1.0)));
  // Force coefficients per obstacle, and the pressure drop between two probes.
  const std::size_t n_obstacles = params.obstacles.shapes.size();
  const double U = cfg.get_real("forces.reference_velocity");
  const double coefficient_scale =
      2.0 / (U * U *
             (domain.dim() == 2 ? cfg.get_real("forces.reference_length")
                                : cfg.get_real("forces.reference_area")));
  const auto probes = cfg.get_real_list("diagnostics.pressure_probes");
  const bool has_probes = cfg.is_given("diagnostics.pressure_probes");
  if (has_probes && static_cast<int>(probes.size()) != 2 * domain.dim())
    throw ConfigError("diagnostics.pressure_probes needs 2 points of " +
                      std::to_string(domain.dim()) + " coordinates, got " +
                      std::to_string(probes.size()) + " numbers.");
  std::array<double, 3> probe1{0, 0, 0}, probe2{0, 0, 0};
  for (int a = 0; has_probes && a < domain.dim(); ++a) {
    probe1[a] = probes[a];
    probe2[a] = probes[domain.dim() + a];
  }
  std::vector<std::string> columns = {
      "step",      "time",           "dt",      "courant", "poisson_iterations", "kinetic_energy",
      "enstrophy", "max_divergence", "max_dudt"};
  for (std::size_t k = 0; k < n_obstacles; ++k)
    for (int a = 0; a < domain.dim(); ++a)
      columns.push_back(std::string("C") + "xyz"[a] + "_" + std::to_string(k + 1));
  if (has_probes)
    columns.push_back("pressure_drop");
  io::CsvSeries diagnostics(domain.comm(), ctx.output_dir + "/diagnostics.csv", columns);
  const auto coefficients = [&](std::size_t k) {
    std::array<double, 3> c{0, 0, 0};
    for (int a = 0; a < domain.dim(); ++a)
      c[a] = coefficient_scale * ns.forces()[k][a];
    return c;
  };
  // Velocity scale for the divergence guard: the initial field and every boundary velocity.
  double scale = 0;
  for (double m : ns.max_velocity())
    scale = std::max(scale, m);
  for (const auto& f : params.boundaries.face)
    for (double v : f.velocity)
      scale = std::max(scale, std::abs(v));
  scale = std::max(scale, 1e-12);

  std::array<Field, 3> previous;
  for (int c = 0; c < domain.dim(); ++c) {
    previous[c] = Field(domain, ns.velocity(c).location(), 1, "previous");
    copy(ns.velocity(c), previous[c]);
  }
  double previous_time = ns.time(), dudt = HUGE_VAL;
  long previous_step = first_step;
  // When the run diverges, the velocity of the last check that passed is written out, so that
  // the user can look at what led up to it. Collective; never throws.
  const auto save_last_good = [&]() -> std::string {
    const std::string path = ctx.output_dir + "/last_good_state.h5";
    try {
      io::FieldFile file(domain, path, io::FieldFile::Mode::Create);
      const char* names[3] = {"u", "v", "w"};
      for (int c = 0; c < domain.dim(); ++c)
        file.write(names[c], previous[c]);
      file.set_attribute("step", double(previous_step));
      file.set_attribute("time", previous_time);
      file.set_attribute("contents", "velocity components on the MAC faces (u on x faces, v on y "
                                     "faces, w on z faces) at the last check before divergence");
      file.commit();
      return format(" The last good state (step %.0f, ", double(previous_step)) +
             format("t = %.6e) is saved in ", previous_time) + path + ".";
    } catch (const std::exception& e) {
      return std::string(" The last good state could not be saved: ") + e.what();
    }
  };
  long poisson_total = 0;
  std::unique_ptr<FieldOutput> fields;
  double next_fields_time = fields_interval;
  while (fields_interval > 0 && next_fields_time <= ns.time() * (1 + 1e-12))
    next_fields_time += fields_interval;
  if (fields_every > 0 || fields_interval > 0) {
    fields = std::make_unique<FieldOutput>(domain, ctx.output_dir, ctx.config.hash());
    fields->write(ns, first_step);
  }
  Progress progress(ctx.log, t_end, every, ns.time());
  long n = first_step;
  bool steady = false;
  double dt = 0, last_courant = ns.courant(fixed_dt > 0 ? fixed_dt : ns.stable_dt(cfl));
  while (ns.time() < t_end * (1 - 1e-12) && !steady) {
    dt = fixed_dt > 0 ? fixed_dt : ns.stable_dt(cfl);
    if (ns.time() + dt > t_end)
      dt = t_end - ns.time();
    try {
      ns.step(dt);
    } catch (const CollectiveError& e) {
      throw CollectiveError(
          "the Navier-Stokes run diverged at step " + std::to_string(n + 1) +
          format(" (t = %.6e, dt = %.3e; Courant number %.3f at the last check): ", ns.time(), dt,
                 last_courant) +
          e.what() + ". Reduce time.cfl or time.dt, or refine the grid." + save_last_good());
    }
    ++n;
    poisson_total += ns.poisson_iterations();
    const bool last = ns.time() >= t_end * (1 - 1e-12);
    const int signal = restart_signal(domain.comm());
    if ((restart_every > 0 && n % restart_every == 0) || n == restart_at || signal != 0) {
      const std::string written =
          write_restart(restart_dir, ns, domain, ctx.config, n, restart_keep, dt);
      ctx.log.info(format("restart file for step %.0f: ", double(n)) + written);
      if (signal == SIGTERM)
        throw CollectiveError(format("stopped by SIGTERM at step %.0f ", double(n)) +
                              format("(t = %.6e); continue with: undertow run ", ns.time()) +
                              ctx.case_file + " --restart " + written);
    }
    if (fields) {
      const bool by_step = fields_every > 0 && n % fields_every == 0;
      const bool by_time = fields_interval > 0 && ns.time() >= next_fields_time * (1 - 1e-12);
      while (fields_interval > 0 && next_fields_time <= ns.time() * (1 + 1e-12))
        next_fields_time += fields_interval;
      if (by_step || by_time || last)
        fields->write(ns, n);
    }
    const bool report = every > 0 && (n % every == 0 || last);
    const bool record = diagnostics_every > 0 ? (n % diagnostics_every == 0 || last) : report;
    if (!report && !record && n % kGuardEvery != 0 && !last)
      continue;
    const auto umax = ns.max_velocity();
    const double largest = std::max({umax[0], umax[1], umax[2]});
    last_courant = ns.courant(dt);
    if (ns.has_nonfinite() || largest > 1e3 * scale)
      throw CollectiveError(
          "the Navier-Stokes run diverged at step " + std::to_string(n) +
          format(" (t = %.6e): max |u|, |v|, |w| = %.3e, %.3e, ", ns.time(), umax[0], umax[1]) +
          format("%.3e against a velocity scale of %.3e; Courant number %.3f. ", umax[2], scale,
                 ns.courant(dt)) +
          "Reduce time.cfl or time.dt, or refine the grid (domain.cells)." + save_last_good());
    double change = 0;
    for (int c = 0; c < domain.dim(); ++c) {
      axpy(-1.0, ns.velocity(c), previous[c]);
      change = std::max(change, global_max_abs(domain.comm(), previous[c]));
      copy(ns.velocity(c), previous[c]);
    }
    dudt = change / (ns.time() - previous_time);
    previous_time = ns.time();
    previous_step = n;
    steady = steady_tol > 0 && dudt < steady_tol;
    if (report || record || steady) {
      const double div = ns.max_divergence(), ke = ns.kinetic_energy(), courant = ns.courant(dt);
      std::vector<double> row = {
          double(n), ns.time(),      dt,  courant, double(ns.poisson_iterations()),
          ke,        ns.enstrophy(), div, dudt};
      std::string forces_text;
      for (std::size_t k = 0; k < n_obstacles; ++k) {
        const auto c = coefficients(k);
        for (int a = 0; a < domain.dim(); ++a)
          row.push_back(c[a]);
        forces_text += format("  CD%.0f %.4f", double(k + 1), c[0]) +
                       format(" CL%.0f %.4f", double(k + 1), c[1]);
      }
      if (has_probes)
        row.push_back(ns.probe(ns.pressure(), probe1) - ns.probe(ns.pressure(), probe2));
      diagnostics.append(row);
      if (!report && !steady)
        continue;
      progress.update(
          n, ns.time(), dt,
          // time.cfl is a fraction of the SSP-RK3 limit sqrt(3): print the Courant number and
          // that fraction, so that the line and the case file speak the same language.
          format("CFL %.3f (%.2f of the advective limit)", courant, courant / std::sqrt(3.0)) +
              format("  Poisson its %2.0f  KE %.5e", ns.poisson_iterations(), ke) +
              format("  max|div u| %.1e  max|du/dt| %.2e", div, dudt) + forces_text,
          true);
    }
  }
  if (fields)
    fields->write(ns, n); // the final state (a steady stop ends between snapshot steps)
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
  for (std::size_t k = 0; k < n_obstacles; ++k) {
    const auto c = coefficients(k);
    io::Json& o = f["obstacle" + std::to_string(k + 1)];
    o["drag_coefficient"] = c[0];
    o["lift_coefficient"] = c[1];
    if (domain.dim() == 3)
      o["side_force_coefficient"] = c[2];
    ctx.log.info("obstacle " + std::to_string(k + 1) +
                 format(": drag coefficient %.5f, lift coefficient %.5f", c[0], c[1]));
  }
  if (has_probes) {
    const double drop = ns.probe(ns.pressure(), probe1) - ns.probe(ns.pressure(), probe2);
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
