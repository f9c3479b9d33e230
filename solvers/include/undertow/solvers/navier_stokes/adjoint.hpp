#pragma once
/// \file
/// The discrete adjoint of the Navier-Stokes solver (solvers/navier_stokes/solver.hpp): for every
/// piece of the forward step its exact transpose, linearised at the forward state a StepTape
/// holds, and their composition, the adjoint of one SSP-RK3 step. With the forward step
/// u_{n+1} = F(u_n, m), step_adjoint turns lambda_{n+1} into lambda_n = (dF/du)^T lambda_{n+1} and
/// adds (dF/dm)^T lambda_{n+1} to the parameter gradient. docs/adjoint.md derives each transpose.
///
/// Adjoint fields have the layout of the velocity (ghosts included): the transposes scatter into
/// ghosts, and the transposes of the halo fill (scatter_add) and of the boundary conditions bring
/// those contributions home. After prepare_adjoint, only owned values are non-zero.

#include "undertow/solvers/navier_stokes/solver.hpp"

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace navier_stokes {

using Velocity3 = std::array<Field, 3>;

/// dJ/dm for the scalar parameters of a flow, summed over ranks by NavierStokesAdjoint::gradient.
struct FlowGradient {
  double nu = 0;                                            ///< [J / (m^2/s)]
  std::array<double, 3> body_force{0, 0, 0};                ///< [J / (m/s^2)]
  std::array<std::array<double, 3>, 6> boundary_velocity{}; ///< per face (x-, x+, ...) and
                                                            ///< component [J / (m/s)]
  /// Per face, the coefficients of its control signal a(t) (BoundarySet, FaceBoundary::signal)
  /// [J]; empty where the face's velocity is constant.
  std::array<std::vector<double>, 6> boundary_signal;
  /// The coefficients of the body force's control signal [J]; empty where it is constant.
  std::vector<double> body_force_signal;
  /// Per actuator (NavierStokesParams::actuators): dJ/d(its scale) [J / (rad/s) or J / (m/s)]
  /// and dJ/d(its signal's coefficients) [J].
  std::vector<double> actuator_scale;
  std::vector<std::vector<double>> actuator_signal;
  /// dJ/dtheta of the feedback policy (NavierStokesParams::policy) [J]; empty without one.
  std::vector<double> policy;
};

/// Where an objective's derivative with respect to the forces of one step enters its adjoint:
/// dJ/dF for each obstacle and component (F as NavierStokes::forces() reports it).
using ForceSeed = std::vector<std::array<double, 3>>;

class NavierStokesAdjoint {
 public:
  /// Uses the forward solver's grid, boundary conditions, obstacles, halo plans and pressure
  /// solver (the operator is symmetric, in the volume-weighted product on a stretched grid, so
  /// the same solver does the transposed solves). Not collective.
  explicit NavierStokesAdjoint(NavierStokes& forward);

  /// lambda := (d prepare / du)^T lambda: transposes of the ghost boundary conditions (in reverse
  /// order), of the halo fill (scatter_add) and of the prescribed boundary faces; the derivatives
  /// with respect to the boundary velocities, and to the coefficients of their control signals,
  /// are added to the gradient. The boundary values are those of the forward solver's
  /// boundary_time(), which must be the time of the prepare() transposed: step_adjoint sets it
  /// for its stages, a caller for any other prepare. Collective.
  void prepare_adjoint(Velocity3& lambda);

  /// Transpose of NavierStokes::euler_combination linearised at the prepared stage `us`: with
  /// lambda_out on the free faces, adds a lambda_out to lambda_u0 and the transpose of
  /// b (us + dt R(us)) (penalised with obstacles, and dJ/dF through the force term weighted by
  /// `force_weight`) to lambda_us, ghosts included. dJ/dnu, dJ/df and dJ/dchi accumulate.
  /// Collective.
  void euler_combination_adjoint(double a, double b, const Velocity3& us, double dt,
                                 double force_weight, const ForceSeed& force_seed,
                                 const Velocity3& lambda_out, Velocity3& lambda_u0,
                                 Velocity3& lambda_us);

  /// lambda := (d project / du)^T lambda, with the transposed pressure solve. `stage` (1 to 3:
  /// the RK stage; 0: any other projection) picks the initial guess of the solve: the last
  /// solution of the same stage. `psi_seed` (may be null) is dJ/dpsi of this projection's
  /// potential on owned cells. Collective.
  void project_adjoint(Velocity3& lambda, int stage = 0, const Field* psi_seed = nullptr);

  /// y := H^T x on the free faces, H the Helmholtz operator of RK3-CN's substep k
  /// (NavierStokes::apply_helmholtz with homogeneous boundary values). x's values off the free
  /// faces are ignored; y must be other fields than x (Error otherwise). Collective.
  void apply_helmholtz_transpose(int k, double dt, const Velocity3& x, Velocity3& y);
  /// Solves H^T mu = b on the free faces (substep k) from mu = 0; returns the iterations, throws
  /// CollectiveError if the solve fails. Collective.
  int viscous_solve_transpose(int k, double dt, const Velocity3& b, Velocity3& mu);
  /// Transpose of RK3-CN's substep k up to its projection, (w_k, w_{k-1}, p^(k)) -> u*,
  /// linearised at the prepared w_k and w_{k-1} (null for k = 0) with the substep's pressure p:
  /// with lambda_ustar, the adjoint of u* on the free faces (the force term's seed is added to
  /// it here), adds the transposes to lambda_w and lambda_w_previous (ghosts included, before
  /// prepare_adjoint) and to lambda_p (owned cells). dJ/dnu, dJ/df, the boundary velocities,
  /// dJ/dchi and dJ/dmask accumulate. u* is recomputed from the w and p (the forward's solve,
  /// so bitwise its u*) unless `ustar` gives it: a substep that is not projected
  /// (time.imex_projection = last_substep, k < 2) taped its u* as w_{k+1}. Collective.
  void imex_substep_adjoint(int k, const Velocity3& w, const Velocity3* w_previous, Field& p,
                            double dt, const ForceSeed& force_seed, Velocity3& lambda_ustar,
                            Velocity3& lambda_w, Velocity3* lambda_w_previous, Field& lambda_p,
                            const Velocity3* ustar = nullptr);
  /// prepare_adjoint with the boundary-velocity derivatives added to `into` (sized by
  /// zero_gradient()).
  void transpose_boundary(Velocity3& lambda, FlowGradient& into);
  /// Adds sum S of lambda times the boundary value's unit response on (face, component) to
  /// `into`: S a(t) to the velocity's derivative and S v phi_j(t) to the signal coefficients'
  /// (v the face's velocity, t the forward solver's boundary_time()). Not collective.
  void add_boundary_derivative(int face, int component, double sum, FlowGradient& into) const;
  /// Adds S, the derivative with respect to the body force f_c at the forward solver's
  /// force_time(), to the gradient: S a(t) to dJ/df_c and S f_c phi_j(t) to the signal's
  /// coefficients. Not collective.
  void add_body_force_derivative(int component, double sum);
  /// Adds the derivatives with respect to every actuator's amplitude A_k at the forward
  /// solver's boundary_time(), sum over the free faces of dtarget . G_k (dtarget = dJ/dU, the
  /// actuators' target velocity): a_k(t) S to dJ/d(scale_k) and scale_k phi_j(t) S to its
  /// signal's coefficients. With a feedback policy A_k = scale_k pi_k instead: pi_k S to
  /// dJ/d(scale_k), and scale_k S to the step's dJ/dpi_k, which add_feedback_transpose takes
  /// through the policy. Not collective.
  void add_actuator_derivatives(const Velocity3& dtarget);
  /// The transpose of the step's sensors -> policy chain, pi(s(u_n)): with the step's dJ/dpi
  /// (summed over ranks here), adds (dpi/dtheta)^T dJ/dpi to the policy's gradient and
  /// (ds/du_n)^T (dpi/ds)^T dJ/dpi to lambda_u0, the adjoint of the prepared u_n (ghosts
  /// included, before prepare_adjoint); `sensors` are the step's readings s(u_n). step_adjoint
  /// calls it; the policy's amplitudes must be those of the step (NavierStokes::set_feedback).
  /// Collective.
  void add_feedback_transpose(const std::vector<double>& sensors, Velocity3& lambda_u0);
  /// Transpose of NavierStokes::potential_ghosts: the outflow ghosts, then the halo
  /// (scatter_add). Collective.
  void potential_ghosts_transpose(Field& lambda);

  /// lambda_{n+1} -> lambda_n for the step the tape recorded, with the forward scheme; force_seed:
  /// dJ/dF of that step's forces; pressure_seed: dJ/dp_{n+1} on owned cells (may be null). With
  /// RK3-CN the pressure is part of the state: its adjoint is carried from step to step inside
  /// (state_fields). Collective.
  void step_adjoint(const StepTape& tape, Velocity3& lambda, const ForceSeed& force_seed,
                    const Field* pressure_seed = nullptr);

  /// The parameter gradient accumulated so far, summed over ranks. Collective.
  FlowGradient gradient() const;
  /// dJ/dchi, chi being the penalty mask per face (NavierStokes::total_mask), accumulated so
  /// far.
  const Velocity3& chi_gradient() const { return m_chi_gradient; }
  /// dJ/dmask_k through the force term of obstacle k, accumulated so far.
  const std::vector<Velocity3>& mask_force_gradient() const { return m_mask_force_gradient; }
  /// Sets every accumulated gradient to zero. Not collective.
  void reset_gradient();
  /// A zero gradient with one entry per control coefficient and actuator of the forward
  /// solver's parameters. Not collective.
  FlowGradient zero_gradient() const;
  /// What the adjoint carries from one step to the next, for saving and resuming a reverse
  /// sweep bitwise: the accumulated gradients, the adjoint of psi and the transposed-solve
  /// solutions that give the next solves their initial guesses (fields; whole local arrays), and
  /// the accumulated scalar gradients and solve counts (numbers). Not collective.
  std::vector<std::pair<std::string, Field*>> state_fields();
  std::map<std::string, double> state_numbers() const;
  /// Sets the numbers state_numbers() gave. Throws Error if one is missing. Not collective.
  void restore_numbers(const std::map<std::string, double>& numbers);
  /// Pressure iterations of the transposed solves since the last call.
  int take_poisson_iterations();
  Timers& timers() { return m_timers; }

 private:
  void step_adjoint_ssp_rk3(const StepTape& tape, Velocity3& lambda, const ForceSeed& force_seed,
                            const Field* pressure_seed);
  void step_adjoint_rk3_crank_nicolson(const StepTape& tape, Velocity3& lambda,
                                       const ForceSeed& force_seed, const Field* pressure_seed);
  /// RK3-CN's scratch, allocated on first use.
  void allocate_imex();
  /// With a feedback policy: the sensors of the tape's u_n and the policy's amplitudes from
  /// them (set in the forward solver), and a zero dJ/dpi for the step. Collective.
  void begin_feedback_step(const StepTape& tape);

  NavierStokes& m_ns;
  const Domain& m_domain;
  /// The forward step's boundary rules, transposed in reverse order by prepare_adjoint().
  std::vector<BoundaryRule> m_face_rules, m_ghost_rules;
  FlowGradient m_local;     ///< this rank's part
  FlowGradient m_discarded; ///< where the homogeneous transposes' derivatives go
  Velocity3 m_chi_gradient;
  std::vector<Velocity3> m_mask_force_gradient;
  Velocity3 m_euler;    ///< scratch: the (penalised) Euler step of the stage being transposed
  Velocity3 m_dtarget;  ///< scratch: dJ/dU of the stage being transposed (with actuators)
  Velocity3 m_lambda_e; ///< scratch: its adjoint
  Velocity3 m_stage1, m_stage2, m_start; ///< adjoints of the stages and of u_n
  Field m_lambda_psi;                    ///< adjoint of psi
  std::array<Field, 4> m_mu;             ///< transposed-solve solutions: other, stages 1-3
  std::array<Field, 4> m_mu_previous;    ///< the solutions one step further back
  std::array<Field, 4> m_mu_older;       ///< and two steps
  std::array<long, 4> m_mu_count{};      ///< solves done per stage
  int m_poisson_iterations = 0;
  /// RK3-CN: the recomputed right-hand side and u* of a substep, the transposed solve's solution
  /// and right-hand side, and a masked copy and a scatter target for the transposed stencils.
  Velocity3 m_imex_rhs, m_ustar, m_viscous_mu, m_masked, m_scatter;
  std::vector<double> m_sensors;    ///< the readings of the step being transposed
  std::vector<double> m_dj_dpolicy; ///< its dJ/dpi, this rank's part
  Field m_lambda_p;                 ///< RK3-CN: the adjoint of the pressure, carried between steps
  Field m_psi_seed;                 ///< a projection's dJ/dpsi, made from a pressure seed
  Field m_gradient_transpose;       ///< scratch: G^T of a face field, ghosts included
  std::unique_ptr<linear::FieldBiCGStab> m_krylov;
  Timers m_timers;
};

/// lambda := 0 on every local value. Not collective.
void zero(Velocity3& lambda, int dim);

} // namespace navier_stokes
} // namespace undertow
