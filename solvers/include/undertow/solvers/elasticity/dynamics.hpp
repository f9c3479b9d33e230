#pragma once
/// \file
/// Elastodynamics by the Newmark method (docs/elasticity.md, "Dynamics"): the semi-discrete
/// equations M a + C v + K(rho) u = g(t) f, with the consistent mass M, Rayleigh damping
/// C = alpha M + beta_R K(rho) and a load f scaled in time by a history g(t). One step of size dt
/// from (u, v, a)_n to (u, v, a)_{n+1}:
///
///   predictor   u~ = u_n + dt v_n + (1/2 - beta) dt^2 a_n,   v~ = v_n + (1 - gamma) dt a_n
///   solve       (M + gamma dt C + beta dt^2 K) a_{n+1} = g(t_{n+1}) f - C v~ - K u~
///   corrector   u_{n+1} = u~ + beta dt^2 a_{n+1},           v_{n+1} = v~ + gamma dt a_{n+1}
///
/// beta = 1/4, gamma = 1/2 (average acceleration, the default) is the trapezoidal rule: second
/// order, unconditionally stable, and without damping it conserves the energy
/// 1/2 v.M v + 1/2 u.K u - g f.u exactly under a constant load. The run starts from rest,
/// u_0 = v_0 = 0, with M a_0 = g(0) f. Supports hold their components at zero (a prescribed
/// nonzero displacement is refused).
///
/// Its adjoint, NewmarkAdjoint below, takes (u', v', a')-bar, the adjoint of the state after a
/// step, to that of the state before it:
///
///   A mu = a'bar + beta dt^2 u'bar + gamma dt v'bar          (homogeneous supports)
///   u~bar = u'bar - K mu,   v~bar = v'bar - C mu
///   ubar = u~bar,  vbar = dt u~bar + v~bar,  abar = (1/2 - beta) dt^2 u~bar + (1 - gamma) dt v~bar
///
/// with mu the multiplier of the step's equation M a' + C v' + K u' = g(t') f
/// (adjoint/elastodynamics_gradient.hpp turns the multipliers into parameter gradients).
///
/// Units: t, dt [s]; u [m], v [m/s], a [m/s^2]; alpha [1/s], beta_R [s].

#include "undertow/solvers/elasticity/elasticity.hpp"

namespace undertow {
namespace elasticity {

/// g(t): how the load's magnitude follows time.
struct LoadHistory {
  enum class Kind {
    Constant, ///< g = 1 from t = 0 on (a suddenly applied load)
    Ramp,     ///< g = min(t / period, 1)
    HalfSine  ///< g = sin(pi t / period) for t < period, then 0 (a pulse)
  } kind = Kind::Constant;
  double period = 0; ///< [s], > 0 for Ramp and HalfSine
  /// g(t), dimensionless. Not collective.
  double at(double t) const;
};

struct NewmarkSettings {
  double beta = 0.25;
  double gamma = 0.5;
  double rayleigh_mass = 0;      ///< alpha [1/s]
  double rayleigh_stiffness = 0; ///< beta_R [s]
  LoadHistory load;

  /// Declares the dynamics.* keys (beta, gamma, rayleigh_mass, rayleigh_stiffness,
  /// load_history, load_period). Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// Reads and validates them. Throws ConfigError naming the key. Not collective.
  static NewmarkSettings from_config(const Config& config);

  /// Throws ConfigError, naming the dynamics.* setting, for gamma < 1/2, beta < gamma / 4 (not
  /// unconditionally stable), negative damping or a ramp or pulse without a period. Not
  /// collective.
  void validate() const;
};

/// Point functions of one Newmark step, per value: the predictor and the corrector.
KOKKOS_INLINE_FUNCTION double newmark_predict_u(double u, double v, double a, double dt,
                                                double beta) {
  return u + dt * v + (0.5 - beta) * dt * dt * a;
}
KOKKOS_INLINE_FUNCTION double newmark_predict_v(double v, double a, double dt, double gamma) {
  return v + (1.0 - gamma) * dt * a;
}

/// The state (u, v, a) of a Newmark run on a LinearElasticity (its density, E0, mass density,
/// supports and load f). The solver's linear system is reassembled as
/// A = (gamma dt beta_R + beta dt^2) K + (1 + gamma dt alpha) M whenever dt changes.
class Newmark {
 public:
  /// Throws ConfigError for invalid settings or a support that prescribes a nonzero
  /// displacement. Not collective.
  Newmark(LinearElasticity& solver, const NewmarkSettings& settings);

