/// Shape optimisation with TAO (shape_optimiser.hpp).

#include "undertow/adjoint/shape_optimiser.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/files.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <petsctao.h>
#include <sstream>

namespace undertow {
namespace adjoint {

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
  double failed_value = 1e6;              ///< J handed to TAO for a failed trial design
  std::vector<double> last_good_gradient; ///< dJ/dx of the last design that ran
};

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
  auto* c = static_cast<Context*>(p);
  try {
    const Evaluation& e = c->optimiser->evaluate(to_vector(x, c->n));
    // A failed trial design gets a large finite J (More-Thuente stops at an infinite one) and the
    // gradient of the last good design: no sufficient decrease, so the line search shortens the
    // step.
    if (e.failed) {
      *f = c->failed_value;
      from_vector(c->last_good_gradient, g);
    } else {
      *f = e.objective;
      c->failed_value = 1e6 * std::max(1.0, std::abs(e.objective));
      c->last_good_gradient = e.gradient;
      from_vector(e.gradient, g);
    }
  } catch (...) {
    c->error = std::current_exception();
    return PETSC_ERR_USER;
  }
  return 0;
}

PetscErrorCode area_constraint(Tao, Vec x, Vec ce, void* p) {
  auto* c = static_cast<Context*>(p);
  VecSetValue(ce, 0, c->optimiser->area_violation(to_vector(x, c->n)), INSERT_VALUES);
  VecAssemblyBegin(ce);
  VecAssemblyEnd(ce);
  return 0;
}

PetscErrorCode area_jacobian(Tao, Vec x, Mat a, Mat, void* p) {
  auto* c = static_cast<Context*>(p);
  const std::vector<double> d = c->optimiser->area_violation_gradient(to_vector(x, c->n));
  for (std::size_t i = 0; i < c->n; ++i)
    MatSetValue(a, 0, static_cast<PetscInt>(i), d[i], INSERT_VALUES);
  MatAssemblyBegin(a, MAT_FINAL_ASSEMBLY);
  MatAssemblyEnd(a, MAT_FINAL_ASSEMBLY);
  return 0;
}

PetscErrorCode monitor(Tao tao, void* p) {
  auto* c = static_cast<Context*>(p);
  try {
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
    c->optimiser->iteration_done(to_vector(x, c->n), gnorm, its == 0 ? 0.0 : step);
  } catch (...) {
    c->error = std::current_exception();
    return PETSC_ERR_USER;
  }
  return 0;
}

} // namespace

EvaluationJournal::EvaluationJournal(const Communicator& comm, std::string path,
                                     std::string signature)
    : m_comm(comm), m_path(std::move(path)), m_signature(std::move(signature)) {}

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
  if (word != "undertow-evaluations" || signature != m_signature)
    throw ConfigError("--resume: " + m_path +
                      " belongs to another optimisation (another case, settings or rank count; "
                      "its signature is '" +
                      signature + "', this run's '" + m_signature +
                      "'); resume with the same case file, --set options and ranks");
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
    if (!l || e.x.size() != n || e.gradient.size() != n)
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
    text += std::string(" ") + (x.failed ? "1" : "0") + "\n";
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
}

double ShapeOptimiser::area_violation(const std::vector<double>& x) const {
  return (m_design.area(x) - m_area0) / m_area0;
}

std::vector<double> ShapeOptimiser::area_violation_gradient(const std::vector<double>& x) const {
  std::vector<double> d = m_design.area_gradient(x);
  for (double& v : d)
    v /= m_area0;
  return d;
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
  r.step = step;
  r.evaluations = m_evaluations;
  r.seconds = now() - m_start;
  r.x = x;
  m_monitor(r);
}

