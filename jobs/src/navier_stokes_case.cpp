/// The Navier-Stokes model for `undertow run`: initial conditions, the time loop (fixed or
/// CFL-adaptive dt, optional stop at steady state), progress, diagnostics CSV, divergence guard,
/// and the reference checks (exact solutions, Ghia et al. 1982 cavity centrelines).

#include "flow_outputs.hpp"
#include "initial_velocity.hpp"
#include "insitu_output.hpp"
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
#include "undertow/solvers/navier_stokes/diagnostics.hpp"
#include "undertow/solvers/navier_stokes/flow_keys.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>

namespace undertow {
namespace jobs {

namespace {

using navier_stokes::NavierStokes;
using navier_stokes::NavierStokesParams;
using navier_stokes::TimeScheme;
using navier_stokes::VelocityFunction;

void declare_keys(ConfigSchema& s) {
  navier_stokes::declare_flow_keys(s);
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
  declare_restart_keys(s);
  s.add("diagnostics.every", ValueType::Integer, "0",
        "write a row of diagnostics.csv every this many steps; 0: with every progress line "
        "(output.progress_every)")
      .at_least(0);
  s.add("diagnostics.pressure_probes", ValueType::RealList, "0 0 0 0",
        "two points (x1 y1 [z1] x2 y2 [z2]) whose pressure difference p1 - p2 is reported; all "
        "zero: none")
      .items(4, 6);
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
    while (std::getline(row, cell, ',')) {
      char* end = nullptr;
      values.push_back(std::strtod(cell.c_str(), &end));
      if (end == cell.c_str())
        throw ConfigError(path + ": '" + cell + "' in row '" + line + "' is not a number");
    }
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
  /// Per centreline ("u" on x = 0.5, "v" on y = 0.5): Ghia's positions, the computed values
  /// there and Ghia's, for the report.
  io::Json centrelines = io::Json::object();
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
  for (const char* line : {"u", "v"})
    for (const char* key : {"position", "computed", "ghia"})
      out.centrelines[line][key] = io::Json::array();
  const auto add = [&](const char* line, double position, double computed, double reference) {
    const double e = std::abs(computed - reference);
    out.max_error = std::max(out.max_error, e);
    squares += e * e;
    ++out.points;
    out.centrelines[line]["position"].push_back(position);
    out.centrelines[line]["computed"].push_back(computed);
    out.centrelines[line]["ghia"].push_back(reference);
  };
  for (std::size_t q = 0; q < gu.position.size(); ++q)
    if (gu.position[q] > 0 && gu.position[q] < 1)
      add("u", gu.position[q], interpolate(ys, us, gu.position[q]), gu.value[q]);
  for (std::size_t q = 0; q < gv.position.size(); ++q) {
    // Ghia's v at Re = 400, x = 0.9063 is a known misprint (shared/data/README.md).
    if (re == "400" && std::abs(gv.position[q] - 0.9063) < 1e-4)
      continue;
    if (gv.position[q] > 0 && gv.position[q] < 1)
      add("v", gv.position[q], interpolate(xs, vs, gv.position[q]), gv.value[q]);
  }
  out.rms_error = std::sqrt(squares / out.points);
  return out;
}

/// The initial state of a run: initial.* projected, or a restart file. Returns the first step.
/// Collective.
long start_flow(const RunContext& ctx, NavierStokes& ns, const VelocityFunction& field) {
  navier_stokes::set_velocity(ns, field, 0.0);
  ns.project_initial();
  if (ctx.restart_file.empty())
    return 0;
  const long first_step = read_restart(ctx.restart_file, ns, ctx.domain, ctx.config);
  const double t_end = ctx.config.get_real("time.t_end");
  if (ns.time() >= t_end * (1 - 1e-12))
    throw ConfigError("--restart " + ctx.restart_file + format(" is at t = %.9e, ", ns.time()) +
                      format("not before time.t_end = %.9e: there is nothing to run. ", t_end) +
                      "Raise time.t_end (--set time.t_end=...) to continue the run");
  ctx.log.info("restarted from " + ctx.restart_file +
               format(" at step %.0f, ", double(first_step)) + format("t = %.9e", ns.time()));
  return first_step;
}

/// The clock of time.*, said in the log with a warning for a fixed dt beyond the stability
/// limit. Collective.
Clock flow_clock(const RunContext& ctx, const NavierStokes& ns) {
  Clock clock;
  clock.t_end = ctx.config.get_real("time.t_end");
  clock.fixed_dt = ctx.config.get_real("time.dt");
  clock.cfl = ctx.config.get_real("time.cfl");
  ctx.log.info(format("Navier-Stokes: nu = %g, ", ns.params().nu) +
               (clock.fixed_dt > 0 ? format("fixed dt = %.4e", clock.fixed_dt)
                                   : format("CFL-adaptive dt (time.cfl = %.2f)", clock.cfl)) +
               ", pressure solver " + ns.pressure_method());
  if (ns.params().policy.active())
    ctx.log.info(feedback_summary(ns.params()));
  if (clock.fixed_dt > 0) {
    const std::string warning = unstable_dt_warning(ns, clock.fixed_dt);
    if (!warning.empty())
      ctx.log.info(warning);
  }
  return clock;
}

/// The report's figures of a finished run, with the forces and the pressure drop in the log.
/// Collective.
void report_flow(const RunContext& ctx, NavierStokes& ns, const Simulation& sim,
                 const FlowOutputs& outputs, long poisson_total, io::Json& f) {
  const Domain& domain = ctx.domain;
  const long n = sim.step();
  const double dt = sim.dt();
  f["steps"] = n;
  f["time"] = ns.time();
  f["last_dt"] = dt;
  f["courant"] = courant(ns, dt);
  f["kinetic_energy"] = kinetic_energy(ns);
  f["max_divergence"] = max_divergence(ns);
  f["max_dudt"] = outputs.guard().dudt;
  f["poisson_iterations_per_step"] = double(poisson_total) / std::max(n - sim.first_step(), 1L);
  // Bitwise fingerprint of the final state, the same on any number of ranks: restarted and
  // uninterrupted runs can be compared exactly.
  f["state_checksum"] = state_checksum(domain.comm(), restart_state(ns));
  if (outputs.writes_fields()) {
    f["field_snapshots"] = outputs.snapshots();
    ctx.log.info("fields: " + std::to_string(outputs.snapshots()) + " snapshots, open " +
                 ctx.output_dir + "/fields.xmf in ParaView");
  }
  f["cell_updates"] =
      double(n) * double(domain.global_cells(0) * domain.global_cells(1) * domain.global_cells(2));
  f["steady"] = outputs.guard().steady;
  f["enstrophy"] = enstrophy(ns);
  const ForceReport& forces = outputs.forces();
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
}

/// Checks before the first step what the Ghia comparison at the end needs: the 2D unit square
/// and both reference tables, readable, with a column for check.ghia_re. Throws ConfigError.
/// Not collective.
void require_ghia_inputs(const RunContext& ctx) {
  const Config& cfg = ctx.config;
  const DomainSpec& spec = ctx.domain.spec();
  if (ctx.domain.dim() != 2 || spec.length[0] != 1.0 || spec.length[1] != 1.0)
    throw ConfigError("check.reference = ghia needs the 2D unit square of Ghia et al. "
                      "(domain.dim = 2, domain.length = 1 1)");
  const std::string dir = std::filesystem::path(ctx.case_file).parent_path().string();
  const std::string case_dir = dir.empty() ? "." : dir;
  for (const char* key : {"check.ghia_u_file", "check.ghia_v_file"})
    read_ghia(case_dir + "/" + cfg.get_string(key), cfg.get_string("check.ghia_re"));
}

/// RMS and max error of the Ghia et al. cavity centrelines, and what they are against; on rank 0
/// also the centrelines at Ghia's points (`centrelines`, GhiaComparison). Collective.
std::string ghia_error(const RunContext& ctx, const NavierStokes& ns, double& rms, double& worst,
                       io::Json& centrelines) {
  const Config& cfg = ctx.config;
  const Domain& domain = ctx.domain;
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
                          ns.params().boundaries.face[3].velocity[0]);
  });
  // Rank 0 computed the comparison; every rank returns the same verdict.
  const std::string packed =
      domain.comm().broadcast(format("%.17g %.17g %.0f", g.rms_error, g.max_error, g.points));
  std::istringstream(packed) >> rms >> worst >> g.points;
  centrelines = g.centrelines;
  return "Ghia et al. (1982), Re = " + re + ", " + std::to_string(g.points) + " points";
}

