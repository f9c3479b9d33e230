#pragma once
/// \file
/// Passive-scalar advection-diffusion, dc/dt + div(u c) = kappa lap c, with a given uniform
/// velocity, on a decomposed box: cell-centred second-order finite volumes (see
/// advection_diffusion_terms.hpp), three-stage SSP Runge-Kutta in time, periodic axes or Dirichlet
/// walls whose data is the exact Fourier-mode solution (fourier_mode.hpp).

#include "undertow/core/config.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/grid_spacing.hpp"
#include "undertow/core/halo.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/scalar/fourier_mode.hpp"

#include <array>
#include <memory>

namespace undertow {
namespace scalar {

struct AdvectionDiffusionParams {
  double kappa = 0.01;                           ///< diffusivity [length^2/time]
  std::array<double, 3> velocity{1.0, 0.0, 0.0}; ///< uniform velocity [length/time]
  std::array<long, 3> mode{1, 1, 0};             ///< initial mode: periods per box length
  double amplitude = 1.0;                        ///< initial amplitude [scalar unit]

  /// Declares the [advdiff] keys. Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// Reads them; throws ConfigError naming the key on inconsistency with `dim`.
  static AdvectionDiffusionParams from_config(const Config& config, int dim);
};

/// Discrete error against the exact solution at the current time.
struct ErrorNorms {
  double l2 = 0;   ///< root mean square over cells
  double linf = 0; ///< maximum over cells
};

class AdvectionDiffusion {
 public:
  /// Allocates the fields and halo plan. Not collective.
  AdvectionDiffusion(const Domain& domain, const AdvectionDiffusionParams& params);

  /// Sets c to the exact solution at time `t0` (cell-centre values). Not collective.
  void initialise(double t0);
  /// Advances one SSP-RK3 step of size `dt` [time]. Collective (halo exchanges).
  void step(double dt);

  /// Largest stable dt times `cfl` (cfl = 1 is the linear stability limit of SSP-RK3 for central
  /// advection, sqrt(3), or diffusion, about 2.5, whichever is tighter). Not collective.
  double stable_dt(double cfl) const;
  /// Advective Courant number dt * sum_d |u_d| / h_d. Not collective.
  double courant(double dt) const;
  /// Error against the exact solution at time(). Collective.
  ErrorNorms error() const;
  /// max |c| over the domain; NaN if any value is NaN. Collective.
  double max_abs() const;

  double time() const { return m_time; }
  long steps() const { return m_steps; }
  const Field& concentration() const { return m_c; }
  /// The state a restart file holds: the concentration (owned cells and ghosts) and the clock,
  /// set back with restore_clock() once the field is loaded. Not collective.
  Field& concentration() { return m_c; }
  void restore_clock(double time, long steps) {
    m_time = time;
    m_steps = steps;
  }
  const FourierMode& exact() const { return m_exact; }
  Timers& timers() { return m_timers; }

 private:
  /// rhs := L(c) at time t: fills the halo, sets wall ghosts, evaluates the flux divergence.
  void tendency(Field& c, double t, Field& rhs);
  void apply_dirichlet(Field& c, double t);

  const Domain& m_domain;
  FourierMode m_exact;
  Field m_c, m_stage1, m_stage2, m_rhs;
  std::array<Field, 3> m_face_velocity; ///< normal velocity on x-, y-, z-faces
  HaloPlan m_halo;
  GridSpacing m_spacing; ///< the cell widths and centre distances (stretched axes too)
  double m_time = 0;
  long m_steps = 0;
  Timers m_timers;
};

} // namespace scalar
} // namespace undertow
