#pragma once
/// \file
/// Incompressible Navier-Stokes on the staggered (MAC) grid, 2D or 3D, decomposed over MPI:
///
///   du/dt + div(u u) = -grad p + nu lap u + f,   div u = 0.
///
/// Time integration, two schemes (NavierStokesParams::scheme):
///
/// - SSP-RK3 (the default; every term explicit): three-stage SSP Runge-Kutta (Shu-Osher form).
///   Every stage is a convex combination of the previous stage and an explicit Euler step, and
///   is projected onto divergence-free fields: solve L psi = D w with the PETSc pressure Poisson
///   solver, then w -= G psi. Because projection is linear and fixes divergence-free fields with
///   the same boundary values, projecting each combination equals combining projected Euler
///   steps. The pressure is psi / (2/3 dt) from the last stage. With L = D G exactly, div u is
///   zero to the solver tolerance. Its time step is limited by diffusion too: dt <= 2.5 h^2 /
///   (16/3 nu dim).
/// - RK3-CN (IMEX; Spalart, Moser & Rogers 1991): advection and the body force explicit in a
///   three-substep low-storage Runge-Kutta, the viscous terms by Crank-Nicolson in each substep,
///   the penalty implicit, the pressure incremental. Substep k (alpha_k = beta_k, gamma_k,
///   zeta_k of kRk3CrankNicolson), from w_0 = u_n and p^(0) = p_n:
///
///     [(1 + 2 alpha_k dt chi / eta) - alpha_k dt nu L] u* = w_k + dt [gamma_k N(w_k)
///         + zeta_k N(w_{k-1}) + alpha_k nu L w_k + 2 alpha_k f] - 2 alpha_k dt G p^(k),
///     w_{k+1} = u* - G psi_k (the projection),  p^(k+1) = p^(k) + psi_k / (2 alpha_k dt),
///
///   N = -div(u u); H solved by BiCGStab with a Jacobi preconditioner on the free faces
///   (field_bicgstab.hpp). The pressure is part of the state; the projection adds an increment
///   of order dt^2, so the viscous terms and the projection do not split at walls. Second order
///   in time (third for advection); the time step is limited by advection only.
///
///   With ImexProjection::LastSubstep (time.imex_projection = last_substep; after Le & Moin,
///   J. Comput. Phys. 92, 1991) only the last substep is projected: w_1 and w_2 are the u* of
///   their substeps, every substep reads p^(k) = p_n, whose gradient applies dt G p_n over the
///   step, and the last projection, with potential psi scaled by dt, gives
///   u_{n+1} = u* - G psi and p_{n+1} = p_n + psi / dt. One Poisson solve a step instead of
///   three; still second order in time, with larger error constants (docs/performance.md).
///
/// NavierStokes holds the state and takes steps; what is measured of a flow (divergence,
/// energies, Courant number, cell fields for output) is in diagnostics.hpp.

#include "undertow/core/field.hpp"
#include "undertow/core/halo.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/control/feedback_policy.hpp"
#include "undertow/solvers/linear/field_bicgstab.hpp"
#include "undertow/solvers/linear/pressure_poisson.hpp"
#include "undertow/solvers/navier_stokes/actuators.hpp"
#include "undertow/solvers/navier_stokes/boundary.hpp"
#include "undertow/solvers/navier_stokes/obstacles.hpp"
#include "undertow/solvers/navier_stokes/operators.hpp"
#include "undertow/solvers/navier_stokes/sensors.hpp"

