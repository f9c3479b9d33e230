// The physics-neutral adjoint core (undertow::adjoint_core) on its own: this test links neither
// the solvers library nor its headers, so it also proves that the core compiles and links
// without them. A toy model, the decay x_{k+1} = x_k - dt p x_k^2 in every cell with
// J = sum_k dt sum_cells x_{k+1}^2, goes through reverse_sweep under every checkpointing schedule
// (store-all, binomial revolve, online revolve, multistage memory + HDF5). Its gradient with
// respect to p and to x_0 matches central finite differences, its Taylor remainder converges at
// order 2, and every schedule gives the store-all gradient bitwise.

#include "../test_support.hpp"
#include "undertow/adjoint/sweep.hpp"
#include "undertow/core/reductions.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <regex>
#include <string>

namespace {

using namespace undertow;
using namespace undertow::adjoint;
using undertow::testing::world;

/// The decay model and its adjoint. Parameters: the rate p and the initial field x_0.
class DecayModel : public AdjointModel {
 public:
  DecayModel(const Domain& domain, double p, const Field& x0)
      : m_domain(domain), m_p(p), m_x0(x0), m_x(x0.layout(), "x"), m_lambda(x0.layout(), "lambda"),
        m_next(x0.layout(), "x_next") {
    copy(m_x0, m_x);
  }
  const Communicator& comm() const override { return m_domain.comm(); }
  long steps() const override { return m_k; }
  double time() const override { return m_t; }
  Snapshot state() override {
    Snapshot s;
    s.step = m_k;
    s.fields.emplace_back("x", m_x);
    s.numbers["time"] = m_t;
    return s;
  }
  void restore(const Snapshot& s) override {
    copy(s.fields.at(0).second, m_x);
    m_k = s.step;
    m_t = s.numbers.at("time");
  }
  void restart() override {
    copy(m_x0, m_x);
    m_k = 0;
    m_t = 0;
  }
  long step(double dt, Snapshot* tape) override {
    if (m_k + 1 == fail_at)
      throw CollectiveError("the solve diverged");
    if (tape) {
      if (tape->fields.empty())
        tape->fields.emplace_back("x", Field(m_x.layout(), "tape_x"));
      copy(m_x, tape->fields[0].second);
      tape->step = m_k;
      tape->numbers["dt"] = dt;
    }
    advance(m_x, dt, m_next);
    copy(m_next, m_x);
    ++m_k;
    m_t += dt;
    return 1;
  }
  void forward_step_failed(long step, double, const CollectiveError&) override {
    failed_steps.push_back(step);
  }
  double objective_term(long, double dt, bool) override {
    return dt * global_dot(comm(), m_x, m_x);
  }
  long reverse(long, bool, Snapshot& tape) override {
    const Field& xk = tape.fields.at(0).second;
    const double dt = tape.numbers.at("dt");
    advance(xk, dt, m_next); // x_{k+1}, whose objective term this adjoint step differentiates
    const FieldView x = xk.view(), next = m_next.view(), lambda = m_lambda.view();
    const double p = m_p;
    m_dp += local_sum(
        "test::decay_adjoint_p", xk.owned(), KOKKOS_LAMBDA(int i, int j, int k, double& acc) {
          const double l = lambda(i, j, k) + 2 * dt * next(i, j, k);
          acc += l * (-dt * x(i, j, k) * x(i, j, k));
        });
    for_each(
        "test::decay_adjoint_x", xk.owned(), KOKKOS_LAMBDA(int i, int j, int k) {
          const double l = lambda(i, j, k) + 2 * dt * next(i, j, k);
          lambda(i, j, k) = l * (1 - 2 * dt * p * x(i, j, k));
        });
    return 1;
  }
  long finish() override {
    m_dp_total = comm().sum(m_dp);
    return 0;
  }
  Snapshot adjoint_state() override {
    Snapshot s;
    s.fields.emplace_back("lambda", m_lambda);
    s.numbers["dp"] = m_dp;
    return s;
  }
  void restore_adjoint_state(const Snapshot& s) override {
    copy(s.fields.at(0).second, m_lambda);
    m_dp = s.numbers.at("dp");
  }
  long fail_at = -1;              ///< the step (k + 1) that throws, as a diverged solve would
  std::vector<long> failed_steps; ///< what forward_step_failed was told
  double dJ_dp() const { return m_dp_total; }
  const Field& dJ_dx0() const { return m_lambda; }

  // Public, not private: CUDA's extended lambdas may not sit in private member functions.
  void advance(const Field& from, double dt, Field& to) const {
    const FieldView x = from.view(), y = to.view();
    const double p = m_p;
    for_each(
        "test::decay_step", from.owned(), KOKKOS_LAMBDA(int i, int j, int k) {
          y(i, j, k) = x(i, j, k) - dt * p * x(i, j, k) * x(i, j, k);
        });
  }

