/// Shape optimisation with TAO (shape_optimiser.hpp).

#include "undertow/optimisation/shape_optimiser.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/files.hpp"
#include "undertow/solvers/linear/petsc_options.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <petsctao.h>
#include <sstream>

namespace undertow {
namespace optimisation {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::vector<double> to_vector(Vec v, std::size_t n) {
  const PetscScalar* a = nullptr;
  VecGetArrayRead(v, &a);
  std::vector<double> out(a, a + n);
  VecRestoreArrayRead(v, &a);
  return out;
}

void from_vector(const std::vector<double>& x, Vec v) {
  PetscScalar* a = nullptr;
  VecGetArray(v, &a);
  for (std::size_t i = 0; i < x.size(); ++i)
    a[i] = x[i];
  VecRestoreArray(v, &a);
}

/// What the callbacks share: the optimiser, and the first exception a callback caught (C++
/// exceptions must not unwind through PETSc's C frames).
struct Context {
  ShapeOptimiser* optimiser;
  std::size_t n;
  std::exception_ptr error;
  double first_step_decrease = 0; ///< OptimiserSettings::first_step_decrease
  std::optional<double> shift;    ///< TAO is given J - shift (set at the first evaluation, x0)
};

/// A callback of TAO: `f` does its work (exceptions kept for after TAO).
template <class F>
PetscErrorCode guarded(void* p, F&& f) {
  auto* c = static_cast<Context*>(p);
  try {
    f(*c);
  } catch (...) {
    c->error = std::current_exception();
    return PETSC_ERR_USER;
  }
  return 0;
}

/// TAO's default test, then a stop once the optimiser's budget of design iterations is spent
/// (the augmented Lagrangian counts its subproblems' iterations separately).
PetscErrorCode convergence_test(Tao tao, void* p) {
  const PetscErrorCode status = TaoDefaultConvergenceTest(tao, nullptr);
  if (status)
    return status;
  TaoConvergedReason reason;
  TaoGetConvergedReason(tao, &reason);
  if (reason == TAO_CONTINUE_ITERATING && static_cast<Context*>(p)->optimiser->budget_spent())
    TaoSetConvergedReason(tao, TAO_DIVERGED_MAXITS);
  return 0;
}

PetscErrorCode objective_and_gradient(Tao, Vec x, PetscReal* f, Vec g, void* p) {
  return guarded(p, [&](Context& c) {
    const Evaluation& e = c.optimiser->evaluate(to_vector(x, c.n));
    // TAO evaluates x0 first: J(x0) - shift = first_step_decrease |J(x0)| / 2.
    if (!c.shift)
      c.shift = c.first_step_decrease > 0
                    ? e.objective - 0.5 * c.first_step_decrease * std::abs(e.objective)
                    : 0.0;
    *f = e.objective - *c.shift;
    from_vector(e.gradient, g);
  });
}

void set_rows(const std::vector<std::vector<double>>& rows, Mat a) {
  for (std::size_t j = 0; j < rows.size(); ++j)
    for (std::size_t i = 0; i < rows[j].size(); ++i)
      MatSetValue(a, static_cast<PetscInt>(j), static_cast<PetscInt>(i), rows[j][i], INSERT_VALUES);
  MatAssemblyBegin(a, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(a, MAT_FINAL_ASSEMBLY);
}

PetscErrorCode tao_equality_constraints(Tao, Vec x, Vec ce, void* p) {
  return guarded(p, [&](Context& c) {
    from_vector(c.optimiser->equality_constraints(to_vector(x, c.n)), ce);
  });
}

PetscErrorCode tao_equality_jacobian(Tao, Vec x, Mat a, Mat, void* p) {
  return guarded(
      p, [&](Context& c) { set_rows(c.optimiser->equality_jacobian(to_vector(x, c.n)), a); });
}

PetscErrorCode tao_inequality_constraints(Tao, Vec x, Vec ci, void* p) {
  return guarded(p, [&](Context& c) {
    from_vector(c.optimiser->inequality_constraints(to_vector(x, c.n)), ci);
  });
}

PetscErrorCode tao_inequality_jacobian(Tao, Vec x, Mat a, Mat, void* p) {
  return guarded(
      p, [&](Context& c) { set_rows(c.optimiser->inequality_jacobian(to_vector(x, c.n)), a); });
}

PetscErrorCode monitor(Tao tao, void* p) {
  return guarded(p, [&](Context& c) {
    Vec x;
    TaoGetSolution(tao, &x);
    PetscInt its;
    PetscReal f, gnorm, cnorm, xdiff;
    TaoConvergedReason reason;
    TaoGetSolutionStatus(tao, &its, &f, &gnorm, &cnorm, &xdiff, &reason);
    TaoLineSearch ls;
    TaoGetLineSearch(tao, &ls);
    PetscReal step = 0;
    if (ls)
      TaoLineSearchGetStepLength(ls, &step);
    c.optimiser->iteration_done(to_vector(x, c.n), gnorm, its == 0 ? 0.0 : step);
  });
}

} // namespace

EvaluationJournal::EvaluationJournal(const Communicator& comm, std::string path,
                                     std::string signature, std::vector<std::string> also_accepted)
    : m_comm(comm), m_path(std::move(path)), m_signature(std::move(signature)),
      m_also_accepted(std::move(also_accepted)) {}

void EvaluationJournal::load() {
  std::string text, problem;
  run_on_root(m_comm, [&] {
    try {
      text = io::read_file(m_path);
    } catch (const std::exception& e) {
      problem = e.what();
    }
  });
  problem = m_comm.broadcast(problem);
  if (!problem.empty())
    throw ConfigError("--resume: cannot read the evaluation journal " + m_path + " (" + problem +
                      "); give the output directory of the optimisation to resume");
  text = m_comm.broadcast(text);
  std::istringstream in(text);
  std::string word, signature;
  in >> word >> signature;
  const bool accepted =
      signature == m_signature ||
      std::find(m_also_accepted.begin(), m_also_accepted.end(), signature) != m_also_accepted.end();
  if (word != "undertow-evaluations" || !accepted)
    throw ConfigError("--resume: " + m_path +
                      " belongs to another optimisation (another case, physical, objective or "
                      "design settings, rank count or --restart start; its signature is '" +
                      signature + "', this run's '" + m_signature +
                      "'); resume with the same case file and settings (the stopping test, "
                      "output and checkpoint settings may change), rank count and --restart "
                      "file");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    std::istringstream l(line);
    Evaluation e;
    std::size_t n = 0;
    int failed = 0;
    std::string token;
    l >> n;
    for (std::size_t i = 0; i < n && l >> token; ++i)
      e.x.push_back(std::strtod(token.c_str(), nullptr));
    l >> token;
    e.objective = std::strtod(token.c_str(), nullptr);
    for (std::size_t i = 0; i < n && l >> token; ++i)
      e.gradient.push_back(std::strtod(token.c_str(), nullptr));
    l >> failed;
    e.failed = failed != 0;
    std::size_t constraints = 0;
    l >> constraints;
    for (std::size_t k = 0; k < constraints && l >> token; ++k) {
      e.constraints.push_back(std::strtod(token.c_str(), nullptr));
      e.constraint_gradients.emplace_back();
      for (std::size_t i = 0; i < n && l >> token; ++i)
        e.constraint_gradients.back().push_back(std::strtod(token.c_str(), nullptr));
    }
    if (!l || e.x.size() != n || e.gradient.size() != n || e.constraints.size() != constraints ||
        (constraints > 0 && e.constraint_gradients.back().size() != n))
      throw ConfigError("--resume: " + m_path + " is damaged at evaluation " +
                        std::to_string(m_entries.size() + 1) +
                        "; remove the damaged lines at its end, or start afresh");
    m_entries.push_back(e);
  }
}

const Evaluation* EvaluationJournal::replay(std::size_t index, const std::vector<double>& x) {
  if (!m_replaying || index >= m_entries.size() || m_entries[index].x != x) {
    if (m_replaying) // the run left the journal here: what follows in it is not this run's
      m_entries.resize(std::min(m_entries.size(), m_replayed));
    m_replaying = false;
    return nullptr;
  }
  ++m_replayed;
  return &m_entries[index];
}

void EvaluationJournal::record(const Evaluation& e) {
  m_replaying = false;
  m_entries.push_back(e);
  std::string text = "undertow-evaluations " + m_signature + "\n";
  for (const Evaluation& x : m_entries) {
    text += std::to_string(x.x.size());
    for (double v : x.x)
      text += " " + hex(v);
    text += " " + hex(x.objective);
    for (double v : x.gradient)
      text += " " + hex(v);
    text += std::string(" ") + (x.failed ? "1" : "0");
    text += " " + std::to_string(x.constraints.size());
    for (std::size_t k = 0; k < x.constraints.size(); ++k) {
      text += " " + hex(x.constraints[k]);
      for (double v : x.constraint_gradients[k])
        text += " " + hex(v);
    }
    text += "\n";
  }
  run_on_root(m_comm, [&] { io::write_file_atomic(m_path, text); });
}

ShapeOptimiser::ShapeOptimiser(const Communicator& comm, const ShapeDesign& design,
                               OptimiserSettings settings, Evaluate evaluate, Monitor monitor,
                               EvaluationJournal& journal, const Log& log)
    : m_comm(comm), m_design(design), m_settings(std::move(settings)),
      m_evaluate(std::move(evaluate)), m_monitor(std::move(monitor)), m_journal(journal),
      m_log(log) {
  const std::size_t n = design.names().size();
  if (m_settings.lower.size() != n || m_settings.upper.size() != n)
    throw ConfigError("the design bounds need one lower and one upper value per design variable "
                      "(" +
                      std::to_string(n) + ")");
  if (m_settings.min_thickness > 0 && m_settings.thickness_stations.empty())
    throw ConfigError("a minimum thickness needs at least one station (design.thickness_stations)");
}

double ShapeOptimiser::area_violation(const std::vector<double>& x) const {
  return (m_design.area(x) - m_area0) / m_area0;
}

std::vector<double> ShapeOptimiser::equality_constraints(const std::vector<double>& x) {
  std::vector<double> c;
  if (m_settings.hold_area)
    c.push_back(area_violation(x));
  if (!m_settings.flow_constraints.empty()) {
    const Evaluation& e = evaluate(x);
    c.insert(c.end(), e.constraints.begin(), e.constraints.end());
  }
  return c;
}

std::vector<std::vector<double>> ShapeOptimiser::equality_jacobian(const std::vector<double>& x) {
  std::vector<std::vector<double>> rows;
  if (m_settings.hold_area) {
    rows.push_back(m_design.area_gradient(x));
    for (double& v : rows.back())
      v /= m_area0;
  }
  if (!m_settings.flow_constraints.empty()) {
    const Evaluation& e = evaluate(x);
    rows.insert(rows.end(), e.constraint_gradients.begin(), e.constraint_gradients.end());
  }
  return rows;
}

std::vector<double> ShapeOptimiser::inequality_constraints(const std::vector<double>& x) const {
  std::vector<double> c;
  if (inequalities() == 0)
    return c;
  const double t_min = m_settings.min_thickness;
  for (double t : m_design.thickness(x, m_settings.thickness_stations))
    c.push_back((t - t_min) / t_min);
  return c;
}

std::vector<std::vector<double>>
ShapeOptimiser::inequality_jacobian(const std::vector<double>& x) const {
  if (inequalities() == 0)
    return {};
  auto rows = m_design.thickness_gradient(x, m_settings.thickness_stations);
  for (auto& row : rows)
    for (double& v : row)
      v /= m_settings.min_thickness;
  return rows;
}

const Evaluation& ShapeOptimiser::evaluate(const std::vector<double>& x) {
  for (auto it = m_seen.rbegin(); it != m_seen.rend(); ++it)
    if (it->x == x)
      return *it; // TAO asked again for a point it has seen
  Evaluation e;
  if (const Evaluation* recorded = m_journal.replay(m_journal_index, x)) {
    e = *recorded;
  } else {
    if (m_settings.stop_after_evaluations >= 0 &&
        static_cast<long>(m_journal.size()) >= m_settings.stop_after_evaluations)
      throw Error("optimisation stopped after " + std::to_string(m_journal.size()) +
                  " evaluations (fault injection, optimize.stop_after_evaluations)");
    try {
      if (static_cast<long>(m_journal_index) + 1 == m_settings.fail_evaluation)
        throw CollectiveError("flow solve failed (fault injection, --fail-evaluation)");
      e = m_evaluate(x);
    } catch (const Stopped&) {
      throw; // a batch system's SIGTERM: the journal holds the finished evaluations
    } catch (const CollectiveError& err) {
      e = Evaluation{};
      e.x = x;
      e.gradient.assign(x.size(), 0.0);
      e.failed = true;
      e.why = err.what();
    }
    m_journal.record(e);
  }
  ++m_journal_index;
  ++m_evaluations;
  if (e.failed && m_evaluations == 1)
    throw CollectiveError("the initial design's flow solve failed, so there is nothing to "
                          "optimise from: " +
                          e.why + " (run the case with undertow run first)");
  if (e.failed) {
    ++m_failed;
    m_log.info("  trial design rejected, the line search backtracks: " +
               (e.why.empty() ? std::string("its flow solve failed") : e.why));
    // TAO sees a large finite J (More-Thuente stops at an infinite one) with the gradient and
    // constraints of the last design that ran: no sufficient decrease, so the line search
    // shortens the step.
    const Evaluation* good = nullptr;
    for (auto it = m_seen.rbegin(); it != m_seen.rend() && !good; ++it)
      if (!it->failed)
        good = &*it;
    e.objective = 1e6 * std::max(1.0, std::abs(good->objective));
    e.gradient = good->gradient;
    e.constraints = good->constraints;
    e.constraint_gradients = good->constraint_gradients;
  } else if (e.constraints.size() != m_settings.flow_constraints.size() ||
             e.constraint_gradients.size() != e.constraints.size()) {
    throw Error("ShapeOptimiser: the evaluation gave " + std::to_string(e.constraints.size()) +
                " flow constraints, the settings name " +
                std::to_string(m_settings.flow_constraints.size()));
  }
  m_seen.push_back(e);
  return m_seen.back();
}

void ShapeOptimiser::iteration_done(const std::vector<double>& x, double gradient_norm,
                                    double step) {
  if (x == m_last_reported)
    return; // a subproblem of the augmented Lagrangian starting where the last one ended
  m_last_reported = x;
  const Evaluation* e = nullptr;
  for (auto it = m_seen.rbegin(); it != m_seen.rend() && !e; ++it)
    if (it->x == x)
      e = &*it;
  IterationRecord r;
  r.iteration = ++m_iteration;
  r.objective = e ? e->objective : evaluate(x).objective;
  r.gradient_norm = gradient_norm;
  r.area_violation = area_violation(x);
  r.flow_constraints = e ? e->constraints : evaluate(x).constraints;
  if (m_settings.hold_area)
    r.constraint_violation = std::abs(r.area_violation);
  for (double c : r.flow_constraints)
    r.constraint_violation = std::max(r.constraint_violation, std::abs(c));
  if (inequalities() > 0) {
    const auto t = m_design.thickness(x, m_settings.thickness_stations);
    r.least_thickness = *std::min_element(t.begin(), t.end());
    const double t_min = m_settings.min_thickness;
    r.constraint_violation = std::max(r.constraint_violation, (t_min - r.least_thickness) / t_min);
  }
  r.step = step;
  r.evaluations = m_evaluations;
  r.seconds = now() - m_start;
  r.x = x;
  m_monitor(r);
}

std::vector<std::string> tao_option_names(const std::string& options) {
  const std::vector<std::string> names = linear::option_names("optimize.petsc_options", options);
  for (const std::string& word : names)
    if (word.rfind("-optimize_", 0) != 0)
      throw ConfigError("optimize.petsc_options: '" + word +
                        "' lacks the prefix of the optimiser's options: write -optimize_" +
                        word.substr(1));
  return names;
}

namespace {

using VecHandle = linear::PetscHandle<Vec, VecDestroy>;
using MatHandle = linear::PetscHandle<Mat, MatDestroy>;
using TaoHandle = linear::PetscHandle<Tao, TaoDestroy>;

/// A sequential vector holding `values`. Throws Error if PETSc fails. Not collective.
VecHandle make_vector(const std::vector<double>& values) {
  VecHandle v;
  linear::check_petsc(VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(values.size()), v.out()),
                      "VecCreateSeq");
  from_vector(values, v);
  return v;
}

/// The flow and geometry constraints of `optimiser` as TAO's equality and inequality routines,
/// with their vectors and Jacobians. Not collective.
void configure_constraints(const ShapeOptimiser& optimiser, std::size_t n, Tao tao, void* context,
                           VecHandle& ce, MatHandle& ae, VecHandle& ci, MatHandle& ai) {
  using linear::check_petsc;
  // Values and Jacobian of `m` constraints.
  const auto storage = [n](std::size_t m, VecHandle& c, MatHandle& a) {
    check_petsc(VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(m), c.out()), "VecCreateSeq");
    check_petsc(MatCreateSeqDense(PETSC_COMM_SELF, static_cast<PetscInt>(m),
                                  static_cast<PetscInt>(n), nullptr, a.out()),
                "MatCreateSeqDense");
  };
  if (optimiser.equalities() > 0) {
    storage(optimiser.equalities(), ce, ae);
    check_petsc(TaoSetEqualityConstraintsRoutine(tao, ce, tao_equality_constraints, context),
                "TaoSetEqualityConstraintsRoutine");
    check_petsc(TaoSetJacobianEqualityRoutine(tao, ae, ae, tao_equality_jacobian, context),
                "TaoSetJacobianEqualityRoutine");
  }
  if (optimiser.inequalities() > 0) {
    storage(optimiser.inequalities(), ci, ai);
    check_petsc(TaoSetInequalityConstraintsRoutine(tao, ci, tao_inequality_constraints, context),
                "TaoSetInequalityConstraintsRoutine");
    check_petsc(TaoSetJacobianInequalityRoutine(tao, ai, ai, tao_inequality_jacobian, context),
                "TaoSetJacobianInequalityRoutine");
  }
}