#include <array>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace undertow {
namespace navier_stokes {

/// What the adjoint of one step linearises about: the velocity at the start of the step and the
/// two projected intermediate stages, each with its boundary values and ghosts brought up to date
/// (as the momentum kernel read them), and the forces of the step. Filled by step() on request.
struct StepTape {
  std::array<Field, 3> u0, stage1, stage2;
  /// RK3-CN: the pressure at the start of each substep, p^(0) = p_n, p^(1), p^(2); with
  /// ImexProjection::LastSubstep only p^(0) (every substep reads p_n).
  std::array<Field, 3> pressure;
  double time = 0; ///< t at the start of the step [s]
  double dt = 0;   ///< [s]
  std::vector<std::array<double, 3>> forces;
};

/// One stage of SSP-RK3 (Shu & Osher 1988) as the step takes it, and its adjoint transposes it:
/// stage s is the projection of a u_n + b E(w), E the (penalised) explicit Euler step and w the
/// previous stage (u_n for the first); its projection potential is scaled by b dt, and the forces
/// of its Euler step enter the step's forces with `force_weight`, the stage's weight in the final
/// combination. The stage approximates the flow at t_n + c dt, where its boundary values are
/// taken.
struct RungeKuttaStage {
  double a, b, force_weight, c;
};
/// The three stages, the one table of the forward step (solver.cpp) and its adjoint (adjoint.cpp).
constexpr RungeKuttaStage kSspRk3[3] = {{0.0, 1.0, 1.0 / 6.0, 1.0},
                                        {0.75, 0.25, 1.0 / 6.0, 0.5},
                                        {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 1.0}};
/// Where the Euler step of stage s is taken, as a fraction of the step: the time of the stage
/// before (0, 1, 1/2); its body force is that of this time.
constexpr double ssp_stage_start(int s) {
  return s == 0 ? 0.0 : kSspRk3[s - 1].c;
}

/// One substep of RK3-CN (Spalart, Moser & Rogers 1991): Crank-Nicolson weight alpha (= beta) of
/// the viscous terms, gamma and zeta of the explicit terms at the substep's start and the one
/// before. 2 alpha = gamma + zeta weights the penalty, the body force, the forces and the
/// projection potential (psi = 2 alpha dt p); the three sum to 1.
struct ImexSubstep {
  double alpha, gamma, zeta;
};
/// The three substeps, the one table of the forward step (imex.cpp) and its adjoint.
constexpr ImexSubstep kRk3CrankNicolson[3] = {{4.0 / 15.0, 8.0 / 15.0, 0.0},
                                              {1.0 / 15.0, 5.0 / 12.0, -17.0 / 60.0},
                                              {1.0 / 6.0, 3.0 / 4.0, -5.0 / 12.0}};
/// Where substep k ends, as a fraction of the step: the sum of 2 alpha over substeps 0 ... k
/// (8/15, 2/3, 1); its velocity takes the boundary values of that time.
constexpr double imex_substep_end(int k) {
  return k < 0 ? 0.0 : 2.0 * kRk3CrankNicolson[k].alpha + imex_substep_end(k - 1);
}
/// The middle of substep k, as a fraction of the step: its body force is that of this time.
constexpr double imex_substep_middle(int k) {
  return imex_substep_end(k - 1) + kRk3CrankNicolson[k].alpha;
}

/// How a step integrates in time (see the file comment).
enum class TimeScheme {
  SspRk3,          ///< every term explicit (time.scheme = explicit)
  Rk3CrankNicolson ///< viscous terms implicit (time.scheme = imex)
};

/// Which substeps of RK3-CN are projected (see the file comment).
enum class ImexProjection {
  EverySubstep, ///< three Poisson solves a step (time.imex_projection = every_substep)
  LastSubstep   ///< one, after the last substep (time.imex_projection = last_substep)
};

/// The scale of substep k's projection potential as a fraction of dt (psi = weight dt p), 0
/// where the substep is not projected: 2 alpha_k for every substep, or 1 for the last alone.
/// The one rule of the forward step (imex.cpp) and its adjoint.
constexpr double imex_projection_weight(ImexProjection projection, int k) {
  return projection == ImexProjection::EverySubstep ? 2.0 * kRk3CrankNicolson[k].alpha
         : k == 2                                   ? 1.0
                                                    : 0.0;
}
/// The pressure substep k reads, p^(k): the tape's entry k, or p_n (entry 0) for all three when
/// only the last substep is projected.
constexpr int imex_pressure_entry(ImexProjection projection, int k) {
  return projection == ImexProjection::EverySubstep ? k : 0;
}

/// A convective outflow face of one velocity component on this rank.
struct ConvectiveFace {
  IndexSpace layer; ///< the boundary faces, local indices
  long inward;      ///< +1 on a lower face, -1 on an upper one
  double speed;     ///< U_c [m/s]
  double inv_h;     ///< 1 / the width of the cell inside the face [1/m]
};

struct NavierStokesParams {
  double nu = 1e-2;                          ///< kinematic viscosity [m^2/s]
  std::array<double, 3> body_force{0, 0, 0}; ///< uniform body force per unit mass [m/s^2]
  /// a(t): the body force at time t is body_force * a(t), taken at each stage's force_time().
  control::TimeSignal body_force_signal;
  BoundarySet boundaries;
  ObstacleSet obstacles; ///< Brinkman-penalised bodies (may be empty)
  /// Rotation and jets of bodies: the penalty's target velocity (actuators.hpp), taken at the
  /// time of each stage's velocity (boundary_time()).
  std::vector<Actuator> actuators;
  /// A feedback policy driving every actuator instead of its signal: A_k = scale_k pi_k(s),
  /// s the readings of the sensors at `sensors` (every velocity component at each point) at
  /// the step's start, held through the step.
  control::FeedbackPolicy policy;
  std::vector<std::array<double, 3>> sensors; ///< [m]
  linear::PoissonSpec pressure;               ///< faces are set from `boundaries`
  TimeScheme scheme = TimeScheme::SspRk3;
  ImexProjection imex_projection = ImexProjection::EverySubstep; ///< RK3-CN only
  double viscous_rtol = 1e-10;      ///< relative residual of the implicit viscous solves
  int viscous_max_iterations = 200; ///< their iteration limit
};

class NavierStokes {
 public:
  /// Allocates fields, halo plans and the pressure solver. Collective.
  NavierStokes(const Domain& domain, const NavierStokesParams& params);

