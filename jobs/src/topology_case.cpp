/// Minimum-compliance topology optimisation for `undertow run` of the elasticity model
/// (topology.enabled): the design iterations as the steps of a Simulation (so that signals,
/// --walltime and restart.every count iterations), their table and diagnostics.csv, density
/// snapshots (XDMF series and PNG), restart files, and one more solve at the final design.

#include "elasticity_case.hpp"
#include "restart.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/core/simulation.hpp"
#include "undertow/io/csv.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/png.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace undertow {
namespace jobs {

namespace {

using optimisation::TopologyIteration;
using optimisation::TopologyOptimisation;

/// The physical densities as a greyscale image (solid black, void white), top row = largest y;
/// the mid-plane z slice in 3D. On a uniform grid each element is zoom x zoom square pixels; on
/// a stretched one the image is to scale (about 600 pixels wide), each pixel the element under
/// its centre. Collective (gathers to rank 0, which writes).
void write_density_png(const Domain& domain, const Field& density, const std::string& path) {
  const std::vector<double> all = gather_to_root(domain.comm(), density);
  run_on_root(domain.comm(), [&] {
    const IndexSpace& g = density.layout().global;
    const long nx = g.end[0] - g.begin[0], ny = g.end[1] - g.begin[1], nz = g.end[2] - g.begin[2];
    const bool uniform = domain.uniform(0) && domain.uniform(1);
    const long zoom = std::max(1L, 600 / nx); // square pixels per element: images >= ~600 wide
    const double lx = domain.spec().length[0], ly = domain.spec().length[1];
    const double per_pixel = uniform ? 0.0 : lx / 600.0; // [length] on a stretched grid
    const long width = uniform ? nx * zoom : 600;
    const long height = uniform ? ny * zoom : std::max(1L, std::lround(ly / per_pixel));
    std::vector<unsigned char> pixels(static_cast<std::size_t>(width * height));
    for (long r = 0; r < height; ++r)
      for (long c = 0; c < width; ++c) {
        long i = c / zoom, j = ny - 1 - r / zoom;
        if (!uniform) {
          const double x = domain.spec().origin[0] + (double(c) + 0.5) * per_pixel;
          const double y = domain.spec().origin[1] + ly - (double(r) + 0.5) * per_pixel;
          i = std::clamp(domain.cell_containing(0, x), 0L, nx - 1);
          j = std::clamp(domain.cell_containing(1, y), 0L, ny - 1);
        }
        const double rho = all[static_cast<std::size_t>((i * ny + j) * nz + nz / 2)];
        const double grey = 255.0 * (1.0 - std::min(1.0, std::max(0.0, rho)));
        pixels[static_cast<std::size_t>(r * width + c)] = static_cast<unsigned char>(grey + 0.5);
      }
    io::write_png_grey(path, width, height, pixels);
  });
}

/// The table's line of one topology iteration, with the ETA of the remaining budget;
/// `seconds_per` is this run's mean time per iteration. Not collective.
void print_topology_iteration(const Log& log, const TopologyIteration& it, double seconds_per,
                              bool last, long max_iterations) {
  char line[160];
  std::snprintf(line, sizeof line, "%10ld   %14.8e   %6.4f   %6.4f   %10ld   %11.3f", it.iteration,
                it.compliance, it.volume, it.change, it.solver_iterations, seconds_per);
  log.info(std::string(line) +
           (last
                ? std::string()
                : "   ETA " + format_duration(seconds_per * double(max_iterations - it.iteration)) +
                      " at most"));
}

/// Design iterations as a Simulation steps them: one iteration per step, its "time" the count.
class TopologyStepper : public TimeStepper {
 public:
  explicit TopologyStepper(TopologyOptimisation& opt) : m_opt(opt) {}
  double time() const override { return double(m_opt.iteration()); }
  void step(double) override {
    last = m_opt.step();
    if (!std::isfinite(last.compliance))
      throw CollectiveError(format("topology iteration %.0f: the compliance is not finite; "
                                   "check the supports and material.youngs_modulus_min",
                                   double(last.iteration)));
  }
  TopologyIteration last; ///< of the last step