/// The augmented Lagrangian's settings, once `tao` is TAOALMM; returns its subsolver.
/// Powell-Hestenes-Rockafellar: no slack variables for the inequalities, and the first penalty
/// from |J| and the violations. (The classic formulation's BLMVM subproblems took 5-20 times the
/// evaluations on the problems of tests/mpi/test_shape_optimiser.cpp, with line searches that
/// failed after a multiplier update.) PHR holds the constraints to the gradient's tolerance.
/// Not collective (TAO runs on PETSC_COMM_SELF).
Tao configure_almm(Tao tao, const OptimiserSettings& settings) {
  using linear::check_petsc;
  Tao designer = nullptr;
  check_petsc(TaoSetConstraintTolerances(tao, settings.gradient_tolerance, 0),
              "TaoSetConstraintTolerances");
  check_petsc(TaoALMMSetType(tao, TAO_ALMM_PHR), "TaoALMMSetType");
  check_petsc(TaoALMMGetSubsolver(tao, &designer), "TaoALMMGetSubsolver");
  check_petsc(TaoSetType(designer, TAOBLMVM), "TaoSetType");
  check_petsc(TaoSetTolerances(designer, settings.gradient_tolerance, 0, 0), "TaoSetTolerances");
  check_petsc(TaoSetMaximumIterations(designer, static_cast<PetscInt>(settings.max_iterations)),
              "TaoSetMaximumIterations");
  return designer;
}