  /// Velocity component c (faces normal to axis c) and the kinematic pressure p / rho [m^2/s^2].
  Field& velocity(int c) { return m_u[c]; }
  const Field& velocity(int c) const { return m_u[c]; }
  /// The three components together (the unused z one in 2D), as prepare() takes them.
  std::array<Field, 3>& velocity() { return m_u; }
  const std::array<Field, 3>& velocity() const { return m_u; }
  const Field& pressure() const { return m_p; }

  /// Imposes the boundary conditions on the current velocity and projects it onto divergence-free
  /// fields: call after setting an initial condition. Collective.
  void project_initial();
  /// One step of size dt [s] with the scheme of the parameters. With `tape`, also copies the
  /// states the step's adjoint needs into it (allocating its fields on first use). Collective.
  void step(double dt, StepTape* tape = nullptr);
  /// Boundary faces, halo exchange and ghosts of `u`: everything the stencils read, with the
  /// boundary velocities of boundary_time(). Collective.
  void prepare(std::array<Field, 3>& u);
  /// The time [s] at which prepare() evaluates the boundary velocities' control signals
  /// (BoundarySet::amplitudes): step() sets each stage's and leaves time(); the adjoint sets
  /// those of the stages it recomputes. Not collective.
  void set_boundary_time(double t) { m_boundary_time = t; }
  double boundary_time() const { return m_boundary_time; }
  /// The time [s] at which euler_combination() and imex_right_hand_side() evaluate the body
  /// force's control signal: set by step() for each stage, and by the adjoint for those it
  /// recomputes. Not collective.
  void set_force_time(double t) { m_force_time = t; }
  double force_time() const { return m_force_time; }
  /// With a feedback policy: the readings of its sensors in a prepared velocity (every
  /// component at each sensor's point, in order) [m/s]. Collective.
  std::vector<double> read_sensors(const std::array<Field, 3>& u) const {
    return m_sensors.read(m_domain.comm(), u);
  }
  const VelocitySensors& sensors() const { return m_sensors; }
  /// With a feedback policy: pi(s), the amplitudes of the actuators over their scales, that
  /// the target holds through a step. step() sets them from the step's start; the adjoint sets
  /// those of the step it reverses. Not collective.
  void set_feedback(std::vector<double> a) { m_feedback = std::move(a); }
  const std::vector<double>& feedback() const { return m_feedback; }
  /// A_k of actuator k [rad/s or m/s]: scale_k times the policy's feedback()[k] (that of the
  /// last step), or times its signal at boundary_time(). Not collective.
  double actuator_amplitude(std::size_t k) const {
    const Actuator& a = m_params.actuators.at(k);
    return m_params.policy.active() ? a.scale * m_feedback.at(k) : a.amplitude(m_boundary_time);
  }
  /// The body force of component c at force_time() [m/s^2]. Not collective.
  double body_force(int c) const {
    return m_params.body_force[c] * m_params.body_force_signal.value(m_force_time);
  }
  /// out := a * u0 + b * (us + dt * R(us)) on the free faces; prescribed faces keep their values.
  /// With obstacles the Euler step is penalised implicitly, and `force_weight` times the force
  /// it exerts is added to forces(). `us` must be prepared. With a = 0, b = 1 and
  /// force_weight = 0, `out` gets the penalised Euler step alone (no force sums, no
  /// communication; what the adjoint recomputes). Collective.
  void euler_combination(double a, const std::array<Field, 3>& u0, double b,
                         const std::array<Field, 3>& us, double dt, std::array<Field, 3>& out,
                         double force_weight);
  /// Projects `u` onto divergence-free fields; returns the potential psi = scale * p in m_psi,
  /// scale being the stage's weight times dt (0 when unknown: no rescaled initial guess).
  /// Collective.
  void project(std::array<Field, 3>& u, double scale);