  /// t = 0, u = v = 0 and M a_0 = g(0) f (no solve if g(0) = 0). Call again after changing the
  /// solver's density or E0. Collective.
  SolveInfo start();
  /// One step of size dt [s] > 0. Throws CollectiveError if the solve fails. Collective.
  SolveInfo step(double dt);

  /// The operator weights of a step of size dt: A = weights[0] K + weights[1] M.
  std::array<double, 2> operator_weights(double dt) const;

  NodeVector& displacement() { return m_u; }
  NodeVector& velocity() { return m_v; }
  NodeVector& acceleration() { return m_a; }
  const NodeVector& displacement() const { return m_u; }
  const NodeVector& velocity() const { return m_v; }
  double time() const { return m_time; }
  long steps() const { return m_steps; }
  /// Sets the clock of a restored state (the fields are restored by the caller, ghosts included).
  void restore_clock(double time, long steps) {
    m_time = time;
    m_steps = steps;
  }
  LinearElasticity& solver() { return m_solver; }
  const NewmarkSettings& settings() const { return m_settings; }

  /// 1/2 v.M v [J] (per unit thickness in 2D). Collective.
  double kinetic_energy();
  /// 1/2 u.K u [J]. Collective.
  double strain_energy();
  /// -g(t) f.u [J], the potential of the load at the current time. Collective.
  double load_potential();

 private:
  LinearElasticity& m_solver;
  NewmarkSettings m_settings;
  NodeVector m_u, m_v, m_a;
  NodeVector m_u_pred, m_v_pred, m_work, m_rhs, m_alpha_v; ///< step buffers
  double m_time = 0;
  long m_steps = 0;
};

/// The discrete work balance of Newmark steps (docs/elasticity.md, "Dynamics"):
///
///   (KE + SE)_{n+1} - (KE + SE)_n = work - dissipated + residual,
///   work = (g_n + g_{n+1}) / 2 f.(u_{n+1} - u_n),   dissipated = dt v_mid.C v_mid,
///
/// with v_mid = (v_n + v_{n+1}) / 2. The trapezoidal rule (beta = 1/4, gamma = 1/2) makes the
/// residual zero up to the linear solves' error; other (beta, gamma) dissipate numerically, which
/// shows as a negative residual. Usage: before() ahead of each step, after(dt) once it is taken.
class WorkBalance {
 public:
  struct Step {
    double kinetic = 0;    ///< KE after the step [J] (per unit thickness in 2D)
    double strain = 0;     ///< SE after the step [J]
    double work = 0;       ///< work of the load over the step [J]
    double dissipated = 0; ///< energy taken by the Rayleigh damping [J]
    double residual = 0;   ///< change of KE + SE - work + dissipated [J]
  };

  /// Allocates the step buffers. Not collective.
  explicit WorkBalance(Newmark& run);
  /// Records the state before a step (its energies are those after() found, if the run has not
  /// moved since). Collective.
  void before();
  /// The balance of the step of size dt [s] taken since before(). Collective.
  Step after(double dt);

 private:
  Newmark& m_run;
  NodeVector m_u_old, m_v_old, m_v_mid, m_alpha_v, m_beta_v, m_cv;
  double m_g_old = 0, m_energy_old = 0;
  long m_energy_steps = -1; ///< the run's step and time when m_energy_old was last evaluated
  double m_energy_time = 0;
};

/// The adjoint of one Newmark step (the formulas at the top; the parameter terms are the
/// gradient's, adjoint/elastodynamics_gradient.hpp).
class NewmarkAdjoint {
 public:
  /// Uses `run`'s solver and settings, which must outlive this. Not collective.
  explicit NewmarkAdjoint(Newmark& run);
  /// Takes (ubar, vbar, abar) of the state after a step of size dt [s] to those of the state
  /// before it (owned values matter; ghosts are not used), with the step's operator (assembled
  /// if needed). Returns the solve's iterations. Collective.
  long step(double dt, NodeVector& ubar, NodeVector& vbar, NodeVector& abar);
  /// mu of the last step(), ghosts filled.
  const NodeVector& multiplier() const { return m_mu; }

 private:
  Newmark& m_run;
  NodeVector m_mu, m_rhs, m_k_mu, m_m_mu;
};

} // namespace elasticity
} // namespace undertow
