/// The advection-diffusion model for `undertow run`: time loop, progress, divergence guard,
/// error against the exact solution and the reference check.

#include "insitu_output.hpp"
#include "models.hpp"
#include "restart.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/simulation.hpp"
#include "undertow/solvers/scalar/advection_diffusion.hpp"

#include <cmath>
#include <cstdio>

namespace undertow {
namespace jobs {

namespace {

void declare_advection_diffusion_keys(ConfigSchema& s) {
  scalar::AdvectionDiffusionParams::declare_keys(s);
  declare_error_check_keys(s);
  declare_restart_keys(s);
}

/// The fixed step of the run: time.dt, or time.cfl's, rounded down to land on time.t_end; says
/// it in the log, with a warning beyond the stability limit. Collective.
double scalar_step(const RunContext& ctx, const scalar::AdvectionDiffusion& solver, double kappa,
                   long& n_steps) {
  const Config& cfg = ctx.config;
  const double t_end = cfg.get_real("time.t_end");
  const double dt_asked = cfg.get_real("time.dt") > 0 ? cfg.get_real("time.dt")
                                                      : solver.stable_dt(cfg.get_real("time.cfl"));
  n_steps = std::max(1L, static_cast<long>(std::ceil(t_end / dt_asked - 1e-9)));
  const double dt = t_end / double(n_steps);
  if (std::abs(dt - dt_asked) > 1e-12 * dt_asked)
    ctx.log.info(format("time step %.6e rounded down to %.6e to land on t_end", dt_asked, dt));
  if (dt > solver.stable_dt(1.0))
    ctx.log.info(format("warning: dt = %.3e exceeds the linear stability limit %.3e of SSP-RK3; "
                        "expect the run to diverge",
                        dt, solver.stable_dt(1.0)));
  ctx.log.info(
      format("advection-diffusion: kappa = %g, Courant number %.3f", kappa, solver.courant(dt)) +
      ", " + std::to_string(n_steps) + " steps");
  return dt;
}

/// What a restart file holds of the run: the concentration and the clock.
RestartState restart_state(scalar::AdvectionDiffusion& solver) {
  RestartState s;
  s.model = "advection_diffusion";
  s.units = "SI: lengths m, time s; c in the unit of advdiff.amplitude";
  s.fields = {{"c", &solver.concentration()}};
  s.numbers = {{"time", solver.time()}, {"solver_steps", double(solver.steps())}};
  return s;
}

/// Continues from ctx.restart_file, if given, and returns its step (0: from the initial
/// condition). Collective.
long start_from_restart(const RunContext& ctx, scalar::AdvectionDiffusion& solver, double dt,
                        long n_steps) {
  if (ctx.restart_file.empty())
    return 0;
  RestartState state = restart_state(solver);
  const long first_step = read_restart(ctx.restart_file, state, ctx.domain, ctx.config);
  check_restart_step(ctx.restart_file, first_step, state.numbers[1].second, state.numbers[0].second,
                     dt, n_steps);
  solver.restore_clock(state.numbers[0].second, first_step);
  ctx.log.info("restarted from " + ctx.restart_file +
               format(" at step %.0f, t = %.9e", double(first_step), solver.time()));
  return first_step;
}

RunResult run_advection_diffusion(const RunContext& ctx) {
  require_error_check(ctx);
  const Config& cfg = ctx.config;
  const auto params = scalar::AdvectionDiffusionParams::from_config(cfg, ctx.domain.dim());
  scalar::AdvectionDiffusion solver(ctx.domain, params);
  solver.initialise(0.0);
  const double t_end = cfg.get_real("time.t_end");
  long n_steps = 0;
  const double dt = scalar_step(ctx, solver, params.kappa, n_steps);

  // The exact solution never exceeds its initial maximum; a stable scheme overshoots it by far
  // less than this factor, so growth beyond it (or a NaN) means the run has diverged.
  constexpr double kDivergenceGrowth = 10.0;
  constexpr long kGuardEvery = 10;
  const double initial_size = solver.max_abs();
  const long first_step = start_from_restart(ctx, solver, dt, n_steps);
  ctx.accept();
  const long every = cfg.get_int("output.progress_every");
  Clock clock;
  clock.fixed_dt = dt;
  clock.max_steps = n_steps - first_step;
  SteppedModel<scalar::AdvectionDiffusion> stepper(solver);
  Simulation sim(ctx.domain.comm(), stepper, clock, first_step);
  double size = initial_size;
  sim.add_callback(
      "divergence guard",
      Cadence::steps(kGuardEvery) | Cadence::steps(every) | Cadence::last_step(),
      [&](Simulation& s) {
        size = solver.max_abs();
        if (!std::isfinite(size) || size > kDivergenceGrowth * std::max(initial_size, 1e-300))
          throw CollectiveError("advection-diffusion diverged at step " + std::to_string(s.step()) +
                                format(" (t = %.6e): max|c| = %.3e", solver.time(), size) +
                                format(" against %.3e initially, at Courant number %.3f. Reduce "
                                       "time.cfl or time.dt.",
                                       initial_size, solver.courant(dt)));
      });
  // Restart files (restart.every, restart.at_step), and one on SIGUSR1, SIGTERM or a spent
  // --walltime budget, after which the run stops (exit 75) with the command that continues it.
  sim.watch_signals();
  sim.add_callback("restart files", restart_cadence(cfg) | Cadence::signal(), [&](Simulation& s) {
    write_restart_file(s, restart_state(solver), ctx.domain, cfg, ctx.output_dir, ctx.case_file,
                       ctx.log);
  });
  Progress progress(ctx.log, t_end, every, solver.time(), first_step);
  sim.add_callback("progress", Cadence::steps(every) | Cadence::last_step(), [&](Simulation& s) {
    if (every > 0)
      progress.update(s.step(), solver.time(), dt,
                      format("CFL %.3f  max|c| %.4e", solver.courant(dt), size), s.last_step());
  });
  InSituOutput insitu(cfg, ctx.domain, ctx.case_file, ctx.output_dir,
                      insitu_metadata(cfg, ctx.case_file, "run"), ctx.log);
  insitu.attach(sim, [&solver](io::InSituBuilder& b, long step, double time) {
    io::InSituFrame frame = b.begin(step, time);
    b.cell(frame, "concentration", {&solver.concentration()});
    b.maximum(frame, "concentration");
    return frame;
  });
  sim.run();
  if (insitu.active())
    ctx.log.info(insitu.summary());

  const scalar::ErrorNorms err = solver.error();
  ctx.log.info(format("error against the exact solution at t = %.6e: ", solver.time()) +
               format("RMS %.6e, max %.6e", err.l2, err.linf));

  RunResult result;
  result.timers = solver.timers();
  auto& f = result.figures;
  f["steps"] = n_steps;
  f["dt"] = dt;
  f["t_end"] = solver.time();
  f["courant"] = solver.courant(dt);
  f["error_l2"] = err.l2;
  f["error_linf"] = err.linf;
  f["cell_updates"] = double(n_steps) * double(solver.concentration().layout().global.size());
  f["state_checksum"] = state_checksum(ctx.domain.comm(), restart_state(solver));

  const double l2_max = cfg.get_real("check.l2_error_max");
  const double linf_max = cfg.get_real("check.linf_error_max");
  result.has_reference = l2_max > 0;
  if (result.has_reference) {
    result.check_passed = err.l2 <= l2_max && (linf_max <= 0 || err.linf <= linf_max);
    result.check_summary =
        format("RMS error %.6e (allowed %.3e)", err.l2, l2_max) +
        (linf_max > 0 ? format(", max error %.6e (allowed %.3e)", err.linf, linf_max)
                      : std::string());
  }
  return result;
}

} // namespace

Model advection_diffusion_model() {
  return {"advection_diffusion",
          "passive scalar, uniform velocity, FV2 + SSP-RK3, exact Fourier-mode reference",
          &declare_advection_diffusion_keys,
          &run_advection_diffusion,
          [](int) { return 50.0; },
          [](const Config&) {
            return std::string();
          }};
}

} // namespace jobs
} // namespace undertow