  /// RK3-CN, substep k: rhs := w + dt [gamma N(w) + zeta N(w_previous) + alpha nu L w + 2 alpha
  /// f] - 2 alpha dt G p on the free faces (on convective outflow faces the explicit outflow
  /// rule instead of the bracket). `w` and `w_previous` must be prepared; w_previous may be null
  /// where zeta = 0; p is the pressure at the substep's start (its ghosts are filled here).
  /// rhs must be other fields than w and w_previous (Error otherwise). Collective.
  void imex_right_hand_side(int k, const std::array<Field, 3>& w,
                            const std::array<Field, 3>* w_previous, Field& p, double dt,
                            std::array<Field, 3>& rhs);
  /// RK3-CN, substep k: solves H u* = rhs on the free faces, H = (1 + 2 alpha dt chi / eta) -
  /// alpha dt nu L with the boundary values of prepare(), from the initial guess `guess` (the
  /// substep's velocity w_k: its residual is 2 alpha dt du/dt, which vanishes as the flow
  /// settles, where the right-hand side's is alpha dt nu L w_k); `out` gets u* (its ghosts are
  /// not updated). Returns the BiCGStab iterations; throws CollectiveError if the solve fails.
  /// Collective.
  int viscous_solve(int k, double dt, const std::array<Field, 3>& rhs,
                    const std::array<Field, 3>& guess, std::array<Field, 3>& out);
  /// y := H x on the free faces (substep k) for a prepared x; y must be other fields than x
  /// (Error otherwise). Not collective.
  void apply_helmholtz(int k, double dt, const std::array<Field, 3>& x, std::array<Field, 3>& y);
  /// The Jacobi preconditioner of H (substep k): 1 / its interior diagonal, on the free faces.
  /// Not collective.
  const std::array<Field, 3>& helmholtz_inverse_diagonal(int k, double dt);
  /// prepare() with every boundary value zero: the homogeneous (linear) part of the boundary
  /// conditions and the halo exchange. Collective.
  void prepare_homogeneous(std::array<Field, 3>& u);
  /// Sets the boundary values of `u` by `face_rules`, fills the halo, then the ghosts by
  /// `ghost_rules` (prepare and prepare_homogeneous).
  void apply_boundary_rules(std::array<Field, 3>& u, const std::vector<BoundaryRule>& face_rules,
                            const std::vector<BoundaryRule>& ghost_rules);
  /// The convective outflow faces of component c on this rank (found once, in the constructor).
  const std::vector<ConvectiveFace>& convective_faces(int c) const { return m_convective[c]; }

  /// `cfl` times the linear stability limit of the scheme for the current velocity: advection
  /// (sqrt(3), both schemes) and, for SSP-RK3, diffusion (2.5), whichever is tighter. Collective.
  double stable_dt(double cfl) const;
  double time() const { return m_time; }
  long steps() const { return m_steps; }

