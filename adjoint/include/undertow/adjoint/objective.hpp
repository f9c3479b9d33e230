#pragma once
/// \file
/// Objectives J of a Navier-Stokes run: sums over the steps of terms that depend on the state
/// after each step (velocity, forces of the step, pressure),
///
///   J = sum_n w_n j(u_{n+1}, F_n, psi_n),
///
/// with time weights w_n: 1 at the last step (an instantaneous objective) or dt_n / T inside a
/// window of length T (a time average). Each objective gives its value and its derivatives, which
/// the gradient driver feeds into the adjoint of the step as seeds. New objectives implement
/// Objective and register a factory with register_objective (docs/adjoint.md shows how).

#include "undertow/core/config.hpp"
#include "undertow/solvers/navier_stokes/adjoint.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace adjoint {

// The Navier-Stokes adjoint step lives beside its forward step (solvers/navier_stokes/adjoint.hpp);
// the objectives, the gradient driver and the parameters speak of its types.
using navier_stokes::FlowGradient;
using navier_stokes::ForceSeed;
using navier_stokes::NavierStokesAdjoint;
using navier_stokes::Velocity3;

/// The state after step n that an objective term sees.
struct StepState {
  long step = 0;                       ///< n + 1: steps taken
  double time = 0;                     ///< t_{n+1} [s]
  double dt = 0;                       ///< dt_n [s]
  bool last = false;                   ///< the last step of the run
  const Velocity3* velocity = nullptr; ///< u_{n+1}, boundary values and ghosts up to date
  const std::vector<std::array<double, 3>>* forces = nullptr; ///< F_n (NavierStokes::forces)
  const Field* pressure = nullptr; ///< p_{n+1} (NavierStokes::pressure; null in the reverse sweep)

  /// The state a forward solver has just reached with step number `step` of size `dt`, its
  /// prepared velocity being `prepared`. Not collective.
  static StepState after_step(const navier_stokes::NavierStokes& ns, long step, double dt,
                              bool last, const Velocity3& prepared) {
    StepState s;
    s.step = step;
    s.time = ns.time();
    s.dt = dt;
    s.last = last;
    s.velocity = &prepared;
    s.forces = &ns.forces();
    s.pressure = &ns.pressure();
    return s;
  }
};

/// Derivatives of one step's term: seeds for the adjoint of that step.
struct StepSeeds {
  Velocity3 velocity; ///< dJ/du_{n+1} (ghosts included; prepare_adjoint brings them home)
  ForceSeed force;    ///< dJ/dF_n
  Field pressure;     ///< dJ/dp_{n+1} on owned cells
  bool has_velocity = false, has_force = false, has_pressure = false;
};

/// One term j of an objective, without its time weight.
class Objective {
 public:
  virtual ~Objective() = default;
  /// "drag on obstacle 1": what it measures, for logs and reports. Not collective.
  virtual std::string describe() const = 0;
  /// j at this state. Collective.
  virtual double value(const StepState& state) = 0;
  /// Adds `weight` * dj/d(state) to the seeds. Collective.
  virtual void add_derivative(const StepState& state, double weight, StepSeeds& seeds) = 0;
};

/// When an objective term counts.
struct TimeWindow {
  bool average = false;      ///< false: the last step only; true: the mean over [start, end]
  double start = 0, end = 0; ///< [s]
  /// w_n for the step that reached `state`.
  double weight(const StepState& state) const;
};

/// A weighted sum of terms, each with the same time window.
class ObjectiveSum {
 public:
  explicit ObjectiveSum(TimeWindow window) : m_window(window) {}
  void add(double weight, std::unique_ptr<Objective> term);
  /// w_n sum_i c_i j_i(state): the contribution of this step. With `terms`, also adds each
  /// term's own contribution w_n j_i (without its weight c_i) to terms[i], resized to terms()
  /// if it is shorter. Collective.
  double value(const StepState& state, std::vector<double>* terms = nullptr);
  /// Its derivatives, into `seeds` (which it zeroes first). Collective.
  void derivative(const StepState& state, StepSeeds& seeds);
  std::string describe() const;
  const TimeWindow& window() const { return m_window; }
  std::size_t terms() const { return m_terms.size(); }
  /// Replaces the weights c_i (one per term; for objectives built from others, such as a ratio
  /// whose linearisation weights the terms by the values of the last forward run). Throws
  /// Error for a wrong count. Not collective.
  void set_weights(const std::vector<double>& weights);

 private:
  TimeWindow m_window;
  std::vector<std::pair<double, std::unique_ptr<Objective>>> m_terms;
};

// The built-in terms.
/// Force coefficient scale * F_axis of obstacle k (0-based); scale = 2 / (U^2 L).
std::unique_ptr<Objective> force_coefficient(int obstacle, int axis, double scale,
                                             const std::string& name);
/// 1/2 <|u|^2> [m^2/s^2].
std::unique_ptr<Objective> kinetic_energy(const Domain& domain);
/// 1/2 <|curl u|^2> [1/s^2].
std::unique_ptr<Objective> enstrophy(const Domain& domain);
/// p(x1) - p(x2) in the cells containing x1 and x2 [m^2/s^2].
std::unique_ptr<Objective> pressure_drop(const Domain& domain, std::array<double, 3> x1,
                                         std::array<double, 3> x2);
/// 1/2 <|u - u_target|^2> with the target on the MAC faces, read from `path` (datasets u, v, w).
/// Collective.
std::unique_ptr<Objective> velocity_misfit(navier_stokes::NavierStokes& ns,
                                           const std::string& path);
/// u_c at the centre of the cell containing x (the mean of its two faces along c) [m/s]: a
/// sensor, linear in u. Collective.
std::unique_ptr<Objective> probe_value(navier_stokes::NavierStokes& ns, std::array<double, 3> x,
                                       int component);
/// 1/2 (u_c at the cell containing x - d(t))^2, d interpolated linearly in (times, values).
std::unique_ptr<Objective> probe_misfit(navier_stokes::NavierStokes& ns, std::array<double, 3> x,
                                        int component, std::vector<double> times,
                                        std::vector<double> values);

/// What an objective factory gets: the case file, the solver and the coefficient scales.
struct ObjectiveContext {
  const Config& config;
  const std::string& case_file;
  navier_stokes::NavierStokes& ns;
};
using ObjectiveFactory = std::function<std::unique_ptr<Objective>(const ObjectiveContext&)>;

/// Registers a named objective term for `objective.terms` (case-specific extensions). Not
/// collective; call before building objectives.
void register_objective(const std::string& name, const std::string& description,
                        ObjectiveFactory factory);
/// Declares the [objective] keys. Not collective.
void declare_objective_keys(ConfigSchema& schema);
/// When the terms of a case's objective count: objective.time and objective.window (the whole
/// run for 0 0). Throws ConfigError for an empty window or one past time.t_end. Not collective.
TimeWindow objective_window(const Config& config);
/// The objective a case file describes in [objective]. Throws ConfigError naming the key.
/// Collective (it may read a target file).
ObjectiveSum make_objective(const ObjectiveContext& context);
/// Names and descriptions of every registered term.
std::vector<std::pair<std::string, std::string>> objective_names();

} // namespace adjoint
} // namespace undertow
