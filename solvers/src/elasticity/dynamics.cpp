/// Newmark time stepping of linear elasticity (dynamics.hpp).

#include "undertow/solvers/elasticity/dynamics.hpp"

#include "undertow/core/error.hpp"

#include <cmath>

namespace undertow {
namespace elasticity {

namespace {

/// u~ and v~ of the predictor over every local value (ghosts included: the inputs' ghosts are
/// filled, so are the outputs').
void predict(int dim, const NodeVector& u, const NodeVector& v, const NodeVector& a, double dt,
             double beta, double gamma, NodeVector& u_pred, NodeVector& v_pred) {
  for (int c = 0; c < dim; ++c) {
    const FieldView uu = u[c].view(), vv = v[c].view(), aa = a[c].view(), up = u_pred[c].view(),
                    vp = v_pred[c].view();
    for_each(
        "newmark::predict", u[c].ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
          up(i, j, k) = newmark_predict_u(uu(i, j, k), vv(i, j, k), aa(i, j, k), dt, beta);
          vp(i, j, k) = newmark_predict_v(vv(i, j, k), aa(i, j, k), dt, gamma);
        });
  }
}

/// u := u~ + beta dt^2 a, v := v~ + gamma dt a over every local value.
void correct(int dim, const NodeVector& u_pred, const NodeVector& v_pred, const NodeVector& a,
             double dt, double beta, double gamma, NodeVector& u, NodeVector& v) {
  for (int c = 0; c < dim; ++c) {
    const FieldView uu = u[c].view(), vv = v[c].view(), aa = a[c].view(), up = u_pred[c].view(),
                    vp = v_pred[c].view();
    for_each(
        "newmark::correct", u[c].ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
          uu(i, j, k) = up(i, j, k) + beta * dt * dt * aa(i, j, k);
          vv(i, j, k) = vp(i, j, k) + gamma * dt * aa(i, j, k);
        });
  }
}

} // namespace

double LoadHistory::at(double t) const {
  switch (kind) {
  case Kind::Constant:
    return 1.0;
  case Kind::Ramp:
    return std::min(t / period, 1.0);
  case Kind::HalfSine:
    return t < period ? std::sin(M_PI * t / period) : 0.0;
  }
  return 1.0;
}

void NewmarkSettings::validate() const {
  if (!(gamma >= 0.5))
    throw ConfigError(format("dynamics.gamma = %g is below 1/2, which makes Newmark unstable: use "
                             "gamma >= 1/2 (1/2 for second order)",
                             gamma));
  if (!(beta >= 0.25 * gamma - 1e-15))
    throw ConfigError(format("dynamics.beta = %g is below gamma / 4 = %g, so Newmark is only "
                             "conditionally stable: use beta >= gamma / 4 (beta = 1/4, gamma = "
                             "1/2 conserves energy)",
                             beta, 0.25 * gamma));
  if (!(rayleigh_mass >= 0) || !(rayleigh_stiffness >= 0))
    throw ConfigError("dynamics.rayleigh_mass and dynamics.rayleigh_stiffness cannot be negative");
  if (load.kind != LoadHistory::Kind::Constant && !(load.period > 0))
    throw ConfigError("dynamics.load_history = ramp or half_sine needs dynamics.load_period > 0 "
                      "[s]");
}

Newmark::Newmark(LinearElasticity& solver, const NewmarkSettings& settings)
    : m_solver(solver), m_settings(settings) {
  m_settings.validate();
  for (const Support& s : solver.spec().supports)
    for (int c = 0; c < solver.dim(); ++c)
      if (s.fixed[static_cast<std::size_t>(c)] && s.value[static_cast<std::size_t>(c)] != 0.0)
        throw ConfigError("dynamics: a support prescribes a nonzero displacement, but a dynamic "
                          "run starts from rest with its supports held at zero; set every "
                          "support's value to 0 (or apply the motion as a load)");
  m_u = solver.make_node_vector("newmark::u");
  m_v = solver.make_node_vector("newmark::v");
  m_a = solver.make_node_vector("newmark::a");
  m_u_pred = solver.make_node_vector("newmark::u_predicted");
  m_v_pred = solver.make_node_vector("newmark::v_predicted");
  m_work = solver.make_node_vector("newmark::work");
  m_rhs = solver.make_node_vector("newmark::rhs");
  m_alpha_v = solver.make_node_vector("newmark::alpha_v");
}