/// The gradient tolerance, the iteration limit and 20 evaluations per iteration. Not collective.
void set_limits(Tao tao, const OptimiserSettings& settings) {
  using linear::check_petsc;
  check_petsc(TaoSetTolerances(tao, settings.gradient_tolerance, 0, 0), "TaoSetTolerances");
  check_petsc(TaoSetMaximumIterations(tao, static_cast<PetscInt>(settings.max_iterations)),
              "TaoSetMaximumIterations");
  check_petsc(
      TaoSetMaximumFunctionEvaluations(tao, static_cast<PetscInt>(20 * settings.max_iterations)),
      "TaoSetMaximumFunctionEvaluations");
}

/// TaoSetFromOptions with optimize.petsc_options (`given`) in `options`. Throws ConfigError
/// naming the key if PETSc refuses an option, or if no part of TAO read one (misspelled, or not
/// for this method; -..._view options are read at the end and not checked). Not collective.
void set_from_options(Tao tao, const linear::SolverOptions& options, const std::string& given) {
  try {
    linear::check_petsc(TaoSetFromOptions(tao), "TaoSetFromOptions");
  } catch (const Error& e) {
    throw ConfigError("optimize.petsc_options = '" + given + "' was refused by PETSc: " + e.what() +
                      ". Check each option's name and value, or remove it.");
  }
  std::string names;
  for (const auto& name : options.unused("optimize_"))
    if (name.find("view") == std::string::npos)
      names += (names.empty() ? "" : ", ") + name;
  if (!names.empty())
    throw ConfigError("optimize.petsc_options: no part of the optimiser (TAO) read " + names +
                      ": the option is misspelled or does not apply to the chosen method. "
                      "Correct or remove it.");
}

} // namespace

