#pragma once
/// \file
/// Gradient-based shape optimisation with PETSc TAO (docs/optimization.md): bounded
/// quasi-Newton (TAOBLMVM) on the design variables of a ShapeDesign, and, with constraints, TAO's
/// augmented Lagrangian (TAOALMM, BLMVM as its subsolver). The constraints are
///   - the area held at its initial value, (A(x) - A0) / A0 = 0;
///   - flow constraints c_k(x) = 0 that each evaluation returns with their gradients (a lift
///     target: C_L(x) - C_L* = 0, one more adjoint sweep per design);
///   - a minimum thickness at stations, (t_j(x) - t_min) / t_min >= 0.
/// Each evaluation of J(x) and dJ/dx is a forward run and an adjoint sweep, supplied by the
/// caller.
///
/// Every rank runs the same small TAO problem (PETSC_COMM_SELF): J and dJ/dx come out of global
/// reductions, equal on every rank, so every rank takes the same decisions; the evaluations
/// inside are collective over the caller's communicator.
///
/// Evaluations are journalled (EvaluationJournal): a killed optimisation resumes by replaying TAO
/// from the start against the journal, which returns the recorded J and dJ/dx for the same x,
/// bit for bit, so it reaches the point where it stopped without flow solves and continues to the
/// same final design.

#include "undertow/core/communicator.hpp"
#include "undertow/core/log.hpp"
#include "undertow/optimisation/shape_design.hpp"

#include <functional>
#include <string>
#include <vector>

namespace undertow {
namespace optimisation {

struct OptimiserSettings {
  bool hold_area = false; ///< (A(x) - A(x0)) / A(x0) = 0 as a constraint (TAOALMM)
  /// Names of the equality constraints c_k(x) = 0 that each evaluation returns
  /// (Evaluation::constraints), e.g. "lift_deviation" (TAOALMM).
  std::vector<std::string> flow_constraints;
  double min_thickness = 0;               ///< > 0: thickness >= this [m] at each station (TAOALMM)
  std::vector<double> thickness_stations; ///< see ShapeDesign::thickness
  long max_iterations = 30;               ///< design iterations (TAO iterations of BLMVM)
  /// Stop at |projected dJ/dx| (of the Lagrangian) below this, every constraint's violation too.
  double gradient_tolerance = 1e-5;
  /// > 0: the first design step aims at a decrease of this fraction of |J(x0)|. TAO's BLMVM
  /// takes its first step along -dJ/dx with the length 2 |J| / |dJ/dx|, a step that predicts a
  /// decrease of 2 |J|: fine for a J that can fall to zero, but for a drag coefficient, which a
  /// control changes by a few percent, it lands on the bounds and the line search backtracks
  /// over several flow solves. TAO is given J - J(x0) + first_step_decrease |J(x0)| / 2, the
  /// same function up to a constant. 0: TAO's own first step. Bounds only: with constraints
  /// ShapeOptimiser::run refuses it (TAOALMM's first penalty depends on |J|).
  double first_step_decrease = 0;
  std::vector<double> lower, upper; ///< bounds of each variable
  std::string petsc_options;        ///< e.g. "-optimize_tao_almm_type classic"
  long stop_after_evaluations = -1; ///< fault injection: throw Error after this many (< 0: never)
  long fail_evaluation = -1;        ///< fault injection: evaluation number this (1-based) fails
};

/// The option names of `options` ("-name value ..."), each of which must carry TAO's prefix
/// -optimize_ so that no other solver sees it: OptimiserSettings::petsc_options, checked before
/// a run starts. Throws ConfigError naming one that does not, with its prefixed spelling. Not
/// collective.
std::vector<std::string> tao_option_names(const std::string& options);

/// One evaluation of J and dJ/dx at x (and of the flow constraints c_k and dc_k/dx).
struct Evaluation {
  std::vector<double> x;
  double objective = 0;
  std::vector<double> gradient;
  std::vector<double> constraints; ///< c_k(x), OptimiserSettings::flow_constraints
  std::vector<std::vector<double>> constraint_gradients; ///< dc_k/dx
  /// The flow solve diverged: TAO gets a large J with the last good design's gradient and
  /// constraints (ShapeOptimiser::evaluate), and backtracks.
  bool failed = false;
  std::string why; ///< the failure's message
};

/// The evaluations of an optimisation in a text file (exact hexadecimal floats), rewritten
/// atomically by rank 0 after each one.
class EvaluationJournal {
 public:
  /// `signature`: what a resumed run must share (the hash of the settings that decide the
  /// evaluations, and the rank count). `also_accepted`: signatures that load() accepts too,
  /// those that earlier versions wrote for the same settings (the file is rewritten with
  /// `signature` at the next record). Not collective.
  EvaluationJournal(const Communicator& comm, std::string path, std::string signature,
                    std::vector<std::string> also_accepted = {});
  /// Reads an existing journal for a resumed run. Throws ConfigError for a missing file or one
  /// of another case. Collective (rank 0 reads, all receive).
  void load();
  /// The recorded evaluation number `index` if its x equals `x` bit for bit; else nullptr (and
  /// the journal is not consulted again). Not collective.
  const Evaluation* replay(std::size_t index, const std::vector<double>& x);
  /// Appends and rewrites the file. Collective.
  void record(const Evaluation& e);
  std::size_t size() const { return m_entries.size(); }
  std::size_t replayed() const { return m_replayed; }