std::array<double, 2> Newmark::operator_weights(double dt) const {
  const NewmarkSettings& s = m_settings;
  return {s.gamma * dt * s.rayleigh_stiffness + s.beta * dt * dt,
          1.0 + s.gamma * dt * s.rayleigh_mass};
}

SolveInfo Newmark::start() {
  const int dim = m_solver.dim();
  m_solver.forget_operator();
  for (int c = 0; c < dim; ++c)
    for (Field* f : {&m_u[c], &m_v[c], &m_a[c]})
      fill_value(*f, f->ghosted(), 0.0);
  m_time = 0;
  m_steps = 0;
  const double g0 = m_settings.load.at(0.0);
  if (g0 == 0.0)
    return SolveInfo{};
  combine(dim, g0, m_solver.load(), 0.0, nullptr, m_rhs);
  m_solver.assemble_operator(0.0, 1.0);
  return m_solver.solve_operator(m_rhs, m_a, "initial acceleration (mass)");
}

SolveInfo Newmark::step(double dt) {
  if (!(dt > 0))
    throw Error(format("Newmark::step: dt = %g must be > 0", dt));
  const int dim = m_solver.dim();
  const NewmarkSettings& s = m_settings;
  predict(dim, m_u, m_v, m_a, dt, s.beta, s.gamma, m_u_pred, m_v_pred);
  // rhs = g f - C v~ - K u~ = g f - K (u~ + beta_R v~) - alpha M v~
  combine(dim, 1.0, m_u_pred, s.rayleigh_stiffness, &m_v_pred, m_work);
  const bool mass_damping = s.rayleigh_mass != 0.0;
  if (mass_damping)
    combine(dim, s.rayleigh_mass, m_v_pred, 0.0, nullptr, m_alpha_v);
  m_solver.apply_operator(&m_work, mass_damping ? &m_alpha_v : nullptr, m_rhs);
  const double g = s.load.at(m_time + dt);
  for (int c = 0; c < dim; ++c) {
    const FieldView r = m_rhs[c].view(), f = m_solver.load()[c].view();
    for_each(
        "newmark::rhs", m_rhs[c].owned(),
        KOKKOS_LAMBDA(long i, long j, long k) { r(i, j, k) = g * f(i, j, k) - r(i, j, k); });
  }
  const auto w = operator_weights(dt);
  m_solver.assemble_operator(w[0], w[1]);
  const SolveInfo info = m_solver.solve_operator(m_rhs, m_a, "Newmark acceleration");
  correct(dim, m_u_pred, m_v_pred, m_a, dt, s.beta, s.gamma, m_u, m_v);
  m_time += dt;
  ++m_steps;
  return info;
}

double Newmark::kinetic_energy() {
  m_solver.apply_operator(nullptr, &m_v, m_work);
  return 0.5 * m_solver.dot(m_v, m_work);
}

double Newmark::strain_energy() {
  m_solver.apply_operator(&m_u, nullptr, m_work);
  return 0.5 * m_solver.dot(m_u, m_work);
}

double Newmark::load_potential() {
  return -m_settings.load.at(m_time) * m_solver.dot(m_solver.load(), m_u);
}

WorkBalance::WorkBalance(Newmark& run) : m_run(run) {
  LinearElasticity& s = run.solver();
  m_u_old = s.make_node_vector("work_balance::u_old");
  m_v_old = s.make_node_vector("work_balance::v_old");
  m_v_mid = s.make_node_vector("work_balance::v_mid");
  m_alpha_v = s.make_node_vector("work_balance::alpha_v");
  m_beta_v = s.make_node_vector("work_balance::beta_v");
  m_cv = s.make_node_vector("work_balance::cv");
}