 private:
  TopologyOptimisation& m_opt;
};

} // namespace

TopologyRun::TopologyRun(const RunContext& ctx, elasticity::LinearElasticity& solver)
    : m_ctx(ctx), m_solver(solver),
      m_opt(solver, optimisation::TopologySettings::from_config(ctx.config)),
      m_design(ctx.domain, Location::Cell, 0, "design"),
      m_displacement(solver.make_node_vector("displacement")) {
  if (ctx.restart_file.empty())
    return;
  RestartState state = restart_state();
  m_first = read_restart(ctx.restart_file, state, ctx.domain, ctx.config);
  const long max_iterations = m_opt.settings().max_iterations;
  check_restart_step(ctx.restart_file, m_first, state.numbers[1].second, state.numbers[0].second,
                     1.0, max_iterations);
  const double change = state.numbers[2].second;
  if (change <= m_opt.settings().change_tolerance)
    throw ConfigError(
        "--restart " + ctx.restart_file +
        format(": its design converged at iteration %.0f (change %.4f, ", double(m_first), change) +
        format("topology.change_tolerance %g): there is nothing to run. Lower "
               "topology.change_tolerance to go on",
               m_opt.settings().change_tolerance));
  // The uninterrupted run set its solver up at the starting densities (those now in the
  // solver), and GAMG keeps that interpolation: so does the continued run.
  m_solver.set_up_preconditioner_at_current_densities();
  m_opt.restore(m_design, m_first, change);
  m_solver.restore(m_displacement, static_cast<long>(state.numbers[3].second));
  ctx.log.info("restarted from " + ctx.restart_file +
               format(" at iteration %.0f (last change %.4f)", double(m_first), change));
}

RestartState TopologyRun::restart_state() {
  RestartState s;
  s.model = "elasticity";
  s.units = "design variables 1, displacement m; 'time' and 'solver_steps' count iterations";
  s.fields.emplace_back("design", &m_design);
  for (int c = 0; c < m_ctx.domain.dim(); ++c)
    s.fields.emplace_back(std::string("displacement_") + "xyz"[c], &m_displacement[c]);
  s.numbers = {{"time", double(m_opt.iteration())},
               {"solver_steps", double(m_opt.iteration())},
               {"last_change", m_opt.last_change()},
               {"solver_iterations", double(m_solver.total_iterations())}};
  return s;
}

RestartState TopologyRun::current_state() {
  copy_owned(m_opt.design(), m_design);
  for (int c = 0; c < m_ctx.domain.dim(); ++c)
    copy_owned(m_solver.displacement()[c], m_displacement[c]);
  return restart_state();
}

long TopologyRun::run(ElasticityFieldWriter& fields, InSituOutput& insitu, RunResult& result,
                      double& compliance) {
  const RunContext& ctx = m_ctx;
  const Config& cfg = ctx.config;
  const optimisation::TopologySettings& settings = m_opt.settings();
  auto& f = result.figures;
  Timers& timers = result.timers;
  io::SnapshotSeries densities(ctx.domain, ctx.output_dir, "density", fields.attributes(),
                               m_first > 0 ? m_first : -1);
  const bool png = cfg.get_bool("output.png");
  const long every = cfg.get_int("output.snapshot_every");
  const long progress_every = std::max(1L, cfg.get_int("output.progress_every"));
  run_on_root(ctx.domain.comm(), [&] { io::make_directories(ctx.output_dir + "/png"); });
  io::CsvSeries csv(ctx.domain.comm(), ctx.output_dir + "/diagnostics.csv",
                    {"iteration", "compliance", "volume", "change", "solver_iterations",
                     "seconds_solve", "seconds_sensitivity", "seconds_update"},
                    m_first > 0 ? m_first : -1);
  auto snapshot = [&](long iteration) {
    if (!densities.begin(iteration, double(iteration)))
      return;
    densities.cell("density", m_opt.physical());
    densities.cell("design", m_opt.design());
    densities.commit();
    if (png) {
      char name[64];
      std::snprintf(name, sizeof name, "/png/density_%05ld.png", iteration);
      write_density_png(ctx.domain, m_opt.physical(), ctx.output_dir + name);
    }
  };
  if (m_first == 0) // a continued run's series goes on as the uninterrupted run's
    snapshot(0);
  ctx.log.info(format("topology optimisation: volume fraction %g, filter radius %g m, move %g",
                      settings.volume_fraction, settings.filter_radius, settings.move) +
               format(", stop at change <= %g or %.0f iterations", settings.change_tolerance,
                      double(settings.max_iterations)));
  ctx.log.info(" iteration   compliance [J]   volume   change   solver its   s/iteration");

  TopologyStepper stepper(m_opt);
  Clock clock;
  clock.fixed_dt = 1;
  clock.max_steps = settings.max_iterations - m_first;
  Simulation sim(ctx.domain.comm(), stepper, clock, m_first);
  sim.stop_when("converged", [this] { return m_opt.converged(); });
  const auto start = std::chrono::steady_clock::now();
  sim.add_callback("iteration", Cadence::steps(1), [&](Simulation& s) {
    const TopologyIteration& it = stepper.last;
    csv.append({double(it.iteration), it.compliance, it.volume, it.change,
                double(it.solver_iterations), it.seconds_solve, it.seconds_sensitivity,
                it.seconds_update});
    timers.add("topology solve", it.seconds_solve);
    timers.add("topology sensitivity", it.seconds_sensitivity);
    timers.add("topology update", it.seconds_update);
    if (it.iteration % progress_every == 0 || s.last_step() || s.step() == m_first + 1)
      print_topology_iteration(ctx.log, it,
                               seconds_since(start) / double(s.step() - s.first_step()),
                               s.last_step(), settings.max_iterations);
  });
  // Restart files (restart.every, restart.at_step: in iterations), and one on SIGUSR1, SIGTERM
  // or a spent --walltime budget, after which the run stops (exit 75) with the command that
  // continues it (after the iteration's scheduled snapshot; Cadence::last_step() does not fire
  // on such a pause, so a stopped part writes no snapshot the uninterrupted run would not).
  sim.watch_signals();
  sim.add_callback("restart files", restart_cadence(cfg) | Cadence::signal(), [&](Simulation& s) {
    write_restart_file(s, current_state(), ctx.domain, cfg, ctx.output_dir, ctx.case_file, ctx.log);
  });
  sim.add_callback("snapshots", Cadence::steps(every) | Cadence::last_step(),
                   [&](Simulation& s) { snapshot(s.step()); });
  // In situ: the densities of the iteration and the displacement they were solved with ('time'
  // is the iteration).
  insitu.attach(sim, [this](io::InSituBuilder& b, long step, double time) {
    return elasticity_frame(b, m_solver, m_solver.displacement(), nullptr, step, time);
  });
  sim.run();

  const TopologyIteration& it = stepper.last;
  compliance = it.compliance;
  if (!m_opt.converged())
    ctx.log.info(format("warning: not converged after %.0f iterations (last change %.4f): "
                        "raise topology.max_iterations",
                        double(it.iteration), it.change));
  else
    ctx.log.info(format("converged after %.0f iterations: compliance %.10e J, volume %.6f",
                        double(it.iteration), it.compliance, it.volume));
  ctx.log.info("densities: " + densities.xdmf_path() + (png ? ", " + ctx.output_dir + "/png" : ""));
  f["iterations"] = double(it.iteration);
  f["converged"] = m_opt.converged();
  f["volume"] = it.volume;
  f["change"] = it.change;
  f["state_checksum"] = state_checksum(ctx.domain.comm(), current_state());
  // The compliance above is the 88-line code's: at the densities each iteration started
  // from. The fields below are those of the final densities: solve once more for them.
  m_solver.solve();
  f["compliance_final_design"] = m_solver.compliance();
  ctx.log.info(format("compliance of the final design: %.10e J", m_solver.compliance()));
  return it.iteration;
}

} // namespace jobs
} // namespace undertow