 private:
  const Communicator& m_comm;
  std::string m_path, m_signature;
  std::vector<std::string> m_also_accepted;
  std::vector<Evaluation> m_entries;
  std::size_t m_replayed = 0;
  bool m_replaying = true;
};

/// What the optimiser reports after each design iteration.
struct IterationRecord {
  long iteration = 0;        ///< 0: the initial design
  double objective = 0;      ///< J(x)
  double gradient_norm = 0;  ///< |dJ/dx| (of the Lagrangian, projected on the bounds)
  double area_violation = 0; ///< (A(x) - A0) / A0
  /// The largest violation of the constraints TAO holds: |c| of an equality, the shortfall
  /// max(0, -c) of an inequality (0 without constraints).
  double constraint_violation = 0;
  std::vector<double> flow_constraints; ///< c_k(x)
  double least_thickness = 0;           ///< min_j t_j(x) [m] (a thickness constraint)
  double step = 0;                      ///< the line search's step length
  long evaluations = 0; ///< flow solves (forward + adjoint) so far, replayed ones included
  double seconds = 0;   ///< wall time so far
  std::vector<double> x;
};

struct OptimiserResult {
  std::vector<double> x; ///< the final design
  double objective = 0;  ///< J there
  long iterations = 0;
  long evaluations = 0;
  long failed_evaluations = 0; ///< trial designs whose flow diverged
  std::string reason;          ///< TAO's converged reason, in words
  bool converged = false;
};

class ShapeOptimiser {
 public:
  /// J and dJ/dx at x; throws CollectiveError if the flow solve fails. Collective.
  using Evaluate = std::function<Evaluation(const std::vector<double>& x)>;
  /// Called after each design iteration (and for the initial design). Collective.
  using Monitor = std::function<void(const IterationRecord&)>;

  /// Throws ConfigError for bounds that exclude x0 or have the wrong size. Not collective.
  ShapeOptimiser(const Communicator& comm, const ShapeDesign& design, OptimiserSettings settings,
                 Evaluate evaluate, Monitor monitor, EvaluationJournal& journal, const Log& log);
  /// Runs TAO from x0. Throws ConfigError, before any evaluation, for an x0 outside the bounds
  /// or a bad optimize.petsc_options (unknown TAO type, an option TAO does not use); then calls
  /// `accepted` (if given: where a job commits its output folder), then optimises. Throws
  /// CollectiveError if TAO fails. Collective.
  OptimiserResult run(const std::vector<double>& x0, const std::function<void()>& accepted = {});

  // For TAO's callbacks (public so that they can be plain functions).
  /// J and dJ/dx at x, from the journal or by an evaluation. Collective.
  const Evaluation& evaluate(const std::vector<double>& x);
  /// Reports a design iteration at x. Collective.
  void iteration_done(const std::vector<double>& x, double gradient_norm, double step);
  /// The design iterations reached optimize.max_iterations.
  bool budget_spent() const { return m_iteration >= m_settings.max_iterations; }
  /// (A(x) - A0) / A0.
  double area_violation(const std::vector<double>& x) const;
  /// The equality constraints TAO holds at x: the area's, then the flow constraints; and their
  /// gradients (rows). Collective (an evaluation).
  std::vector<double> equality_constraints(const std::vector<double>& x);
  std::vector<std::vector<double>> equality_jacobian(const std::vector<double>& x);
  /// The inequality constraints (t_j(x) - t_min) / t_min >= 0 and their gradients. Not
  /// collective.
  std::vector<double> inequality_constraints(const std::vector<double>& x) const;
  std::vector<std::vector<double>> inequality_jacobian(const std::vector<double>& x) const;
  std::size_t equalities() const {
    return (m_settings.hold_area ? 1 : 0) + m_settings.flow_constraints.size();
  }
  std::size_t inequalities() const {
    return m_settings.min_thickness > 0 ? m_settings.thickness_stations.size() : 0;
  }

 private:
  const Communicator& m_comm;
  const ShapeDesign& m_design;
  OptimiserSettings m_settings;
  Evaluate m_evaluate;
  Monitor m_monitor;
  EvaluationJournal& m_journal;
  const Log& m_log;
  double m_area0 = 0;
  long m_evaluations = 0, m_failed = 0, m_iteration = -1;
  std::size_t m_journal_index = 0;
  double m_start = 0;
  std::vector<Evaluation> m_seen; ///< every evaluation of this run, for the monitor's lookups
  std::vector<double> m_last_reported;
};

} // namespace optimisation
} // namespace undertow