void WorkBalance::before() {
  const int dim = m_run.solver().dim();
  combine(dim, 1.0, m_run.displacement(), 0.0, nullptr, m_u_old);
  combine(dim, 1.0, m_run.velocity(), 0.0, nullptr, m_v_old);
  m_g_old = m_run.settings().load.at(m_run.time());
  // The energies after() found, while the run has not moved since; else computed afresh.
  if (m_energy_steps != m_run.steps() || m_energy_time != m_run.time())
    m_energy_old = m_run.kinetic_energy() + m_run.strain_energy();
}

WorkBalance::Step WorkBalance::after(double dt) {
  LinearElasticity& s = m_run.solver();
  const int dim = s.dim();
  const NewmarkSettings& settings = m_run.settings();
  combine(dim, 0.5, m_run.velocity(), 0.5, &m_v_old, m_v_mid);
  combine(dim, settings.rayleigh_mass, m_v_mid, 0.0, nullptr, m_alpha_v);
  combine(dim, settings.rayleigh_stiffness, m_v_mid, 0.0, nullptr, m_beta_v);
  s.apply_operator(&m_beta_v, &m_alpha_v, m_cv);
  Step out;
  out.dissipated = dt * s.dot(m_v_mid, m_cv);
  const double g_new = settings.load.at(m_run.time());
  out.work =
      0.5 * (m_g_old + g_new) * (s.dot(s.load(), m_run.displacement()) - s.dot(s.load(), m_u_old));
  out.kinetic = m_run.kinetic_energy();
  out.strain = m_run.strain_energy();
  out.residual = out.kinetic + out.strain - m_energy_old - out.work + out.dissipated;
  m_energy_old = out.kinetic + out.strain;
  m_energy_steps = m_run.steps();
  m_energy_time = m_run.time();
  return out;
}

NewmarkAdjoint::NewmarkAdjoint(Newmark& run) : m_run(run) {
  LinearElasticity& s = run.solver();
  m_mu = s.make_node_vector("adj::mu");
  m_rhs = s.make_node_vector("adj::newmark_rhs");
  m_k_mu = s.make_node_vector("adj::K_mu");
  m_m_mu = s.make_node_vector("adj::M_mu");
}

long NewmarkAdjoint::step(double dt, NodeVector& ubar, NodeVector& vbar, NodeVector& abar) {
  LinearElasticity& s = m_run.solver();
  const NewmarkSettings& p = m_run.settings();
  const int dim = s.dim();
  // A mu = abar' + beta dt^2 ubar' + gamma dt vbar'
  combine(dim, 1.0, abar, p.beta * dt * dt, &ubar, m_rhs);
  combine(dim, 1.0, m_rhs, p.gamma * dt, &vbar, m_rhs);
  const auto w = m_run.operator_weights(dt);
  s.assemble_operator(w[0], w[1]);
  const long iterations = s.solve_operator(m_rhs, m_mu, "adjoint Newmark").iterations;
  // u~bar = ubar' - K mu (into ubar), v~bar = vbar' - alpha M mu - beta_R K mu (into vbar).
  s.apply_operator(&m_mu, nullptr, m_k_mu);
  s.apply_operator(nullptr, &m_mu, m_m_mu);
  combine(dim, 1.0, ubar, -1.0, &m_k_mu, ubar);
  combine(dim, 1.0, vbar, -p.rayleigh_stiffness, &m_k_mu, vbar);
  combine(dim, 1.0, vbar, -p.rayleigh_mass, &m_m_mu, vbar);
  // Through the predictor: abar = (1/2 - beta) dt^2 u~bar + (1 - gamma) dt v~bar,
  // vbar = dt u~bar + v~bar, ubar = u~bar.
  combine(dim, (0.5 - p.beta) * dt * dt, ubar, (1.0 - p.gamma) * dt, &vbar, abar);
  combine(dim, 1.0, vbar, dt, &ubar, vbar);
  return iterations;
}

} // namespace elasticity
} // namespace undertow