 private:
  const Domain& m_domain;
  double m_p;
  Field m_x0, m_x, m_lambda, m_next;
  long m_k = 0;
  double m_t = 0, m_dp = 0, m_dp_total = 0;
};

struct Result {
  double J = 0, dp = 0;
  Field dx0;
};

Result gradient(const Domain& domain, double p, const Field& x0, const Checkpointing& c,
                const std::vector<double>& dts) {
  DecayModel model(domain, p, x0);
  const Log log(domain.comm());
  const SweepStats stats = reverse_sweep(model, c, dts, log, 0);
  Result r;
  r.J = stats.objective;
  r.dp = model.dJ_dp();
  r.dx0 = Field(x0.layout(), "dx0");
  copy(model.dJ_dx0(), r.dx0);
  return r;
}

class AdjointCore : public ::testing::Test {
 protected:
  AdjointCore() : m_domain(world(), spec()), m_x0(m_domain, Location::Cell, 1, "x0") {
    undertow::testing::fill_global_random(m_x0, 17, 0.5, 1.0);
  }
  static DomainSpec spec() {
    DomainSpec s;
    s.cells = {12, 10, 1};
    return s;
  }
  std::vector<double> dts() const { return std::vector<double>(23, 0.05); }
  Domain m_domain;
  Field m_x0;
  const double m_p = 0.8;
};

TEST_F(AdjointCore, GradientMatchesFiniteDifferencesAndTaylor) {
  Checkpointing all;
  const Result r = gradient(m_domain, m_p, m_x0, all, dts());
  const double h = 1e-6;
  const double fd = (gradient(m_domain, m_p + h, m_x0, all, dts()).J -
                     gradient(m_domain, m_p - h, m_x0, all, dts()).J) /
                    (2 * h);
  EXPECT_NEAR(r.dp, fd, 1e-7 * std::abs(fd));

  // Taylor test in a direction of the initial field: |J(x0 + e d) - J - e dJ.d| = O(e^2).
  Field d(m_x0.layout(), "direction"), x(m_x0.layout(), "x0_perturbed");
  undertow::testing::fill_global_random(d, 29, -1.0, 2.0);
  const double rate = undertow::testing::taylor_rate(
      [&](double e) {
        copy(m_x0, x);
        axpy(e, d, x);
        return gradient(m_domain, m_p, x, all, dts()).J;
      },
      r.J, global_dot(world(), r.dx0, d), "dJ/dx0 (toy decay model)");
  EXPECT_GE(rate, 1.9);
}

/// Whether two fields of one layout hold the same owned values, bit for bit, on every rank.
/// Collective.
bool bitwise_equal(const Field& a, const Field& b) {
  const FieldView av = a.view(), bv = b.view();
  const double differing = local_sum(
      "test::compare", a.owned(), KOKKOS_LAMBDA(int i, int j, int k, double& acc) {
        acc += av(i, j, k) == bv(i, j, k) ? 0.0 : 1.0;
      });
  return world().sum(differing) == 0;
}

TEST_F(AdjointCore, EveryScheduleGivesTheStoreAllGradientBitwise) {
  Checkpointing all;
  const Result reference = gradient(m_domain, m_p, m_x0, all, dts());
  Checkpointing revolve;
  revolve.schedule = Checkpointing::Schedule::Revolve;
  revolve.ram_slots = 3;
  Checkpointing online;
  online.schedule = Checkpointing::Schedule::Online;
  online.ram_slots = 4;
  Checkpointing multistage;
  multistage.schedule = Checkpointing::Schedule::Multistage;
  multistage.ram_slots = 1;
  multistage.disk_slots = 2;
  multistage.file = "adjoint_core_np" + std::to_string(world().size()) + ".h5";
  for (const Checkpointing* c : {&revolve, &online, &multistage}) {
    const Result r = gradient(m_domain, m_p, m_x0, *c, dts());
    EXPECT_EQ(r.J, reference.J);
    EXPECT_EQ(r.dp, reference.dp);
    EXPECT_TRUE(bitwise_equal(r.dx0, reference.dx0));
  }
}

/// A forward step that throws (a diverged solve) reaches the model's forward_step_failed once,
/// then the caller as an error naming the step, its time and dt, and the fix; a forward run whose
/// objective stops being finite is stopped at that step, not at the end of the run.
TEST_F(AdjointCore, AFailedForwardStepIsNamedAndStopsTheSweep) {
  Checkpointing revolve;
  revolve.schedule = Checkpointing::Schedule::Revolve;
  revolve.ram_slots = 3;
  DecayModel model(m_domain, m_p, m_x0);
  model.fail_at = 7;
  const Log log(m_domain.comm());
  try {
    reverse_sweep(model, revolve, dts(), log, 0);
    ADD_FAILURE() << "the failed step was not reported";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("forward step 7 (t = 3.000000e-01 s, dt = 5.000e-02 s) "
                                         "failed: the solve diverged. If the run diverged, "
                                         "reduce time.cfl or time.dt"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(model.failed_steps, std::vector<long>{7});

  // x_{k+1} = x_k - dt p x_k^2 with p < 0 and dt p x_0 <= -1 grows doubly exponentially: J
  // overflows after a few steps, long before the 23rd.
  DecayModel blowing(m_domain, -40.0, m_x0);
  try {
    reverse_sweep(blowing, revolve, dts(), log, 0);
    ADD_FAILURE() << "the non-finite objective was not reported";
  } catch (const CollectiveError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex("the objective is not finite after forward "
                                                       "step [0-9] \\(t = .*reduce time.cfl "
                                                       "or time.dt")))
        << e.what();
  }
}

} // namespace
