#include "undertow/adjoint/gradient.hpp"

#include "undertow/adjoint/transposes.hpp"
#include "undertow/core/error.hpp"

#include <chrono>

namespace undertow {
namespace adjoint {

using navier_stokes::NavierStokes;
using navier_stokes::StepTape;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// A prepared copy of the solver's velocity: what objectives read.
void prepared_state(NavierStokes& ns, Velocity3& out) {
  for (int c = 0; c < ns.domain().dim(); ++c)
    copy(ns.velocity(c), out[c]);
  ns.prepare(out);
}

/// The forward state a run restarts from: the solver's state fields (velocity, potential,
/// pressure) and its clock, copied by the store.
Snapshot forward_snapshot(NavierStokes& ns) {
  Snapshot s;
  s.step = ns.steps();
  for (const auto& named : ns.state_fields())
    s.fields.emplace_back(named.first, *named.second);
  s.numbers["time"] = ns.time();
  s.numbers["steps"] = double(ns.steps());
  s.numbers["psi_scale"] = ns.psi_scale();
  return s;
}

void restore_forward(const Snapshot& s, NavierStokes& ns) {
  auto fields = ns.state_fields();
  for (std::size_t i = 0; i < fields.size(); ++i)
    copy(s.fields.at(i).second, *fields[i].second);
  ns.restore_clock(s.numbers.at("time"), static_cast<long>(s.numbers.at("steps")),
                   s.numbers.at("psi_scale"));
}

StepSeeds make_seeds(NavierStokes& ns) {
  StepSeeds s;
  s.velocity = ns.make_velocity("adj::seed");
  s.force.assign(ns.obstacle_count(), {0, 0, 0});
  s.psi = Field(ns.domain(), Location::Cell, 1, "adj::seed_psi");
  return s;
}

} // namespace

GradientDriver::GradientDriver(const Domain& domain, ObjectiveBuilder objective, const Log& log,
                               long progress_every)
    : m_domain(domain), m_objective(std::move(objective)), m_log(log), m_every(progress_every) {}

std::unique_ptr<NavierStokes> GradientDriver::start(const Control& m) {
  auto ns = std::make_unique<NavierStokes>(m_domain, m.flow);
  for (int c = 0; c < m_domain.dim(); ++c) {
    fill_value(ns->velocity(c), ns->velocity(c).ghosted(), 0.0);
    axpy(1.0, m.initial[c], ns->velocity(c));
  }
  ns->project_initial();
  return ns;
}

std::vector<double> GradientDriver::choose_steps(const Control& m, double t_end, double dt,
                                                 double cfl) {
  std::vector<double> dts;
  if (dt > 0) {
    // A fixed dt needs no run: the same clock arithmetic as NavierStokes::step.
    for (double t = 0; t < t_end * (1 - 1e-12);) {
      const double h = t + dt > t_end ? t_end - t : dt;
      dts.push_back(h);
      t += h;
    }
    return dts;
  }
  auto ns = start(m);
  while (ns->time() < t_end * (1 - 1e-12)) {
    double h = ns->stable_dt(cfl);
    if (ns->time() + h > t_end)
      h = t_end - ns->time();
    ns->step(h);
    if (ns->has_nonfinite())
      throw CollectiveError(format("the forward run diverged at t = %.6e (dt = %.3e); reduce "
                                   "time.cfl or time.dt",
                                   ns->time(), h));
    dts.push_back(h);
  }
  return dts;
}

double GradientDriver::objective(const Control& m, const std::vector<double>& dts) {
  auto ns = start(m);
  ObjectiveSum J = m_objective(*ns);
  Velocity3 state = ns->make_velocity("adj::state");
  double sum = 0;
  for (std::size_t n = 0; n < dts.size(); ++n) {
    ns->step(dts[n]);
    prepared_state(*ns, state);
    StepState s;
    s.step = static_cast<long>(n + 1);
    s.time = ns->time();
    s.dt = dts[n];
    s.last = n + 1 == dts.size();
    s.velocity = &state;
    s.forces = &ns->forces();
    s.psi = &ns->potential();
    sum += J.value(s);
  }
  if (!std::isfinite(sum))
    throw CollectiveError("the objective is not finite: the forward run diverged; reduce "
                          "time.cfl or time.dt");
  return sum;
}

Gradient GradientDriver::gradient(const Control& m, const std::vector<double>& dts) {
  const int dim = m_domain.dim();
  const long steps = static_cast<long>(dts.size());
  Gradient g;
  auto ns = start(m);
  ObjectiveSum J = m_objective(*ns);
  NavierStokesAdjoint adj(*ns);
  MemoryCheckpointStore tapes, checkpoints;
  std::unique_ptr<Schedule> schedule;
  if (m_slots > 0)
    schedule = std::make_unique<RevolveSchedule>(steps, m_slots);
  else
    schedule = std::make_unique<StoreAllSchedule>(steps);
  Velocity3 state = ns->make_velocity("adj::state");
  Velocity3 lambda = ns->make_velocity("adj::lambda");
  StepSeeds seeds = make_seeds(*ns);
  StepTape tape, next_tape;
  std::vector<StepTape> spare; ///< tapes reversed already, whose fields the next Record reuses
  double t_end = 0;
  for (double h : dts)
    t_end += h;
  Progress forward(m_log, t_end, m_every);
  Progress reverse(m_log, t_end, m_every);
  long reached = 0; // steps whose objective term has been added (each once)

  // One forward step from the current state, taped or not; the objective term the first time
  // the step is taken. Leaves the prepared state after the step in `state`.
  const auto take_step = [&](StepTape* step_tape) {
    const long n = ns->steps();
    const auto t0 = std::chrono::steady_clock::now();
    const double dt = dts[static_cast<std::size_t>(n)];
    ns->step(dt, step_tape);
    g.poisson_iterations_forward += ns->poisson_iterations();
    prepared_state(*ns, state);
    if (n == reached) {
      StepState s;
      s.step = n + 1;
      s.time = ns->time();
      s.dt = dt;
      s.last = n + 1 == steps;
      s.velocity = &state;
      s.forces = &ns->forces();
      s.psi = &ns->potential();
      g.objective += J.value(s);
      ++reached;
      if (s.last && !std::isfinite(g.objective))
        throw CollectiveError("the objective is not finite: the forward run diverged; reduce "
                              "time.cfl or time.dt");
      forward.update(s.step, s.time, dt, format("forward, J = %.10e", g.objective), s.last);
      g.forward_seconds += seconds_since(t0);
    } else {
      ++g.recomputed_steps;
      g.recompute_seconds += seconds_since(t0);
    }
  };

  for (Action a = schedule->next(); a.kind != Action::Done; a = schedule->next()) {
    switch (a.kind) {
    case Action::Advance:
      while (ns->steps() < a.step)
        take_step(nullptr);
      break;
    case Action::Save:
      checkpoints.save(a.slot, forward_snapshot(*ns));
      g.checkpoint_bytes = std::max(g.checkpoint_bytes, checkpoints.bytes());
      break;
    case Action::Restore:
      restore_forward(checkpoints.load(a.slot), *ns);
      break;
    case Action::Record: {
      // The tape's fields go to the store without a copy: those of a tape already reversed if
      // there is one (revolve), else new ones (every tape of store-all stays).
      StepTape fresh;
      if (!spare.empty()) {
        fresh = std::move(spare.back());
        spare.pop_back();
      }
      take_step(&fresh);
      tapes.adopt(static_cast<int>(a.step), to_snapshot(fresh, a.step, dim));
      g.tape_bytes = std::max(g.tape_bytes, tapes.bytes());
      break;
    }
    case Action::Reverse: {
      const auto reverse_start = std::chrono::steady_clock::now();
      from_snapshot(tapes.load(static_cast<int>(a.step)), tape, dim);
      // The state after this step: the next step's tape holds it; else the step was just
      // recorded and the solver holds it (in `state`).
      const Velocity3* after = &state;
      if (tapes.has(static_cast<int>(a.step + 1))) {
        from_snapshot(tapes.load(static_cast<int>(a.step + 1)), next_tape, dim);
        after = &next_tape.u0;
      }
      StepState s;
      s.step = a.step + 1;
      s.time = tape.time + tape.dt;
      s.dt = tape.dt;
      s.last = a.step + 1 == steps;
      s.velocity = after;
      s.forces = &tape.forces;
      J.derivative(s, seeds);
      if (seeds.has_velocity) {
        adj.prepare_adjoint(seeds.velocity);
        for (int c = 0; c < dim; ++c)
          axpy(1.0, seeds.velocity[c], lambda[c]);
      }
      adj.step_adjoint(tape, lambda, seeds.force, seeds.has_psi ? &seeds.psi : nullptr);
      // The tape after this one is no longer needed: its fields are kept for the next Record.
      if (tapes.has(static_cast<int>(a.step + 1))) {
        StepTape done;
        from_snapshot(tapes.load(static_cast<int>(a.step + 1)), done, dim);
        spare.push_back(std::move(done));
        tapes.erase(static_cast<int>(a.step + 1));
      }
      if (a.step == 0)
        tapes.erase(0);
      g.poisson_iterations_reverse += adj.take_poisson_iterations();
      g.reverse_seconds += seconds_since(reverse_start);
      reverse.update(steps - a.step, t_end - tape.time, tape.dt,
                     format("reverse, step %.0f of the forward run", double(a.step + 1)),
                     a.step == 0);
      break;
    }
    case Action::Done:
      break;
    }
  }
  // The initial condition: u_0 = project(u_initial).
  const auto initial_start = std::chrono::steady_clock::now();
  adj.project_adjoint(lambda, 0);
  g.initial = ns->make_velocity("dJ_du_initial");
  for (int c = 0; c < dim; ++c)
    copy(lambda[c], g.initial[c]);
  g.flow = adj.gradient();
  g.shape = shape_gradient(*ns, adj);
  if (ns->params().obstacles.has_design())
    g.design = design_gradient(*ns, adj);
  g.chi = ns->make_velocity("dJ_dchi");
  for (int c = 0; c < dim; ++c)
    copy(adj.chi_gradient()[c], g.chi[c]);
  g.poisson_iterations_reverse += adj.take_poisson_iterations();
  g.reverse_seconds += seconds_since(initial_start);
  g.reverse_timers = adj.timers();
  return g;
}

namespace {

/// dchi/dmask_k (k = skip >= 0) or dchi/d(design on the face) (skip < 0) on the free faces of
/// component c, from chi = 1 - (1 - design) prod_k (1 - mask_k): the product of the factors
/// other than the one differentiated.
void chi_partial(const NavierStokes& ns, int c, int skip, Field& out) {
  const FieldView o = out.view();
  const IndexSpace& free = ns.free_faces(c);
  if (skip >= 0 && ns.params().obstacles.has_design()) {
    const FieldView rho = ns.design_face(c).view();
    for_each(
        "adj::chi_partial_design", free,
        KOKKOS_LAMBDA(long i, long j, long k) { o(i, j, k) = 1.0 - rho(i, j, k); });
  } else {
    fill_value(out, free, 1.0);
  }
  for (std::size_t k = 0; k < ns.obstacle_count(); ++k) {
    if (static_cast<int>(k) == skip)
      continue;
    const FieldView m = ns.mask(static_cast<int>(k), c).view();
    for_each(
        "adj::chi_partial", free,
        KOKKOS_LAMBDA(long i, long j, long kk) { o(i, j, kk) *= 1.0 - m(i, j, kk); });
  }
}

} // namespace

std::vector<std::vector<double>> shape_gradient(const NavierStokes& ns,
                                                const NavierStokesAdjoint& adjoint) {
  const Domain& d = ns.domain();
  double h_min = d.spacing(0);
  for (int a = 1; a < d.dim(); ++a)
    h_min = std::min(h_min, d.spacing(a));
  const double eps = ns.params().obstacles.smoothing * h_min;
  std::vector<std::vector<double>> out;
  std::array<Field, 3> partials;
  for (int c = 0; c < d.dim(); ++c)
    partials[c] = Field(ns.total_mask(c).layout(), "adj::dchi_dmask");
  for (std::size_t k = 0; k < ns.obstacle_count(); ++k) {
    const navier_stokes::Shape& shape = ns.params().obstacles.shapes[k];
    std::vector<double> grad;
    for (const auto& p : navier_stokes::shape_parameters(shape, d.dim())) {
      const navier_stokes::BasicShape<Dual> ds = navier_stokes::seeded(shape, p.index);
      double local = 0;
      for (int c = 0; c < d.dim(); ++c) {
        chi_partial(ns, c, static_cast<int>(k), partials[c]);
        const FieldView dchi_dm = partials[c].view(), dchi = adjoint.chi_gradient()[c].view(),
                        dmask = adjoint.mask_force_gradient()[k][c].view();
        const GridGeometry g = ns.total_mask(c).geometry();
        local += local_sum(
            "adj::shape_gradient", ns.free_faces(c),
            KOKKOS_LAMBDA(long i, long j, long kk, double& acc) {
              const Dual m = navier_stokes::brinkman_mask(
                  ds.distance(g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, kk)), eps);
              if (m.d == 0.0)
                return;
              acc += (dchi(i, j, kk) * dchi_dm(i, j, kk) + dmask(i, j, kk)) * m.d;
            });
      }
      grad.push_back(d.comm().sum(local));
    }
    out.push_back(grad);
  }
  return out;
}

