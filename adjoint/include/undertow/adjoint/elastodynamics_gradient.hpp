#pragma once
/// \file
/// Gradients of elastodynamic objectives through the whole Newmark time loop (docs/elasticity.md,
/// "Dynamic adjoint"), driven by the physics-neutral reverse sweep (sweep.hpp) with any
/// checkpointing schedule. The objective is a misfit of displacement histories at sensor nodes,
///
///   J = 1/2 sum_n dt_n sum_s (u_s(t_{n+1}) - d_{n,s})^2      [m^2 s],
///
/// the inverse problem of identifying material fields from measured motion. The adjoint of one
/// step (dynamics.hpp's predictor, solve and corrector), with (u', v', a')-bar the adjoint of the
/// state after it:
///
///   A mu = a'bar + beta dt^2 u'bar + gamma dt v'bar          (homogeneous supports)
///   u~bar = u'bar - K mu,   v~bar = v'bar - C mu
///   ubar = u~bar,  vbar = dt u~bar + v~bar,  abar = (1/2 - beta) dt^2 u~bar + (1 - gamma) dt v~bar
///
/// and mu is the multiplier of the step's equation M a' + C v' + K u' = g(t') f, so that
/// dJ/dp = -mu . dR/dp summed over the steps: dJ/dE_e = -mu_e^T k0 (u' + beta_R v')_e,
/// dJ/df = g(t') mu, dJ/drho_m = -mu . M (a' + alpha v') / rho_m, dJ/dalpha = -mu . M v',
/// dJ/dbeta_R = -mu . K v'; the start M a_0 = g(0) f adds its own multiplier M mu_0 = abar_0.

#include "undertow/adjoint/sweep.hpp"
#include "undertow/solvers/elasticity/dynamics.hpp"

#include <array>
#include <vector>

namespace undertow {
namespace adjoint {

/// A displacement sensor: component `component` (0 = x) at the node nearest `point` [m].
struct Sensor {
  std::array<double, 3> point{0, 0, 0};
  int component = 0;
};

/// Sensors and what they measured: measured[n][s] is sensor s after step n + 1 [m].
struct DisplacementMisfit {
  std::vector<Sensor> sensors;
  std::vector<std::vector<double>> measured;
};

/// The sensors' readings after every step of a forward run from rest with `solver`'s current
/// parameters: synthetic measurements (measured[n][s]). Throws ConfigError for a sensor that is
/// not on a node. Collective.
std::vector<std::vector<double>> record_sensors(elasticity::LinearElasticity& solver,
                                                const elasticity::NewmarkSettings& settings,
                                                const std::vector<Sensor>& sensors,
                                                const std::vector<double>& dts);

/// J for `solver`'s current parameters over the steps `dts` [s] (forward run only). Collective.
double dynamic_objective(elasticity::LinearElasticity& solver,
                         const elasticity::NewmarkSettings& settings,
                         const DisplacementMisfit& misfit, const std::vector<double>& dts);

/// dJ per parameter, and what the sweep did.
struct DynamicGradient : SweepStats {
  Field density;                 ///< dJ/drho_e per element (owned cells), through SIMP
  double youngs_modulus = 0;     ///< dJ/dE0 [J-units per Pa]
  elasticity::NodeVector load;   ///< dJ/df per node and component (owned values) [per N]
  double mass_density = 0;       ///< dJ/drho_m [per kg/m^3]
  double rayleigh_mass = 0;      ///< dJ/dalpha [per 1/s]
  double rayleigh_stiffness = 0; ///< dJ/dbeta_R [per s]
};

/// J and dJ/dm for `solver`'s current parameters, by the reverse sweep with `checkpointing`
/// (checkpoints hold u, v, a and the clock), printing progress through `log` every
/// `progress_every` steps. Collective.
DynamicGradient dynamic_gradient(elasticity::LinearElasticity& solver,
                                 const elasticity::NewmarkSettings& settings,
                                 const DisplacementMisfit& misfit, const std::vector<double>& dts,
                                 const Checkpointing& checkpointing, const Log& log,
                                 long progress_every);

// The adjoint of one Newmark step lives beside Newmark (solvers/elasticity/dynamics.hpp).
using elasticity::NewmarkAdjoint;

} // namespace adjoint
} // namespace undertow
