#pragma once
/// \file
/// The gradient driver: a forward run that records what the schedule asks for and sums the
/// objective, then the reverse sweep through the adjoint steps, then the chain rule to every
/// parameter. The time steps are given (the forward run of the unperturbed parameters chooses
/// them), so that J(m) is a smooth function of m: a CFL-adaptive dt would make it only piecewise
/// smooth.

#include "undertow/adjoint/checkpoint_store.hpp"
#include "undertow/adjoint/objective.hpp"
#include "undertow/adjoint/schedules.hpp"
#include "undertow/core/log.hpp"

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
};

/// dJ/dm, in the units of J per unit of each parameter.
struct Gradient {
  double objective = 0; ///< J
  FlowGradient flow;
  /// Per obstacle, per entry of navier_stokes::shape_parameters(shape, dim).
  std::vector<std::vector<double>> shape;
  Velocity3 initial; ///< dJ/du_initial on the owned faces (zero where boundaries prescribe u)
  Velocity3 chi;     ///< dJ/dchi, the sensitivity to the Brinkman mask on each face
  Field design;      ///< dJ/d(design field) per cell (empty without a design field)
  double forward_seconds = 0;   ///< first-time forward steps (taped or not)
  double recompute_seconds = 0; ///< forward steps taken again from checkpoints
  double reverse_seconds = 0;   ///< adjoint steps
  long recomputed_steps = 0;
  double tape_bytes = 0;       ///< largest memory the tapes held on one rank
  double checkpoint_bytes = 0; ///< largest memory the checkpoints held on one rank
  double io_seconds = 0;       ///< in the HDF5 checkpoint file (checkpoints and resume records)
  double bytes_written = 0, bytes_read = 0; ///< to and from it, by this rank
  long resumed_at = -1;             ///< the schedule action the run resumed after (-1: not resumed)
  long resume_recomputed_steps = 0; ///< forward steps taken again to rebuild lost checkpoints
  long poisson_iterations_forward = 0, poisson_iterations_reverse = 0;
  Timers reverse_timers; ///< phases of the adjoint steps (this rank)
};

/// How gradient() keeps the forward states for the reverse sweep (docs/checkpointing.md).
struct Checkpointing {
  enum class Schedule {
    All,       ///< every step's tape in memory
    Revolve,   ///< binomial checkpointing, ram_slots slots in memory
    Online,    ///< online revolve, ram_slots + disk_slots slots (the lowest numbers in memory)
    Multistage ///< binomial, ram_slots in memory and disk_slots on disk, placed by access counts
  } schedule = Schedule::All;
  int ram_slots = 0;  ///< checkpoints in memory (x_0's counts when it is in memory)
  int disk_slots = 0; ///< checkpoints in the HDF5 file
  /// The HDF5 file of the disk slots and of the resume records (needed with disk_slots > 0).
  /// It is removed after a successful gradient and kept when the run fails or is killed.
  std::string file;
  /// Wall-clock seconds between resume records of the reverse sweep (0: after every adjoint
  /// step). The forward sweep writes one after every checkpoint it saves on disk.
  double resume_every = 300;
  bool resume = false; ///< continue the killed run whose records `file` holds
  /// What a resumed run must share with the run it continues (a hash of the case's settings),
  /// stored in the file and checked on resume, with the number of steps.
  std::uint64_t signature = 0;
  /// Fault injection, for tests: throw Error after this many schedule actions (< 0: never), as a
  /// killed run would stop.
  long stop_after_actions = -1;
  int slots() const { return ram_slots + disk_slots; }
};

/// Builds the objective of a run on the given solver (called once per forward run).
using ObjectiveBuilder = std::function<ObjectiveSum(navier_stokes::NavierStokes&)>;

class GradientDriver {
 public:
  /// `progress_every`: print a progress line every this many steps of each sweep (0: none).
  GradientDriver(const Domain& domain, ObjectiveBuilder objective, const Log& log,
                 long progress_every);

  /// The time steps of a forward run from t = 0 to t_end at fixed `dt` (> 0; the last one
  /// shortened to land on t_end), or at CFL number `cfl`, chosen by a forward run of m and then
  /// frozen. Collective.
  std::vector<double> choose_steps(const Control& m, double t_end, double dt, double cfl);
  /// J(m) over the given steps (forward run only). Collective.
  double objective(const Control& m, const std::vector<double>& dts);
  /// J(m) and dJ/dm (forward run with tapes, then the reverse sweep). Collective.
  Gradient gradient(const Control& m, const std::vector<double>& dts);
  const Domain& domain() const { return m_domain; }
  /// How gradient() keeps the forward states; store-all by default. Throws ConfigError for an
  /// impossible combination (see Checkpointing). Not collective.
  void set_checkpointing(const Checkpointing& c);
  const Checkpointing& checkpointing() const { return m_checkpointing; }

 private:
  /// A solver for m with the initial field set and projected.
  std::unique_ptr<navier_stokes::NavierStokes> start(const Control& m);
  const Domain& m_domain;
  ObjectiveBuilder m_objective;
  const Log& m_log;
  long m_every;
  Checkpointing m_checkpointing;
};

/// Shape gradients from dJ/dchi and dJ/dmask_k: dJ/dtheta = sum over faces of (dJ/dchi
/// dchi/dmask_k + dJ/dmask_k) dmask_k/dtheta, with dmask/dtheta exact (dual numbers).
/// Collective.
std::vector<std::vector<double>> shape_gradient(const navier_stokes::NavierStokes& ns,
                                                const NavierStokesAdjoint& adjoint);

/// dJ/d(design) per cell from dJ/dchi: each face's chi holds the mean of its two cells.
/// Collective.
Field design_gradient(navier_stokes::NavierStokes& ns, const NavierStokesAdjoint& adjoint);

} // namespace adjoint
} // namespace undertow