OptimiserResult ShapeOptimiser::run(const std::vector<double>& x0) {
  const std::size_t n = x0.size();
  for (std::size_t i = 0; i < n; ++i)
    if (!(m_settings.lower[i] <= x0[i] && x0[i] <= m_settings.upper[i]))
      throw ConfigError(m_design.names()[i] + " = " + std::to_string(x0[i]) +
                        " lies outside its bounds [" + std::to_string(m_settings.lower[i]) + ", " +
                        std::to_string(m_settings.upper[i]) + "]: widen design.bounds");
  m_area0 = m_design.area(x0);
  m_start = now();
  Context context{this, n, nullptr, 1e6, std::vector<double>(n, 0.0)};

  Vec x, lo, hi, ce = nullptr;
  Mat ae = nullptr;
  VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(n), &x);
  VecDuplicate(x, &lo);
  VecDuplicate(x, &hi);
  from_vector(x0, x);
  from_vector(m_settings.lower, lo);
  from_vector(m_settings.upper, hi);
  Tao tao, designer;
  TaoCreate(PETSC_COMM_SELF, &tao);
  TaoSetOptionsPrefix(tao, "optimize_");
  TaoSetSolution(tao, x);
  TaoSetVariableBounds(tao, lo, hi);
  TaoSetObjectiveAndGradient(tao, nullptr, objective_and_gradient, &context);
  TaoSetTolerances(tao, m_settings.gradient_tolerance, 0, 0);
  TaoSetMaximumIterations(tao, static_cast<PetscInt>(m_settings.max_iterations));
  TaoSetMaximumFunctionEvaluations(tao, static_cast<PetscInt>(20 * m_settings.max_iterations));
  if (m_settings.fixed_area) {
    TaoSetType(tao, TAOALMM);
    VecCreateSeq(PETSC_COMM_SELF, 1, &ce);
    MatCreateSeqDense(PETSC_COMM_SELF, 1, static_cast<PetscInt>(n), nullptr, &ae);
    TaoSetEqualityConstraintsRoutine(tao, ce, area_constraint, &context);
    TaoSetJacobianEqualityRoutine(tao, ae, ae, area_jacobian, &context);
    TaoSetConstraintTolerances(tao, m_settings.area_tolerance, 0);
    // The classic formulation starts from the given penalty (PHR picks its own from |J|).
    TaoALMMSetType(tao, TAO_ALMM_CLASSIC);
    TaoALMMGetSubsolver(tao, &designer);
    TaoSetType(designer, TAOBLMVM);
    TaoSetTolerances(designer, m_settings.gradient_tolerance, 0, 0);
    TaoSetMaximumIterations(designer, static_cast<PetscInt>(m_settings.max_iterations));
  } else {
    TaoSetType(tao, TAOBLMVM);
    designer = tao;
  }
  TaoSetMonitor(designer, monitor, &context, nullptr);
  TaoSetConvergenceTest(tao, convergence_test, &context);
  if (designer != tao)
    TaoSetConvergenceTest(designer, convergence_test, &context);
  if (m_settings.fixed_area) {
    const std::string mu = "-optimize_tao_almm_mu_init " + std::to_string(m_settings.area_penalty);
    PetscOptionsInsertString(nullptr, mu.c_str());
  }
  if (!m_settings.petsc_options.empty())
    PetscOptionsInsertString(nullptr, m_settings.petsc_options.c_str());
  TaoSetFromOptions(tao);

  PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
  const PetscErrorCode status = TaoSolve(tao);
  PetscPopErrorHandler();
  OptimiserResult result;
  if (!context.error && status == 0) {
    TaoConvergedReason reason;
    TaoGetConvergedReason(tao, &reason);
    result.reason = TaoConvergedReasons[reason];
    result.converged = reason > 0;
    Vec xs;
    TaoGetSolution(tao, &xs);
    result.x = to_vector(xs, n);
  }
  VecDestroy(&x);
  VecDestroy(&lo);
  VecDestroy(&hi);
  VecDestroy(&ce);
  MatDestroy(&ae);
  TaoDestroy(&tao);
  if (context.error)
    std::rethrow_exception(context.error);
  if (status != 0)
    throw CollectiveError("TAO failed with PETSc error " + std::to_string(status) +
                          " during the optimisation");
  result.objective = evaluate(result.x).objective;
  result.iterations = m_iteration;
  result.evaluations = m_evaluations;
  result.failed_evaluations = m_failed;
  return result;
}

} // namespace adjoint
} // namespace undertow