  /// Everything that determines the next steps, as named fields: the velocity ("u", "v", "w" on
  /// the MAC faces), the projection potential "psi" (the next pressure solve's initial guess, so
  /// that a restarted run repeats the same iterations) and the pressure "p". With time(),
  /// steps() and psi_scale() they make a restart bitwise exact. Not collective.
  std::vector<std::pair<std::string, Field*>> state_fields();
  double psi_scale() const { return m_psi_scale; }
  /// Sets the clock after state_fields() were loaded from a restart. Not collective.
  void restore_clock(double time, long steps, double psi_scale);
  /// "cg + hypre": the pressure solver's method after options. Not collective.
  std::string pressure_method() const { return m_poisson.method(); }
  /// Force of the fluid on each obstacle over the last step, per unit density [m^4/s^2 in 3D,
  /// m^3/s^2 per unit span in 2D]: the momentum the penalty removed, with the SSP-RK3 weights of
  /// the stages (1/6, 1/6, 2/3).
  const std::vector<std::array<double, 3>>& forces() const { return m_forces; }
  /// The actuators' target velocity U on the faces of component c at boundary_time() (owned
  /// faces; empty without actuators): what the last penalised step drove the bodies towards.
  const Field& target(int c) const { return m_target[c]; }
  /// Pattern G of actuator k on the faces of component c (every local face).
  const Field& actuator_pattern(std::size_t k, int c) const { return m_patterns[k][c]; }
  /// Sets target() to sum_k A_k(t) G_k at t = boundary_time(), A_k = scale_k feedback()[k]
  /// with a feedback policy. Not collective.
  void update_target();
  /// With a feedback policy: feedback() := pi(read_sensors(velocity())), the velocity being
  /// prepared. Collective.
  void update_feedback();
  /// Mask of obstacle k on the faces of component c (1 inside, 0 outside).
  const Field& mask(int k, int c) const { return m_masks[k][c]; }
  /// Pressure solver iterations of the last step, summed over its three stages.
  int poisson_iterations() const { return m_poisson_iterations; }
  /// Implicit viscous solver (BiCGStab) iterations of the last step, summed over its substeps
  /// (0 with SSP-RK3).
  int viscous_iterations() const { return m_viscous_iterations; }
  Timers& timers() { return m_timers; }
  /// The faces of component c that the momentum equation updates (owned, minus faces whose
  /// normal velocity a boundary prescribes), in local indices.
  const IndexSpace& free_faces(int c) const { return m_free[c]; }
  HaloPlan& cell_halo() { return *m_cell_halo; }
  /// The penalty mask chi = 1 - (1 - design) prod_k (1 - mask_k) on the faces of component c
  /// (owned and halo faces); empty without obstacles and design field.
  const Field& total_mask(int c) const { return m_total_mask[c]; }
  /// The design field on the owned faces of component c (mean of the two cells); empty without.
  const Field& design_face(int c) const { return m_design_face[c]; }
  std::size_t obstacle_count() const { return m_masks.size(); }
  /// True if the flow is penalised anywhere: obstacles or a design field.
  bool penalised() const { return m_penalised_flow; }
  /// The potential psi of the last projection (owned cells and ghosts).
  const Field& potential() const { return m_psi; }
  /// Fills the ghosts of a cell potential or pressure as the projection's gradient reads them:
  /// the halo, and at outflow faces p = 0 on the face (ghost = -inner). Collective.
  void potential_ghosts(Field& psi);
  /// A new zeroed velocity-shaped triple (component c on faces normal to c, ghost width 1).
  /// Not collective.
  std::array<Field, 3> make_velocity(const std::string& name) const;
  const Domain& domain() const { return m_domain; }
  const NavierStokesParams& params() const { return m_params; }
  /// The grid spacing as the operators read it (uniform or stretched axes), for the fields of
  /// this solver (ghost width 1). Not collective.
  const GridSpacing& spacing() const { return m_spacing; }

 private:
  // The adjoint step transposes the forward step's pieces with its own halo plans, pressure
  // solver and penalisation: internals no other code needs.
  friend class NavierStokesAdjoint;
  HaloPlan& velocity_halo(int c) { return *m_velocity_halo[c]; }
  linear::PressurePoisson& poisson() { return m_poisson; }
  void step_ssp_rk3(double dt, StepTape* tape);
  void step_rk3_crank_nicolson(double dt, StepTape* tape);
  /// imex_right_hand_side() inside step_rk3_crank_nicolson: substep k keeps N(w) for substep
  /// k + 1 in m_previous_tendency and reads the one of substep k - 1 from there.
  void imex_right_hand_side(int k, const std::array<Field, 3>& w,
                            const std::array<Field, 3>* w_previous, Field& p, double dt,
                            std::array<Field, 3>& rhs, bool reuse_tendency);
  /// The linear part of the Krylov solves, created on first use.
  linear::FieldBiCGStab& krylov();