OptimiserResult ShapeOptimiser::run(const std::vector<double>& x0,
                                    const std::function<void()>& accepted) {
  using linear::check_petsc;
  const std::size_t n = x0.size();
  for (std::size_t i = 0; i < n; ++i)
    if (!(m_settings.lower[i] <= x0[i] && x0[i] <= m_settings.upper[i]))
      throw ConfigError(m_design.names()[i] + " = " + std::to_string(x0[i]) +
                        " lies outside its bounds [" + std::to_string(m_settings.lower[i]) + ", " +
                        std::to_string(m_settings.upper[i]) +
                        "]: start inside them, or widen them in [design] (design.radius_bounds "
                        "for r0, design.coefficient_bound for a star's coefficients, "
                        "design.weight_bounds and design.angle_bounds for a CST airfoil)");
  if (m_settings.first_step_decrease > 0 && equalities() + inequalities() > 0)
    throw ConfigError("optimize.first_step_decrease applies to designs with bounds only "
                      "(TAOBLMVM): with constraints, TAOALMM picks its first penalty from |J|, "
                      "which the shift it makes would change; remove the key or the constraints");
  m_area0 = m_design.area(x0);
  m_start = now();
  Context context{this, n, nullptr, m_settings.first_step_decrease, std::nullopt};

  VecHandle x = make_vector(x0), lo = make_vector(m_settings.lower),
            hi = make_vector(m_settings.upper), ce, ci;
  MatHandle ae, ai;
  TaoHandle tao;
  Tao designer = nullptr;
  check_petsc(TaoCreate(PETSC_COMM_SELF, tao.out()), "TaoCreate");
  check_petsc(TaoSetOptionsPrefix(tao, "optimize_"), "TaoSetOptionsPrefix");
  check_petsc(TaoSetSolution(tao, x), "TaoSetSolution");
  check_petsc(TaoSetVariableBounds(tao, lo, hi), "TaoSetVariableBounds");
  check_petsc(TaoSetObjectiveAndGradient(tao, nullptr, objective_and_gradient, &context),
              "TaoSetObjectiveAndGradient");
  if (equalities() + inequalities() > 0) {
    check_petsc(TaoSetType(tao, TAOALMM), "TaoSetType");
    configure_constraints(*this, n, tao, &context, ce, ae, ci, ai);
    designer = configure_almm(tao, m_settings);
  } else {
    check_petsc(TaoSetType(tao, TAOBLMVM), "TaoSetType");
    designer = tao;
  }
  set_limits(tao, m_settings); // after TaoSetType, which may reset them
  check_petsc(TaoSetMonitor(designer, monitor, &context, nullptr), "TaoSetMonitor");
  check_petsc(TaoSetConvergenceTest(tao, convergence_test, &context), "TaoSetConvergenceTest");
  if (designer != tao)
    check_petsc(TaoSetConvergenceTest(designer, convergence_test, &context),
                "TaoSetConvergenceTest");
  // optimize.petsc_options live in the optimiser's own database, active while TAO reads them.
  linear::SolverOptions options;
  options.insert(m_settings.petsc_options);
  const auto active = options.activate();
  set_from_options(tao, options, m_settings.petsc_options);
  if (accepted)
    accepted();

  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  const PetscErrorCode status = TaoSolve(tao);
  PetscPopErrorHandler();
  if (context.error)
    std::rethrow_exception(context.error);
  if (status != 0)
    throw CollectiveError("TAO failed with PETSc error " + std::to_string(status) +
                          " during the optimisation");
  OptimiserResult result;
  TaoConvergedReason reason;
  check_petsc(TaoGetConvergedReason(tao, &reason), "TaoGetConvergedReason");
  result.reason = TaoConvergedReasons[reason];
  result.converged = reason > 0;
  Vec xs = nullptr;
  check_petsc(TaoGetSolution(tao, &xs), "TaoGetSolution");
  result.x = to_vector(xs, n);
  result.objective = evaluate(result.x).objective;
  result.iterations = m_iteration;
  result.evaluations = m_evaluations;
  result.failed_evaluations = m_failed;
  return result;
}

} // namespace optimisation
} // namespace undertow
