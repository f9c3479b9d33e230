#pragma once
/// \file
/// The Navier-Stokes gradient driver: a forward run that records what the schedule asks for and
/// sums the objective, then the reverse sweep through the adjoint steps, then the chain rule to
/// every parameter (the sweep itself is physics-neutral: sweep.hpp). The time steps are given (the
/// forward run of the unperturbed parameters chooses them), so that J(m) is a smooth function of m:
/// a CFL-adaptive dt would make it only piecewise smooth.

#include "undertow/adjoint/navier_stokes_snapshot.hpp"
#include "undertow/adjoint/objective.hpp"
#include "undertow/adjoint/sweep.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/simulation.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace undertow {
namespace adjoint {

/// The parameters m: everything the forward run depends on that has a gradient.
struct Control {
  /// nu, body force, boundary velocities, shapes, the design field (flow.obstacles.design)
  navier_stokes::NavierStokesParams flow;
  Velocity3 initial; ///< the initial velocity before projection, on the owned faces [m/s]
  /// The rest of the solver's state at the start when it comes from a restart file (empty
  /// otherwise): its state fields other than the velocity (the pressure p, and psi, the last
  /// projection's potential, which seeds the next solve) by name, and psi's scale. They are data,
  /// not parameters: dJ/dm holds them fixed. Without them a run from a restart would start with
  /// p = 0, a transient of several steps in the forces that `run --restart` does not have.
  std::vector<std::pair<std::string, Field>> initial_state;
  double initial_psi_scale = 0;
};

/// dJ/dm, in the units of J per unit of each parameter, and what the sweep did.
struct Gradient : SweepStats {
  FlowGradient flow;
  /// Per obstacle, per entry of navier_stokes::shape_parameters(shape, dim).
  std::vector<std::vector<double>> shape;
  Velocity3 initial;     ///< dJ/du_initial on the owned faces (zero where boundaries prescribe u)
  Velocity3 chi;         ///< dJ/dchi, the sensitivity to the Brinkman mask on each face
  Field design;          ///< dJ/d(design field) per cell (empty without a design field)
  Timers reverse_timers; ///< phases of the adjoint steps (this rank)
};

/// Builds the objective of a run on the given solver (called once per forward run).
using ObjectiveBuilder = std::function<ObjectiveSum(navier_stokes::NavierStokes&)>;
/// Adds output callbacks (fields, diagnostics, restart files) to the Simulation of the forward
/// sweep of a gradient on the given solver (called once per gradient()).
using ForwardOutputs = std::function<void(Simulation&, navier_stokes::NavierStokes&)>;

/// The adjoint state after the adjoint of a step, for outputs of the reverse sweep (in-situ
/// visualisation): the forward solver (its parameters and grid; its state is not that of the
/// step), lambda (the adjoint velocity, on the faces) and dJ/dchi summed over the steps reversed
/// so far.
struct ReverseState {
  const navier_stokes::NavierStokes& ns;
  const Velocity3& lambda;
  const Velocity3& chi_gradient;
};
/// Called after the adjoint of each step, with the step k whose state the adjoint has reached
/// (from the last step down to 0) and its time [s]. Collective.
using ReverseOutputs = std::function<void(long k, double time, const ReverseState&)>;

class GradientDriver {
 public:
  /// `progress_every`: print a progress line every this many steps of each sweep (0: none).
  GradientDriver(const Domain& domain, ObjectiveBuilder objective, const Log& log,
                 long progress_every);

  /// The time steps of a forward run from t = 0 to t_end at fixed `dt` (> 0; the last one
  /// shortened to land on t_end), or at CFL number `cfl`, chosen by a forward run of m and then
  /// frozen. Collective.
  StepSizes choose_steps(const Control& m, double t_end, double dt, double cfl);
  /// J(m) over the given steps (forward run only). With `terms`, also each term's own value
  /// (without its weight; the lift and the drag of a ratio), from the same run. Collective.
  double objective(const Control& m, const StepSizes& dts, std::vector<double>* terms = nullptr);
  /// J(m) and dJ/dm (forward run with tapes, then the reverse sweep). With `weights`, the
  /// objective's terms are summed with these weights instead of the case's (a ratio's
  /// linearisation, or one term alone). Collective.
  Gradient gradient(const Control& m, const StepSizes& dts,
                    const std::vector<double>* weights = nullptr);
  const Domain& domain() const { return m_domain; }
  /// How gradient() keeps the forward states; store-all by default. Throws ConfigError for an
  /// impossible combination (Checkpointing::validate). Not collective.
  void set_checkpointing(const Checkpointing& c) {
    c.validate();
    m_checkpointing = c;
  }
  const Checkpointing& checkpointing() const { return m_checkpointing; }
  /// A progress line every `every` steps of each sweep of every later gradient() (0: none).
  /// Not collective.
  void set_progress_every(long every) { m_every = every; }
  /// Outputs of the forward sweep of every later gradient() (none by default). Not collective.
  void set_forward_outputs(ForwardOutputs outputs) { m_outputs = std::move(outputs); }
  /// Outputs of the reverse sweep of every later gradient() (none by default). Not collective.
  void set_reverse_outputs(ReverseOutputs outputs) { m_reverse = std::move(outputs); }
  /// A solver for m at t = 0 with the initial field set and projected: where every run of the
  /// driver starts. Collective.
  std::unique_ptr<navier_stokes::NavierStokes> start(const Control& m);

 private:
  const Domain& m_domain;
  ObjectiveBuilder m_objective;
  const Log& m_log;
  long m_every;
  Checkpointing m_checkpointing;
  ForwardOutputs m_outputs;
  ReverseOutputs m_reverse;
};

/// Shape gradients from dJ/dchi and dJ/dmask_k: dJ/dtheta = sum over faces of (dJ/dchi
/// dchi/dmask_k + dJ/dmask_k) dmask_k/dtheta, with dmask/dtheta exact (dual numbers).
/// Collective.
std::vector<std::vector<double>> shape_gradient(const navier_stokes::NavierStokes& ns,
                                                const NavierStokesAdjoint& adjoint);

/// The part of dJ/dnu that passes through the masks: with obstacles.mask = interpolated they
/// depend on nu (see navier_stokes::MaskKind); 0 otherwise. Collective.
double mask_viscosity_gradient(const navier_stokes::NavierStokes& ns,
                               const NavierStokesAdjoint& adjoint);

/// dJ/d(design) per cell from dJ/dchi: each face's chi holds the mean of its two cells.
/// Collective.
Field design_gradient(navier_stokes::NavierStokes& ns, const NavierStokesAdjoint& adjoint);

} // namespace adjoint
} // namespace undertow