  const Domain& m_domain;
  NavierStokesParams m_params;
  GridSpacing m_spacing;
  /// What prepare() sets: normal faces before the halo exchange, ghosts after it.
  std::vector<BoundaryRule> m_face_rules, m_ghost_rules;
  /// The same with every value zero (prepare_homogeneous).
  std::vector<BoundaryRule> m_face_rules_zero, m_ghost_rules_zero;
  std::array<Field, 3> m_u, m_stage1, m_stage2;
  Field m_p, m_psi, m_div;
  double m_psi_scale = 0.0; ///< scale of the psi in m_psi (see project)
  std::array<std::unique_ptr<HaloPlan>, 3> m_velocity_halo;
  std::unique_ptr<HaloPlan> m_cell_halo;
  std::array<IndexSpace, 3> m_free; ///< faces the momentum equation updates, per component
  /// The convective outflow faces on this rank, per component (convective_faces).
  std::array<std::vector<ConvectiveFace>, 3> m_convective;
  std::vector<std::array<Field, 3>> m_masks;    ///< per obstacle and component
  std::array<Field, 3> m_total_mask;            ///< chi, the union of the masks and the design
  std::array<Field, 3> m_design_face;           ///< the design field on the faces
  std::array<Field, 3> m_penalised;             ///< penalised Euler step of the current stage
  std::vector<std::array<Field, 3>> m_patterns; ///< per actuator and component
  std::array<Field, 3> m_target;                ///< the actuators' target velocity
  VelocitySensors m_sensors;                    ///< the feedback policy's
  std::vector<double> m_feedback;               ///< pi(s) of the step (feedback())
  std::array<Field, 3> m_outflow_scratch;       ///< convective outflow values of the current stage
  std::vector<std::array<double, 3>> m_forces;
  bool m_penalised_flow = false;
  linear::PressurePoisson m_poisson;
  double m_time = 0;
  double m_boundary_time = 0; ///< see set_boundary_time
  double m_force_time = 0;    ///< see set_force_time
  long m_steps = 0;
  int m_poisson_iterations = 0;
  int m_viscous_iterations = 0;
  /// RK3-CN: right-hand side, residual, correction and preconditioner of the viscous solves.
  std::array<Field, 3> m_rhs, m_viscous_residual, m_viscous_delta, m_inverse_diagonal;
  /// RK3-CN within one forward step: N(w_k) of the substep before, which the next substep's
  /// zeta term reads instead of evaluating it again (the same values, bitwise).
  std::array<Field, 3> m_previous_tendency;
  std::unique_ptr<linear::FieldBiCGStab> m_krylov;
  Timers m_timers;
};

/// dst := src (ghosts included), allocating dst like src where it has no storage (a tape's
/// fields on first use). Not collective.
void keep_copy(const Domain& domain, const std::array<Field, 3>& src, std::array<Field, 3>& dst);
/// The same for one field. Not collective.
void keep_copy(const Field& src, Field& dst);

/// Sum over `space` of mask * u, each term times its face's control volume on a stretched grid
/// (on a uniform grid the caller multiplies by the one volume) [the unit of u, times m^dim on a
/// stretched grid]. With `target`, of mask * (u - target). Local: not collective.
double masked_sum(const IndexSpace& space, const Field& mask, const FieldView& u, int dim,
                  const FieldView& target = FieldView());
/// What masked_sum's caller multiplies it by: the volume of every face's control volume on a
/// uniform grid [m^dim], 1 on a stretched one (whose volumes masked_sum takes). Not collective.
double masked_sum_weight(const Domain& domain);

/// A velocity field given as a function: component c at (x, y, z) and time t [m/s].
using VelocityFunction = std::function<double(int c, double x, double y, double z, double t)>;

/// Sets the velocity of `ns` to f(., t) at the owned face centres (on the host). Not collective.
void set_velocity(NavierStokes& ns, const VelocityFunction& f, double t);

/// RMS and max over owned faces of every component of u - f(., t). Collective.
std::pair<double, double> velocity_error(const NavierStokes& ns, const VelocityFunction& f,
                                         double t);

} // namespace navier_stokes
} // namespace undertow
