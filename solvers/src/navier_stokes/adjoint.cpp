#include "undertow/solvers/navier_stokes/adjoint.hpp"

#include "undertow/solvers/navier_stokes/transposes.hpp"

#include "force_transpose.hpp"
#include "momentum_transpose.hpp"
#include "projection_transpose.hpp"

namespace undertow {
namespace navier_stokes {

void zero(Velocity3& lambda, int dim) {
  for (int c = 0; c < dim; ++c)
    fill_value(lambda[c], lambda[c].ghosted(), 0.0);
}

namespace {

/// sum over the free faces of lambda_e lap u_c: dJ/dnu of one component, without its dt.
template <class S>
double viscous_derivative_kernel(const Velocity& v, const FieldView& le, int c, int dim,
                                 const S& sp, const IndexSpace& free) {
  return local_sum(
      "adj::viscosity_derivative", free, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        acc += le(i, j, k) * laplacian(v, c, dim, sp, i, j, k);
      });
}
double viscous_derivative(const Velocity& v, const FieldView& le, int c, int dim,
                          const GridSpacing& spacing, const IndexSpace& free) {
  double sum = 0;
  with_spacing(spacing,
               [&](const auto& sp) { sum = viscous_derivative_kernel(v, le, c, dim, sp, free); });
  return sum;
}

} // namespace

NavierStokesAdjoint::NavierStokesAdjoint(NavierStokes& forward)
    : m_ns(forward), m_domain(forward.domain()),
      m_face_rules(boundary_rules(m_domain, forward.params().boundaries, true)),
      m_ghost_rules(boundary_rules(m_domain, forward.params().boundaries, false)) {
  m_euler = forward.make_velocity("adj::euler");
  m_lambda_e = forward.make_velocity("adj::lambda_euler");
  m_stage1 = forward.make_velocity("adj::stage1");
  m_stage2 = forward.make_velocity("adj::stage2");
  m_start = forward.make_velocity("adj::start");
  m_chi_gradient = forward.make_velocity("adj::dJ_dchi");
  m_local = zero_gradient();
  m_discarded = zero_gradient();
  if (!forward.params().actuators.empty())
    m_dtarget = forward.make_velocity("adj::dJ_dtarget");
  m_dj_dpolicy.assign(forward.params().actuators.size(), 0.0);
  for (std::size_t k = 0; k < forward.obstacle_count(); ++k)
    m_mask_force_gradient.push_back(forward.make_velocity("adj::dJ_dmask"));
  m_lambda_psi = Field(m_domain, Location::Cell, 1, "adj::lambda_psi");
  m_lambda_p = Field(m_domain, Location::Cell, 1, "adj::lambda_p");
  m_psi_seed = Field(m_domain, Location::Cell, 1, "adj::psi_seed");
  m_gradient_transpose = Field(m_domain, Location::Cell, 1, "adj::gradient_transpose");
  for (Field& mu : m_mu)
    mu = Field(m_domain, Location::Cell, 1, "adj::mu");
  for (Field& mu : m_mu_previous)
    mu = Field(m_domain, Location::Cell, 1, "adj::mu_previous");
  for (Field& mu : m_mu_older)
    mu = Field(m_domain, Location::Cell, 1, "adj::mu_older");
}

FlowGradient NavierStokesAdjoint::zero_gradient() const {
  const NavierStokesParams& p = m_ns.params();
  FlowGradient g;
  g.body_force_signal.assign(p.body_force_signal.coefficients.size(), 0.0);
  for (int f = 0; f < 6; ++f)
    g.boundary_signal[f].assign(p.boundaries.face[f].signal.coefficients.size(), 0.0);
  g.actuator_scale.assign(p.actuators.size(), 0.0);
  for (const Actuator& a : p.actuators)
    g.actuator_signal.emplace_back(a.signal.coefficients.size(), 0.0);
  g.policy.assign(p.policy.theta.size(), 0.0);
  return g;
}

void NavierStokesAdjoint::reset_gradient() {
  m_local = zero_gradient();
  const int dim = m_domain.dim();
  zero(m_chi_gradient, dim);
  for (auto& g : m_mask_force_gradient)
    zero(g, dim);
}

std::vector<std::pair<std::string, Field*>> NavierStokesAdjoint::state_fields() {
  std::vector<std::pair<std::string, Field*>> out;
  const int dim = m_domain.dim();
  for (int c = 0; c < dim; ++c)
    out.emplace_back(std::string("dJ_dchi_") + "uvw"[c], &m_chi_gradient[c]);
  for (std::size_t k = 0; k < m_mask_force_gradient.size(); ++k)
    for (int c = 0; c < dim; ++c)
      out.emplace_back("dJ_dmask_" + std::to_string(k) + "_" + "uvw"[c],
                       &m_mask_force_gradient[k][c]);
  out.emplace_back("lambda_psi", &m_lambda_psi);
  out.emplace_back("lambda_p", &m_lambda_p);
  for (std::size_t q = 0; q < m_mu.size(); ++q) {
    out.emplace_back("mu_" + std::to_string(q), &m_mu[q]);
    out.emplace_back("mu_previous_" + std::to_string(q), &m_mu_previous[q]);
    out.emplace_back("mu_older_" + std::to_string(q), &m_mu_older[q]);
  }
  return out;
}

std::map<std::string, double> NavierStokesAdjoint::state_numbers() const {
  std::map<std::string, double> out;
  out["dJ_dnu"] = m_local.nu;
  for (int c = 0; c < 3; ++c) {
    out[std::string("dJ_dbody_force_") + "xyz"[c]] = m_local.body_force[c];
    for (int f = 0; f < 6; ++f)
      out["dJ_dboundary_" + std::to_string(f) + "_" + "xyz"[c]] = m_local.boundary_velocity[f][c];
  }
  for (std::size_t j = 0; j < m_local.body_force_signal.size(); ++j)
    out["dJ_dforce_signal_" + std::to_string(j)] = m_local.body_force_signal[j];
  for (std::size_t k = 0; k < m_local.actuator_scale.size(); ++k) {
    const std::string key = "dJ_dactuator_" + std::to_string(k);
    out[key] = m_local.actuator_scale[k];
    for (std::size_t j = 0; j < m_local.actuator_signal[k].size(); ++j)
      out[key + "_signal_" + std::to_string(j)] = m_local.actuator_signal[k][j];
  }
  for (std::size_t j = 0; j < m_local.policy.size(); ++j)
    out["dJ_dpolicy_" + std::to_string(j)] = m_local.policy[j];
  for (int f = 0; f < 6; ++f)
    for (std::size_t j = 0; j < m_local.boundary_signal[f].size(); ++j)
      out["dJ_dsignal_" + std::to_string(f) + "_" + std::to_string(j)] =
          m_local.boundary_signal[f][j];
  for (std::size_t q = 0; q < m_mu_count.size(); ++q)
    out["mu_count_" + std::to_string(q)] = double(m_mu_count[q]);
  return out;
}

void NavierStokesAdjoint::restore_numbers(const std::map<std::string, double>& numbers) {
  m_local.nu = numbers.at("dJ_dnu");
  for (int c = 0; c < 3; ++c) {
    m_local.body_force[c] = numbers.at(std::string("dJ_dbody_force_") + "xyz"[c]);
    for (int f = 0; f < 6; ++f)
      m_local.boundary_velocity[f][c] =
          numbers.at("dJ_dboundary_" + std::to_string(f) + "_" + "xyz"[c]);
  }
  // The control derivatives: state_numbers() writes every one (zero_gradient's sizes).
  for (std::size_t j = 0; j < m_local.body_force_signal.size(); ++j)
    m_local.body_force_signal[j] = numbers.at("dJ_dforce_signal_" + std::to_string(j));
  for (std::size_t k = 0; k < m_local.actuator_scale.size(); ++k) {
    const std::string key = "dJ_dactuator_" + std::to_string(k);
    m_local.actuator_scale[k] = numbers.at(key);
    for (std::size_t j = 0; j < m_local.actuator_signal[k].size(); ++j)
      m_local.actuator_signal[k][j] = numbers.at(key + "_signal_" + std::to_string(j));
  }
  for (std::size_t j = 0; j < m_local.policy.size(); ++j)
    m_local.policy[j] = numbers.at("dJ_dpolicy_" + std::to_string(j));
  for (int f = 0; f < 6; ++f)
    for (std::size_t j = 0; j < m_local.boundary_signal[f].size(); ++j)
      m_local.boundary_signal[f][j] =
          numbers.at("dJ_dsignal_" + std::to_string(f) + "_" + std::to_string(j));
  for (std::size_t q = 0; q < m_mu_count.size(); ++q)
    m_mu_count[q] = static_cast<long>(numbers.at("mu_count_" + std::to_string(q)));
}

int NavierStokesAdjoint::take_poisson_iterations() {
  const int n = m_poisson_iterations;
  m_poisson_iterations = 0;
  return n;
}

FlowGradient NavierStokesAdjoint::gradient() const {
  const Communicator& comm = m_domain.comm();
  FlowGradient g;
  g.nu = comm.sum(m_local.nu);
  for (int c = 0; c < 3; ++c) {
    g.body_force[c] = comm.sum(m_local.body_force[c]);
    for (int f = 0; f < 6; ++f)
      g.boundary_velocity[f][c] = comm.sum(m_local.boundary_velocity[f][c]);
  }
  // The control derivatives: every rank holds the same counts (zero_gradient).
  g.body_force_signal = m_local.body_force_signal;
  for (double& d : g.body_force_signal)
    d = comm.sum(d);
  for (int f = 0; f < 6; ++f) {
    g.boundary_signal[f] = m_local.boundary_signal[f];
    for (double& d : g.boundary_signal[f])
      d = comm.sum(d);
  }
  g.actuator_scale = m_local.actuator_scale;
  for (double& d : g.actuator_scale)
    d = comm.sum(d);
  g.actuator_signal = m_local.actuator_signal;
  for (auto& signal : g.actuator_signal)
    for (double& d : signal)
      d = comm.sum(d);
  g.policy = comm.sum(m_local.policy); // rank 0's alone (add_feedback_transpose)
  return g;
}

void NavierStokesAdjoint::prepare_adjoint(Velocity3& lambda) {
  auto scope = m_timers.scope("boundary+halo adjoint");
  transpose_boundary(lambda, m_local);
}

void NavierStokesAdjoint::transpose_boundary(Velocity3& lambda, FlowGradient& into) {
  const int dim = m_domain.dim();
  // 3. Ghosts beyond the physical boundaries, in the reverse of the forward order.
  for (auto r = m_ghost_rules.rbegin(); r != m_ghost_rules.rend(); ++r) {
    Field& f = lambda[r->component];
    const FieldView l = f.view();
    const int a = r->axis;
    const long inward = r->inward;
    if (r->kind == BoundaryRule::Kind::NormalGhost) {
      // ghost = inner (zero gradient): the ghost's adjoint moves to the inner face.
      for_each(
          "adj::bc_normal_ghost", r->layer_of(f.owned(), f.ghosted()),
          KOKKOS_LAMBDA(long i, long j, long k) {
            add_at(l, i, j, k, a, inward, l(i, j, k));
            l(i, j, k) = 0.0;
          });
      continue;
    }
    const bool dirichlet = r->kind == BoundaryRule::Kind::TangentialDirichlet;
    const GridGeometry g = f.geometry();
    const Profile prof = r->profile;
    const bool scaled = r->scaled, stretched = r->stretched;
    const double w0 = r->weights[0], w1 = r->weights[1], w2 = r->weights[2];
    // ghost = (8 value - 6 first + second) / 3 (no-slip; w0 value + w1 first + w2 second next to
    // a stretched wall) or first (zero gradient).
    const double sum = local_sum(
        "adj::bc_tangential_ghost", r->layer_of(f.owned(), f.ghosted()),
        KOKKOS_LAMBDA(long i, long j, long k, double& dvalue) {
          const double w = l(i, j, k);
          l(i, j, k) = 0.0;
          if (dirichlet && stretched) {
            add_at(l, i, j, k, a, inward, w1 * w);
            add_at(l, i, j, k, a, 2 * inward, w2 * w);
            dvalue += w0 * w * (scaled ? prof.factor(g, i, j, k) : 1.0);
          } else if (dirichlet) {
            add_at(l, i, j, k, a, inward, -2.0 * w);
            add_at(l, i, j, k, a, 2 * inward, w / 3.0);
            dvalue += 8.0 / 3.0 * w * (scaled ? prof.factor(g, i, j, k) : 1.0);
          } else {
            add_at(l, i, j, k, a, inward, w);
          }
        });
    add_boundary_derivative(r->face(), r->component, sum, into);
  }
  // 2. Halo exchange: its transpose adds the ghosts into their owners.
  for (int c = dim - 1; c >= 0; --c)
    m_ns.velocity_halo(c).scatter_add(lambda[c]);
  // 1. Prescribed normal velocity: value * profile, independent of the velocity before.
  for (auto r = m_face_rules.rbegin(); r != m_face_rules.rend(); ++r) {
    Field& f = lambda[r->component];
    const FieldView l = f.view();
    const GridGeometry g = f.geometry();
    const Profile prof = r->profile;
    const double inflow = r->scaled ? 1.0 : 0.0;
    const double sum = local_sum(
        "adj::bc_normal_face", r->layer_of(f.owned(), f.ghosted()),
        KOKKOS_LAMBDA(long i, long j, long k, double& dvalue) {
          dvalue += inflow * l(i, j, k) * prof.factor(g, i, j, k);
          l(i, j, k) = 0.0;
        });
    add_boundary_derivative(r->face(), r->axis, sum, into);
  }
}

void NavierStokesAdjoint::add_body_force_derivative(int component, double sum) {
  const control::TimeSignal& a = m_ns.params().body_force_signal;
  const double t = m_ns.force_time();
  m_local.body_force[component] += a.value(t) * sum;
  if (!a.varies())
    return;
  const std::vector<double> phi = a.basis(t);
  for (std::size_t j = 0; j < phi.size(); ++j)
    m_local.body_force_signal[j] += m_ns.params().body_force[component] * phi[j] * sum;
}

void NavierStokesAdjoint::add_boundary_derivative(int face, int component, double sum,
                                                  FlowGradient& into) const {
  const FaceBoundary& b = m_ns.params().boundaries.face[face];
  const double t = m_ns.boundary_time();
  // value = v a(t): dJ/dv = a(t) S, dJ/dtheta_j = v phi_j(t) S.
  into.boundary_velocity[face][component] += b.signal.value(t) * sum;
  if (!b.signal.varies())
    return;
  const std::vector<double> phi = b.signal.basis(t);
  std::vector<double>& out = into.boundary_signal[face]; // sized by zero_gradient
  for (std::size_t j = 0; j < phi.size(); ++j)
    out[j] += b.velocity[component] * phi[j] * sum;
}

void NavierStokesAdjoint::euler_combination_adjoint(double a, double b, const Velocity3& us,
                                                    double dt, double force_weight,
                                                    const ForceSeed& force_seed,
                                                    const Velocity3& lambda_out,
                                                    Velocity3& lambda_u0, Velocity3& lambda_us) {
  auto scope = m_timers.scope("momentum adjoint");
  const int dim = m_domain.dim();
  const auto& params = m_ns.params();
  const double nu = params.nu;
  const GridSpacing& sp = m_ns.spacing();
  const Velocity v = velocity_views(us);
  const bool penalised = m_ns.penalised();
  const double eta = params.obstacles.eta;
  const double volume = masked_sum_weight(m_domain);
  // The penalised Euler step u_p, recomputed at the tape's state, for the derivatives with
  // respect to chi and the masks.
  if (penalised)
    m_ns.euler_combination(0.0, m_euler, 1.0, us, dt, m_euler, 0.0);
  double dnu = 0;
  const bool actuated = !params.actuators.empty();
  for (int c = 0; c < dim; ++c) {
    const IndexSpace& free = m_ns.free_faces(c);
    const FieldView lo = lambda_out[c].view(), lu0 = lambda_u0[c].view(), le = m_lambda_e[c].view(),
                    lus = lambda_us[c].view();
    // The actuators' target U (what the forward step read) and its adjoint.
    const FieldView target = actuated ? m_ns.target(c).view() : FieldView();
    const FieldView dtarget = actuated ? m_dtarget[c].view() : FieldView();
    if (actuated)
      fill_value(m_dtarget[c], m_dtarget[c].ghosted(), 0.0);
    // lambda_up = b lambda_out + the force term's seed (F_k = w V / eta sum mask_k u_p), kept
    // in lambda_e until the pass below divides it by the penalty.
    const double force_scale = force_weight * volume / eta;
    bool seeded = false;
    for (std::size_t k = 0; k < m_ns.obstacle_count(); ++k) {
      const double seed = force_scale * force_seed[k][c];
      if (seed == 0.0)
        continue;
      if (!seeded)
        fill_value(m_lambda_e[c], free, 0.0);
      add_force_seed(free, seed, m_ns.mask(static_cast<int>(k), c), m_euler[c].view(), dim, le,
                     m_mask_force_gradient[k][c].view(), target, dtarget);
      seeded = true;
    }
    // One pass: the u0 part of the combination, the penalty u_p = e / (1 + dt chi / eta) with
    // its chi derivative, and the identity part of e = us + dt R(us); the body-force derivative
    // (the sum of dt lambda_e) on the way.
    const FieldView up = penalised ? m_euler[c].view() : FieldView();
    const FieldView chi = penalised ? m_ns.total_mask(c).view() : FieldView();
    const FieldView dchi = m_chi_gradient[c].view();
    const double dt_over_eta = penalised ? dt / eta : 0.0;
    const double lambda_sum = local_sum(
        "adj::stage_combination", free, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          const double out = lo(i, j, k);
          if (a != 0.0)
            lu0(i, j, k) += a * out;
          double lambda_e = b * out + (seeded ? le(i, j, k) : 0.0);
          if (penalised) {
            // u_p = (e + dt chi U / eta) / (1 + dt chi / eta): d/dchi = dt / eta (U - u_p) /
            // (1 + dt chi / eta), d/dU = dt chi / eta / (1 + dt chi / eta).
            const double denominator = 1.0 + dt_over_eta * chi(i, j, k);
            const double drive = target.data() ? target(i, j, k) : 0.0;
            dchi(i, j, k) += lambda_e * (drive - up(i, j, k)) * dt_over_eta / denominator;
            lambda_e /= denominator;
            if (target.data())
              dtarget(i, j, k) += lambda_e * dt_over_eta * chi(i, j, k);
          }
          le(i, j, k) = lambda_e;
          lus(i, j, k) += lambda_e;
          acc += lambda_e;
        });
    // Convective outflow faces: e = us - dt U_c (us - us_inner) / h instead of the momentum
    // equation; their adjoint is handled here and removed from the momentum transpose.
    double convective_sum = 0;
    for (const ConvectiveFace& f : m_ns.convective_faces(c)) {
      const long inward = f.inward;
      const double rate = dt * f.speed * f.inv_h;
      convective_sum += local_sum(
          "adj::convective_outflow", f.layer, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
            const double w = le(i, j, k);
            lus(i, j, k) -= rate * w;
            add_at(lus, i, j, k, c, inward, rate * w);
            le(i, j, k) = 0.0;
            acc += w;
          });
    }
    // The parameters in dt R(us) (convective faces have no body force).
    add_body_force_derivative(c, dt * (lambda_sum - convective_sum));
    dnu += dt * viscous_derivative(v, le, c, dim, sp, free);
  }
  // dt R(us) transposed, gathered into each component of lambda_us (it reads lambda_e of every
  // component, so it comes after all of them).
  for (int t = 0; t < dim; ++t) {
    const MomentumTranspose mt{v, velocity_views(m_lambda_e), lambda_us[t].view(), dt, nu, sp};
    transpose_momentum(t, dim, mt, lambda_us[t].ghosted());
  }
  m_local.nu += dnu;
  if (actuated)
    add_actuator_derivatives(m_dtarget);
}