/// The reference check of check.reference (the exact solution of initial.type, or the Ghia
/// cavity), into the figures and the result. Collective.
void check_flow(const RunContext& ctx, const NavierStokes& ns, const VelocityFunction& field,
                bool has_exact, RunResult& result) {
  const Config& cfg = ctx.config;
  const std::string reference = cfg.get_string("check.reference");
  const double l2_max = cfg.get_real("check.l2_error_max");
  const double linf_max = cfg.get_real("check.linf_error_max");
  double rms = 0, worst = 0;
  std::string against;
  io::Json centrelines;
  if (reference == "exact") {
    if (!has_exact)
      throw ConfigError(
          "check.reference = exact, but initial.type = " + cfg.get_string("initial.type") +
          " has no exact solution here; use taylor_green (2D), abc or poiseuille.");
    std::tie(rms, worst) = navier_stokes::velocity_error(ns, field, ns.time());
    against = "the exact solution";
  } else if (reference == "ghia") {
    against = ghia_error(ctx, ns, rms, worst, centrelines);
  }
  if (against.empty())
    return;
  ctx.log.info("velocity error against " + against + format(": RMS %.4e, max %.4e", rms, worst));
  auto& f = result.figures;
  f["reference"] = reference;
  f["error_l2"] = rms;
  f["error_linf"] = worst;
  if (reference == "ghia" && ctx.domain.comm().is_root())
    f["ghia_centrelines"] = centrelines; // the report is written by rank 0
  result.has_reference = l2_max > 0;
  result.check_passed = rms <= l2_max && (linf_max <= 0 || worst <= linf_max);
  result.check_summary =
      format("RMS error %.4e (allowed %.3e)", rms, l2_max) +
      (linf_max > 0 ? format(", max error %.4e (allowed %.3e)", worst, linf_max) : std::string()) +
      " against " + against;
}