Field design_gradient(NavierStokes& ns, const NavierStokesAdjoint& adjoint) {
  const Domain& d = ns.domain();
  Field g(d, Location::Cell, 1, "dJ_ddesign");
  const FieldView gv = g.view();
  for (int c = 0; c < d.dim(); ++c) {
    Field partial(ns.total_mask(c).layout(), "adj::dchi_ddesign");
    chi_partial(ns, c, -1, partial);
    const FieldView dchi_drho = partial.view(), dchi = adjoint.chi_gradient()[c].view();
    for_each(
        "adj::design_on_face", ns.free_faces(c), KOKKOS_LAMBDA(long i, long j, long k) {
          design_on_face_transpose(gv, c, dchi(i, j, k) * dchi_drho(i, j, k), i, j, k);
        });
  }
  // Transposes of the ghosts the forward solver gave the design field: boundary ghosts copy the
  // cell inside, halo ghosts come from the neighbours.
  const FieldView v = g.view();
  for (int a = d.dim() - 1; a >= 0; --a) {
    if (d.periodic(a))
      continue;
    for (int side = 1; side >= 0; --side) {
      if (!d.touches_boundary(a, side))
        continue;
      const long inward = side == 0 ? 1 : -1;
      const long ghost = side == 0 ? g.owned().begin[a] - 1 : g.owned().end[a];
      for_each(
          "adj::design_ghost", navier_stokes::layer(g.ghosted(), a, ghost),
          KOKKOS_LAMBDA(long i, long j, long k) {
            add_at(v, i, j, k, a, inward, v(i, j, k));
            v(i, j, k) = 0.0;
          });
    }
  }
  ns.cell_halo().scatter_add(g);
  return g;
}

} // namespace adjoint
} // namespace undertow