void NavierStokesAdjoint::add_actuator_derivatives(const Velocity3& dtarget) {
  const auto& actuators = m_ns.params().actuators;
  const double t = m_ns.boundary_time();
  for (std::size_t k = 0; k < actuators.size(); ++k) {
    double sum = 0;
    for (int c = 0; c < m_domain.dim(); ++c) {
      const FieldView d = dtarget[c].view(), g = m_ns.actuator_pattern(k, c).view();
      sum += local_sum(
          "adj::actuator_amplitude", m_ns.free_faces(c),
          KOKKOS_LAMBDA(long i, long j, long kk, double& acc) {
            acc += d(i, j, kk) * g(i, j, kk);
          });
    }
    // U = sum_k scale_k a_k(t) G_k, or sum_k scale_k pi_k G_k with a feedback policy.
    const Actuator& a = actuators[k];
    if (m_ns.params().policy.active()) {
      m_local.actuator_scale[k] += m_ns.feedback().at(k) * sum;
      m_dj_dpolicy.at(k) += a.scale * sum;
      continue;
    }
    m_local.actuator_scale[k] += a.signal.value(t) * sum;
    if (!a.signal.varies())
      continue;
    const std::vector<double> phi = a.signal.basis(t);
    std::vector<double>& out = m_local.actuator_signal[k];
    for (std::size_t j = 0; j < phi.size(); ++j)
      out[j] += a.scale * phi[j] * sum;
  }
}