RunResult run_navier_stokes(const RunContext& ctx) {
  require_error_check(ctx);
  const Config& cfg = ctx.config;
  const NavierStokesParams params = flow_parameters(cfg, ctx.domain);
  if (ctx.check_requested && cfg.get_string("check.reference") == "none")
    throw ConfigError("--check needs a reference: set check.reference = exact (with an exact "
                      "initial.type) or ghia (the cavity) in [check] of " +
                      ctx.case_file + ".");
  if (cfg.get_string("check.reference") == "ghia")
    require_ghia_inputs(ctx); // now, not after the run
  NavierStokes ns(ctx.domain, params);
  bool has_exact = false;
  // A restart replaces the initial velocity: a file that started the run is not read again.
  const bool from_file = cfg.get_string("initial.type") == "file";
  VelocityFunction field =
      from_file && !ctx.restart_file.empty()
          ? VelocityFunction([](int, double, double, double, double) { return 0.0; })
          : initial_velocity(cfg, ctx.domain, params.nu, has_exact, ctx.log);
  const long first_step = start_flow(ctx, ns, field);
  if (!has_exact) // kept for check.reference = exact only; a file's share of values is freed
    field = VelocityFunction([](int, double, double, double, double) { return 0.0; });

  FlowStepper stepper(ns);
  Simulation sim(ctx.domain.comm(), stepper, flow_clock(ctx, ns), first_step);
  (void)ForceReport(cfg, ctx.domain, params); // its probes are checked before the folder changes
  ctx.accept();
  FlowOutputs outputs(cfg, ns, ctx.output_dir, ctx.case_file, FlowOutputKinds{}, ctx.log,
                      first_step);
  outputs.attach(sim);
  InSituOutput insitu(cfg, ctx.domain, ctx.case_file, ctx.output_dir,
                      insitu_metadata(cfg, ctx.case_file, "run"), ctx.log);
  insitu.attach(sim, [&ns](io::InSituBuilder& b, long step, double time) {
    return flow_frame(b, ns, step, time);
  });
  sim.run();
  if (insitu.active())
    ctx.log.info(insitu.summary());
  if (outputs.guard().steady)
    ctx.log.info(format("steady state reached at t = %.4e: max |du/dt| = %.3e < ", ns.time(),
                        outputs.guard().dudt) +
                 format("%.3e (time.steady_tolerance)", cfg.get_real("time.steady_tolerance")));

  RunResult result;
  result.timers = ns.timers();
  report_flow(ctx, ns, sim, outputs, stepper.poisson_total, result.figures);
  if (insitu.active()) {
    result.figures["insitu_calls"] = double(insitu.calls());
    result.figures["insitu_seconds"] = insitu.seconds();
    result.figures["insitu_first_seconds"] = insitu.first_seconds();
  }
  check_flow(ctx, ns, field, has_exact, result);
  return result;
}

} // namespace

Model navier_stokes_model() {
  return {"navier_stokes",
          "incompressible Navier-Stokes, MAC grid, SSP-RK3 + projection (PETSc CG + algebraic "
          "multigrid)",
          &declare_keys,
          &run_navier_stokes,
          [](int) { return 250.0; },
          [](const Config&) {
            return std::string();
          }};
}

} // namespace jobs
} // namespace undertow
