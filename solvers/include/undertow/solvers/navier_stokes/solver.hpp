#pragma once
/// \file
/// Incompressible Navier-Stokes on the staggered (MAC) grid, 2D or 3D, decomposed over MPI:
///
///   du/dt + div(u u) = -grad p + nu lap u + f,   div u = 0.
///
/// Time integration: three-stage SSP Runge-Kutta (Shu-Osher form). Every stage is a convex
/// combination of the previous stage and an explicit Euler step, and is projected onto
/// divergence-free fields: solve L psi = D w with the PETSc pressure Poisson solver, then
/// w -= G psi. Because projection is linear and fixes divergence-free fields with the same boundary
/// values, projecting each combination equals combining projected Euler steps. The pressure is
/// psi / (2/3 dt) from the last stage. With L = D G exactly, div u is zero to the solver tolerance.
///
/// NavierStokes holds the state and takes steps; what is measured of a flow (divergence,
/// energies, Courant number, cell fields for output) is in diagnostics.hpp.

#include "undertow/core/field.hpp"
#include "undertow/core/halo.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/linear/pressure_poisson.hpp"
#include "undertow/solvers/navier_stokes/boundary.hpp"
#include "undertow/solvers/navier_stokes/obstacles.hpp"
#include "undertow/solvers/navier_stokes/operators.hpp"

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
  double time = 0; ///< t at the start of the step [s]
  double dt = 0;   ///< [s]
  std::vector<std::array<double, 3>> forces;
};

/// One stage of SSP-RK3 (Shu & Osher 1988) as the step takes it, and its adjoint transposes it:
/// stage s is the projection of a u_n + b E(w), E the (penalised) explicit Euler step and w the
/// previous stage (u_n for the first); its projection potential is scaled by b dt, and the forces
/// of its Euler step enter the step's forces with `force_weight`, the stage's weight in the final
/// combination.
struct RungeKuttaStage {
  double a, b, force_weight;
};
/// The three stages, the one table of the forward step (solver.cpp) and its adjoint (adjoint.cpp).
constexpr RungeKuttaStage kSspRk3[3] = {
    {0.0, 1.0, 1.0 / 6.0}, {0.75, 0.25, 1.0 / 6.0}, {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0}};

struct NavierStokesParams {
  double nu = 1e-2;                          ///< kinematic viscosity [m^2/s]
  std::array<double, 3> body_force{0, 0, 0}; ///< uniform body force per unit mass [m/s^2]
  BoundarySet boundaries;
  ObstacleSet obstacles;        ///< Brinkman-penalised bodies (may be empty)
  linear::PoissonSpec pressure; ///< faces are set from `boundaries`
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
  /// One SSP-RK3 step of size dt [s]. With `tape`, also copies the states the step's adjoint
  /// needs into it (allocating its fields on first use). Collective.
  void step(double dt, StepTape* tape = nullptr);
  /// Boundary faces, halo exchange and ghosts of `u`: everything the stencils read. Collective.
  void prepare(std::array<Field, 3>& u);
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

  /// `cfl` times the linear stability limit of SSP-RK3 for the current velocity (advection,
  /// sqrt(3)) and the viscosity (diffusion, 2.5), whichever is tighter. Collective.
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
  /// Mask of obstacle k on the faces of component c (1 inside, 0 outside).
  const Field& mask(int k, int c) const { return m_masks[k][c]; }
  /// Pressure solver iterations of the last step, summed over its three stages.
  int poisson_iterations() const { return m_poisson_iterations; }
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
  /// A new zeroed velocity-shaped triple (component c on faces normal to c, ghost width 1).
  /// Not collective.
  std::array<Field, 3> make_velocity(const std::string& name) const;
  const Domain& domain() const { return m_domain; }
  const NavierStokesParams& params() const { return m_params; }

 private:
  // The adjoint step transposes the forward step's pieces with its own halo plans, pressure
  // solver and penalisation: internals no other code needs.
  friend class NavierStokesAdjoint;
  HaloPlan& velocity_halo(int c) { return *m_velocity_halo[c]; }
  linear::PressurePoisson& poisson() { return m_poisson; }

  const Domain& m_domain;
  NavierStokesParams m_params;
  /// What prepare() sets: normal faces before the halo exchange, ghosts after it.
  std::vector<BoundaryRule> m_face_rules, m_ghost_rules;
  std::array<Field, 3> m_u, m_stage1, m_stage2;
  Field m_p, m_psi, m_div;
  double m_psi_scale = 0.0; ///< scale of the psi in m_psi (see project)
  std::array<std::unique_ptr<HaloPlan>, 3> m_velocity_halo;
  std::unique_ptr<HaloPlan> m_cell_halo;
  std::array<IndexSpace, 3> m_free;          ///< faces the momentum equation updates, per component
  std::vector<std::array<Field, 3>> m_masks; ///< per obstacle and component
  std::array<Field, 3> m_total_mask;         ///< chi, the union of the masks and the design
  std::array<Field, 3> m_design_face;        ///< the design field on the faces
  std::array<Field, 3> m_penalised;          ///< penalised Euler step of the current stage
  std::array<Field, 3> m_outflow_scratch;    ///< convective outflow values of the current stage
  std::vector<std::array<double, 3>> m_forces;
  bool m_penalised_flow = false;
  linear::PressurePoisson m_poisson;
  double m_time = 0;
  long m_steps = 0;
  int m_poisson_iterations = 0;
  Timers m_timers;
};

/// A velocity field given as a function: component c at (x, y, z) and time t [m/s].
using VelocityFunction = std::function<double(int c, double x, double y, double z, double t)>;

/// Sets the velocity of `ns` to f(., t) at the owned face centres (on the host). Not collective.
void set_velocity(NavierStokes& ns, const VelocityFunction& f, double t);

/// RMS and max over owned faces of every component of u - f(., t). Collective.
std::pair<double, double> velocity_error(const NavierStokes& ns, const VelocityFunction& f,
                                         double t);

} // namespace navier_stokes
} // namespace undertow