void NavierStokesAdjoint::begin_feedback_step(const StepTape& tape) {
  const control::FeedbackPolicy& policy = m_ns.params().policy;
  if (!policy.active())
    return;
  m_sensors = m_ns.read_sensors(tape.u0);
  m_ns.set_feedback(policy.evaluate(m_sensors));
  m_dj_dpolicy.assign(m_ns.params().actuators.size(), 0.0);
}

void NavierStokesAdjoint::add_feedback_transpose(const std::vector<double>& sensors,
                                                 Velocity3& lambda_u0) {
  const control::FeedbackPolicy& policy = m_ns.params().policy;
  if (!policy.active())
    return;
  const std::vector<double> dj_dpi = m_domain.comm().sum(m_dj_dpolicy);
  // Every rank holds the same dJ/dpi and readings; rank 0 keeps dJ/dtheta, which gradient()
  // sums over ranks like every other derivative.
  std::vector<double> dj_dtheta(policy.theta.size(), 0.0);
  const std::vector<double> dj_ds = policy.transpose(sensors, dj_dpi, dj_dtheta);
  if (m_domain.comm().rank() == 0)
    for (std::size_t j = 0; j < dj_dtheta.size(); ++j)
      m_local.policy[j] += dj_dtheta[j];
  m_ns.sensors().add_transpose(dj_ds, lambda_u0);
}

