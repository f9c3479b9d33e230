/// \file
/// GradientDriver::gradient: Navier-Stokes as an AdjointModel of the reverse sweep (sweep.hpp).
/// Its forward state is the solver's state fields and clock; a step's tape is the velocity at
/// the start of the step and of its two stages; the adjoint variable is lambda (the adjoint
/// velocity) with the adjoint's own state, and the prepared velocity after the step reversed
/// next, which the objective's derivative reads.

#include "undertow/adjoint/gradient.hpp"

#include "navier_stokes_support.hpp"
#include "undertow/core/error.hpp"

#include <memory>
#include <utility>

namespace undertow {
namespace adjoint {

using navier_stokes::NavierStokes;
using navier_stokes::StepTape;

namespace {

/// The forward state a run restarts from: the solver's state fields (velocity, potential,
/// pressure) and its clock, shared (a store copies).
Snapshot forward_state(NavierStokes& ns) {
  Snapshot s;
  s.step = ns.steps();
  for (const auto& named : ns.state_fields())
    s.fields.emplace_back(named.first, *named.second);
  s.numbers["time"] = ns.time();
  s.numbers["steps"] = double(ns.steps());
  s.numbers["psi_scale"] = ns.psi_scale();
  return s;
}

class NavierStokesModel : public AdjointModel {
 public:
  /// `fresh` makes a solver at x_0 (for restart()); the chain rule goes to `out` in finish().
  NavierStokesModel(NavierStokes& ns, ObjectiveSum& J,
                    std::function<std::unique_ptr<NavierStokes>()> fresh, Gradient& out)
      : m_ns(ns), m_J(J), m_adj(ns), m_dim(ns.domain().dim()), m_fresh(std::move(fresh)),
        m_out(out), m_start_time(ns.time()), m_state(ns.make_velocity("adj::state")),
        m_lambda(ns.make_velocity("adj::lambda")), m_after(ns.make_velocity("adj::after")) {
    m_seeds.velocity = ns.make_velocity("adj::seed");
    m_seeds.force.assign(ns.obstacle_count(), {0, 0, 0});
    m_seeds.pressure = Field(ns.domain(), Location::Cell, 1, "adj::seed_pressure");
  }

  const Communicator& comm() const override { return m_ns.domain().comm(); }
  long steps() const override { return m_ns.steps(); }
  double time() const override { return m_ns.time(); }

  Snapshot state() override { return forward_state(m_ns); }

  void restore(const Snapshot& s) override {
    auto fields = m_ns.state_fields();
    for (std::size_t i = 0; i < fields.size(); ++i)
      copy(s.fields.at(i).second, *fields[i].second);
    m_ns.restore_clock(s.numbers.at("time"), static_cast<long>(s.numbers.at("steps")),
                       s.numbers.at("psi_scale"));
  }

  void restart() override {
    auto x0 = m_fresh();
    restore(forward_state(*x0));
  }

  /// The solver's step; the prepared state after it is kept in m_state (the objective reads it,
  /// and so does the adjoint of the last step).
  long step(double dt, Snapshot* tape) override {
    StepTape taped;
    if (tape && !tape->fields.empty())
      from_snapshot(*tape, taped, m_dim); // reuses a reversed tape's fields
    m_ns.step(dt, tape ? &taped : nullptr);
    prepared_state(m_ns, m_state);
    if (tape)
      *tape = to_snapshot(taped, m_ns.steps() - 1, m_dim);
    return m_ns.poisson_iterations();
  }

  double objective_term(long step, double dt, bool last) override {
    return m_J.value(StepState::after_step(m_ns, step, dt, last, m_state));
  }

  /// The outputs of the forward sweep, if any, see the steps of the first forward run in order
  /// (a resumed run, which does not take the earlier ones again, writes none).
  void set_outputs(Simulation* outputs) { m_outputs = outputs; }
  /// The outputs of the reverse sweep, after each adjoint step.
  void set_reverse_outputs(const ReverseOutputs* outputs) { m_reverse_outputs = outputs; }
  void forward_step_taken(long step, double dt, bool) override {
    if (m_outputs && step == m_outputs->step() + 1)
      m_outputs->after_step(dt);
  }
  void forward_step_failed(long step, double dt, const CollectiveError& e) override {
    if (m_outputs && step == m_outputs->step() + 1)
      m_outputs->step_failed(dt, e);
  }