void NavierStokesAdjoint::potential_ghosts_transpose(Field& lambda) {
  const int dim = m_domain.dim();
  const FieldView l = lambda.view();
  // Outflow ghosts psi = -inner, in reverse order.
  for (int a = dim - 1; a >= 0; --a) {
    if (m_domain.periodic(a))
      continue;
    for (int side = 1; side >= 0; --side) {
      if (!m_domain.touches_boundary(a, side) ||
          !is_outflow(m_ns.params().boundaries.face[2 * a + side].kind))
        continue;
      const IndexSpace& own = lambda.owned();
      const long inward = side == 0 ? 1 : -1;
      const long ghost = side == 0 ? own.begin[a] - 1 : own.end[a];
      for_each(
          "adj::psi_outflow_ghost", layer(lambda.ghosted(), a, ghost),
          KOKKOS_LAMBDA(long i, long j, long k) {
            add_at(l, i, j, k, a, inward, -l(i, j, k));
            l(i, j, k) = 0.0;
          });
    }
  }
  m_ns.cell_halo().scatter_add(lambda);
}

void NavierStokesAdjoint::project_adjoint(Velocity3& lambda, int stage, const Field* psi_seed) {
  const int dim = m_domain.dim();
  Field& mu_stage = m_mu[stage < 0 || stage > 3 ? 0 : stage];
  const GridSpacing& sp = m_ns.spacing();
  const bool stretched = !m_domain.all_uniform();
  const FieldView lpsi = m_lambda_psi.view();
  {
    auto scope = m_timers.scope("projection adjoint");
    // u -= G psi on the free faces.
    fill_value(m_lambda_psi, m_lambda_psi.ghosted(), 0.0);
    for (int c = 0; c < dim; ++c)
      gradient_transpose_gather(m_ns.free_faces(c), lambda[c].view(), -1.0, c, sp, lpsi);
    if (psi_seed)
      axpy(1.0, *psi_seed, m_lambda_psi);
    potential_ghosts_transpose(m_lambda_psi);
    // On a stretched grid L is symmetric in the volume-weighted product (V L is), so
    // L^-T = V L^-1 V^-1: the solve below takes V^-1 lambda_psi, and its solution is
    // multiplied by V where the divergence's transpose reads it.
    if (stretched)
      scale_by_control_volume(m_lambda_psi, m_lambda_psi.owned(), dim, true);
  }
  {
    auto scope = m_timers.scope("poisson adjoint");
    // psi = L^-1 div: L is symmetric, so the transposed solve is the same solve. Its initial
    // guess is this stage's solution of the step after (the one reversed before), which changes
    // smoothly from step to step; the initial projection starts from zero.
    if (stage <= 0)
      fill_value(m_mu[0], m_mu[0].ghosted(), 0.0);
    if (stage > 0 && m_mu_count[stage] >= 1) {
      // Polynomial extrapolation in the step index from the solutions of this stage in the
      // steps reversed before (as many as there are, up to three): mu_1; 2 mu_1 - mu_2;
      // 3 mu_1 - 3 mu_2 + mu_3. The older solutions shift down one place.
      const long known = m_mu_count[stage] < 3 ? m_mu_count[stage] : 3;
      const double c1 = known == 1 ? 1.0 : known == 2 ? 2.0 : 3.0;
      const double c2 = known == 1 ? 0.0 : known == 2 ? -1.0 : -3.0;
      const double c3 = known == 3 ? 1.0 : 0.0;
      const FieldView mu = mu_stage.view(), mu2 = m_mu_previous[stage].view(),
                      mu3 = m_mu_older[stage].view();
      for_each_rows(
          "adj::mu_guess", mu_stage.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
            const double m1 = mu(i, j, k), m2 = mu2(i, j, k);
            mu(i, j, k) = c1 * m1 + c2 * m2 + c3 * mu3(i, j, k);
            mu3(i, j, k) = m2;
            mu2(i, j, k) = m1;
          });
    }
    m_poisson_iterations += m_ns.poisson().solve(m_lambda_psi, mu_stage).iterations;
    if (stage > 0)
      ++m_mu_count[stage];
  }
  auto scope = m_timers.scope("projection adjoint");
  // div = D u over the owned cells.
  const Field* mu = &mu_stage;
  if (stretched) {
    copy(mu_stage, m_lambda_psi); // (no longer needed) V mu, the transposed solve's solution
    scale_by_control_volume(m_lambda_psi, m_lambda_psi.owned(), dim, false);
    mu = &m_lambda_psi;
  }
  for (int d = 0; d < dim; ++d)
    divergence_transpose_gather(mu->owned(), mu->view(), d, sp, lambda[d].view());
  prepare_adjoint(lambda);
}