  long reverse(long k, bool last, Snapshot& tape) override {
    StepTape taped;
    from_snapshot(tape, taped, m_dim);
    StepState s;
    s.step = k + 1;
    s.time = taped.time + taped.dt;
    s.dt = taped.dt;
    s.last = last;
    // The state after this step: kept by the adjoint step after it, or (the last step) in the
    // solver, which has just recorded it.
    s.velocity = m_has_after ? &m_after : &m_state;
    s.forces = &taped.forces;
    m_J.derivative(s, m_seeds);
    if (m_seeds.has_velocity) {
      m_ns.set_boundary_time(s.time); // the prepare of the state after the step
      m_adj.prepare_adjoint(m_seeds.velocity);
      for (int c = 0; c < m_dim; ++c)
        axpy(1.0, m_seeds.velocity[c], m_lambda[c]);
    }
    m_adj.step_adjoint(taped, m_lambda, m_seeds.force,
                       m_seeds.has_pressure ? &m_seeds.pressure : nullptr);
    // x_k is the state after the step reversed next: keep the tape's u0 by swapping it with the
    // previous one (no copy); the tape goes back to the sweep with the old fields.
    for (int c = 0; c < m_dim; ++c)
      std::swap(taped.u0[c], m_after[c]);
    m_has_after = true;
    tape = to_snapshot(taped, k, m_dim);
    const long iterations = m_adj.take_poisson_iterations();
    if (m_reverse_outputs)
      (*m_reverse_outputs)(k, taped.time, ReverseState{m_ns, m_lambda, m_adj.chi_gradient()});
    return iterations;
  }

  /// The initial condition u_0 = project(u_initial), then the chain rule to the parameters.
  long finish() override {
    m_ns.set_boundary_time(m_start_time);
    m_adj.project_adjoint(m_lambda, 0);
    m_out.initial = m_ns.make_velocity("dJ_du_initial");
    for (int c = 0; c < m_dim; ++c)
      copy(m_lambda[c], m_out.initial[c]);
    m_out.flow = m_adj.gradient();
    m_out.flow.nu += mask_viscosity_gradient(m_ns, m_adj);
    m_out.shape = shape_gradient(m_ns, m_adj);
    if (m_ns.params().obstacles.has_design())
      m_out.design = design_gradient(m_ns, m_adj);
    m_out.chi = m_ns.make_velocity("dJ_dchi");
    for (int c = 0; c < m_dim; ++c)
      copy(m_adj.chi_gradient()[c], m_out.chi[c]);
    m_out.reverse_timers = m_adj.timers();
    return m_adj.take_poisson_iterations();
  }

  Snapshot adjoint_state() override {
    Snapshot r;
    for (int c = 0; c < m_dim; ++c) {
      r.fields.emplace_back(std::string("lambda_") + "uvw"[c], m_lambda[c]);
      r.fields.emplace_back(std::string("after_") + "uvw"[c], m_after[c]);
    }
    for (const auto& named : m_adj.state_fields())
      r.fields.emplace_back(named.first, *named.second);
    for (const auto& kv : m_adj.state_numbers())
      r.numbers[kv.first] = kv.second;
    r.numbers["has_after"] = m_has_after ? 1.0 : 0.0;
    return r;
  }

  void restore_adjoint_state(const Snapshot& r) override {
    std::size_t i = 0;
    for (int c = 0; c < m_dim; ++c) {
      copy(r.fields.at(i++).second, m_lambda[c]);
      copy(r.fields.at(i++).second, m_after[c]);
    }
    for (const auto& named : m_adj.state_fields())
      copy(r.fields.at(i++).second, *named.second);
    m_adj.restore_numbers(r.numbers);
    m_has_after = r.numbers.at("has_after") != 0.0;
  }

 private:
  NavierStokes& m_ns;
  ObjectiveSum& m_J;
  NavierStokesAdjoint m_adj;
  int m_dim;
  std::function<std::unique_ptr<NavierStokes>()> m_fresh;
  Gradient& m_out;
  double m_start_time; ///< of x_0, where the initial projection took its boundary values
  Velocity3 m_state, m_lambda, m_after;
  bool m_has_after = false;
  StepSeeds m_seeds;
  Simulation* m_outputs = nullptr;
  const ReverseOutputs* m_reverse_outputs = nullptr;
};

} // namespace

Gradient GradientDriver::gradient(const Control& m, const StepSizes& dts,
                                  const std::vector<double>* weights) {
  auto ns = start(m);
  ObjectiveSum J = m_objective(*ns);
  if (weights)
    J.set_weights(*weights);
  Gradient g;
  NavierStokesModel model(
      *ns, J, [this, &m] { return start(m); }, g);
  // The forward sweep's outputs: a Simulation that the sweep drives (the schedule orders the
  // steps), told of every step taken for the first time.
  SteppedModel<NavierStokes> stepper(*ns);
  std::unique_ptr<Simulation> outputs;
  if (m_outputs && !dts.empty()) {
    Clock clock;
    clock.steps = dts.to_vector(); // a Simulation steps through a list
    outputs = std::make_unique<Simulation>(m_domain.comm(), stepper, clock);
    m_outputs(*outputs, *ns);
    model.set_outputs(outputs.get());
  }
  if (m_reverse)
    model.set_reverse_outputs(&m_reverse);
  static_cast<SweepStats&>(g) = reverse_sweep(model, m_checkpointing, dts, m_log, m_every);
  return g;
}

} // namespace adjoint
} // namespace undertow