void NavierStokesAdjoint::step_adjoint(const StepTape& tape, Velocity3& lambda,
                                       const ForceSeed& force_seed, const Field* pressure_seed) {
  begin_feedback_step(tape);
  if (m_ns.params().scheme == TimeScheme::Rk3CrankNicolson)
    step_adjoint_rk3_crank_nicolson(tape, lambda, force_seed, pressure_seed);
  else
    step_adjoint_ssp_rk3(tape, lambda, force_seed, pressure_seed);
}

void NavierStokesAdjoint::step_adjoint_ssp_rk3(const StepTape& tape, Velocity3& lambda,
                                               const ForceSeed& force_seed,
                                               const Field* pressure_seed) {
  const int dim = m_domain.dim();
  const double dt = tape.dt;
  // p = psi / (b dt) of the last stage.
  const Field* psi_seed = nullptr;
  if (pressure_seed) {
    fill_value(m_psi_seed, m_psi_seed.ghosted(), 0.0);
    axpy(1.0 / (kSspRk3[2].b * dt), *pressure_seed, m_psi_seed);
    psi_seed = &m_psi_seed;
  }
  // Each prepare transposed takes the boundary values of the stage's time, as the step did.
  const double t0 = tape.time;
  const RungeKuttaStage &r1 = kSspRk3[0], &r2 = kSspRk3[1], &r3 = kSspRk3[2];
  // Stage 3: u_{n+1} = P(1/3 u_n + 2/3 E(s2)).
  m_ns.set_boundary_time(t0 + r3.c * dt);
  project_adjoint(lambda, 3, psi_seed);
  zero(m_start, dim);
  zero(m_stage2, dim);
  m_ns.set_force_time(t0 + ssp_stage_start(2) * dt);
  euler_combination_adjoint(r3.a, r3.b, tape.stage2, dt, r3.force_weight, force_seed, lambda,
                            m_start, m_stage2);
  m_ns.set_boundary_time(t0 + r2.c * dt);
  prepare_adjoint(m_stage2);
  // Stage 2: s2 = P(3/4 u_n + 1/4 E(s1)).
  project_adjoint(m_stage2, 2);
  zero(m_stage1, dim);
  m_ns.set_force_time(t0 + ssp_stage_start(1) * dt);
  euler_combination_adjoint(r2.a, r2.b, tape.stage1, dt, r2.force_weight, force_seed, m_stage2,
                            m_start, m_stage1);
  m_ns.set_boundary_time(t0 + r1.c * dt);
  prepare_adjoint(m_stage1);
  // Stage 1: s1 = P(E(u_n)).
  project_adjoint(m_stage1, 1);
  m_ns.set_force_time(t0 + ssp_stage_start(0) * dt);
  euler_combination_adjoint(r1.a, r1.b, tape.u0, dt, r1.force_weight, force_seed, m_stage1, m_start,
                            m_start);
  add_feedback_transpose(m_sensors, m_start);
  m_ns.set_boundary_time(t0);
  prepare_adjoint(m_start);
  for (int c = 0; c < dim; ++c)
    copy(m_start[c], lambda[c]);
}

} // namespace navier_stokes
} // namespace undertow
