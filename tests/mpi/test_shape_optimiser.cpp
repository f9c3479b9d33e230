// The shape optimiser's TAO set-up against problems with known solutions (no flow solves): a
// toy "design" whose objective, constraints and geometry are analytic, so that each kind of
// constraint (the area held by TAOALMM, a flow constraint that the evaluation returns, a
// minimum thickness) is checked against its exact optimum; and the evaluation journal, which
// must replay a run bit for bit. Run at 1 and 2 ranks (every rank solves the same problem).

#include "test_support.hpp"
#include "undertow/core/error.hpp"
#include "undertow/optimisation/shape_optimiser.hpp"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <string>

namespace {

using namespace undertow;
using namespace undertow::adjoint;
using namespace undertow::optimisation;
using namespace undertow::testing;

/// Two variables (a, b): "area" a b, "thickness" a + b at every station (linear), outline a
/// rectangle.
class ToyDesign : public ShapeDesign {
 public:
  std::string describe() const override { return "toy design: a b"; }
  const std::vector<std::string>& names() const override { return m_names; }
  std::vector<double> values(const Control&) const override { return {1, 1}; }
  void apply(const std::vector<double>&, Control&) const override {}
  std::vector<double> chain(const Gradient&, const std::vector<double>& x) const override {
    return std::vector<double>(x.size(), 0.0);
  }
  double area(const std::vector<double>& x) const override { return x[0] * x[1]; }
  std::vector<double> area_gradient(const std::vector<double>& x) const override {
    return {x[1], x[0]};
  }
  std::vector<std::array<double, 2>> outline(const std::vector<double>& x, int) const override {
    return {{0, 0}, {x[0], 0}, {x[0], x[1]}, {0, x[1]}};
  }
  double smallest_feature(const std::vector<double>& x) const override {
    return std::min(x[0], x[1]);
  }
  std::vector<double> thickness(const std::vector<double>& x,
                                const std::vector<double>& stations) const override {
    return std::vector<double>(stations.size(), x[0] + x[1]);
  }
  std::vector<std::vector<double>>
  thickness_gradient(const std::vector<double>&,
                     const std::vector<double>& stations) const override {
    return std::vector<std::vector<double>>(stations.size(), {1.0, 1.0});
  }
  std::vector<double> default_thickness_stations() const override { return {0.5}; }

 private:
  std::vector<std::string> m_names{"a", "b"};
};

/// J = (a - 3)^2 + 2 (b - 1)^2, and the flow constraint a - b - target = 0 when asked for.
struct ToyRun {
  ToyDesign design;
  Log log{world()};
  std::string path;
  OptimiserSettings settings;
  double target = 0;
  bool with_constraint = false;
  double offset = 0; ///< added to J (a J far from zero at its optimum, like a drag coefficient)
  long evaluations = 0;
  std::vector<std::vector<double>> points; ///< where J was evaluated, in order
  std::string signature = "toy";
  std::vector<std::string> also_accepted;

  explicit ToyRun(const std::string& name) : path("/tmp/undertow_toy_" + name + ".journal") {
    settings.lower = {0.1, 0.1};
    settings.upper = {10, 10};
    settings.max_iterations = 200;
    settings.gradient_tolerance = 1e-8;
  }
  OptimiserResult run(std::vector<double> x0, bool resume = false) {
    EvaluationJournal journal(world(), path, signature, also_accepted);
    if (resume)
      journal.load();
    ShapeOptimiser optimiser(
        world(), design, settings,
        [&](const std::vector<double>& x) {
          ++evaluations;
          points.push_back(x);
          Evaluation e;
          e.x = x;
          e.objective = offset + (x[0] - 3) * (x[0] - 3) + 2 * (x[1] - 1) * (x[1] - 1);
          e.gradient = {2 * (x[0] - 3), 4 * (x[1] - 1)};
          if (with_constraint) {
            e.constraints = {x[0] - x[1] - target};
            e.constraint_gradients = {{1.0, -1.0}};
          }
          return e;
        },
        [](const IterationRecord&) {}, journal, log);
    return optimiser.run(x0);
  }
};

TEST(ShapeOptimiser, BoundsOnlyFindsTheUnconstrainedMinimum) {
  ToyRun t("bounds");
  const OptimiserResult r = t.run({1, 1});
  EXPECT_TRUE(r.converged) << r.reason;
  EXPECT_NEAR(r.x[0], 3.0, 1e-6);
  EXPECT_NEAR(r.x[1], 1.0, 1e-6);
}

TEST(ShapeOptimiser, ActiveBoundIsRespected) {
  ToyRun t("active_bound");
  t.settings.upper = {2, 10};
  const OptimiserResult r = t.run({1, 1});
  EXPECT_DOUBLE_EQ(r.x[0], 2.0);
  EXPECT_NEAR(r.x[1], 1.0, 1e-6);
}

TEST(ShapeOptimiser, FlowConstraintHeldByTheAugmentedLagrangian) {
  // min (a-3)^2 + 2 (b-1)^2 with a - b = 0: a = b = 5/3 (Lagrange: 2(a-3) + 4(a-1) = 0).
  ToyRun t("flow_constraint");
  t.with_constraint = true;
  t.settings.flow_constraints = {"a_minus_b"};
  const OptimiserResult r = t.run({1, 2});
  EXPECT_NEAR(r.x[0], 5.0 / 3.0, 1e-5);
  EXPECT_NEAR(r.x[1], 5.0 / 3.0, 1e-5);
}

TEST(ShapeOptimiser, AreaHeldByTheAugmentedLagrangian) {
  // min (a-3)^2 + 2 (b-1)^2 with a b = 1 (the initial area): a - 3 = lambda b / 2,
  // 2 (b - 1) = lambda a / 2, so (a - 3) a = 2 (b - 1) b with b = 1/a: a^4 - 3 a^3 + 2 a - 2 = 0.
  ToyRun t("area");
  t.settings.hold_area = true;
  const OptimiserResult r = t.run({1, 1});
  const double a = r.x[0], b = r.x[1];
  EXPECT_NEAR(a * b, 1.0, 1e-6);
  EXPECT_NEAR(a * a * a * a - 3 * a * a * a + 2 * a - 2, 0.0, 1e-4);
  EXPECT_GT(a, 2.5); // the root with a > 0 and J smallest (a = 2.83..)
}

TEST(ShapeOptimiser, MinimumThicknessAsAnInequality) {
  // With a + b >= 5 the unconstrained minimum (3, 1) is cut off: the optimum lies on a + b = 5,
  // where 2 (a - 3) = 4 (b - 1): a = 11/3, b = 4/3.
  ToyRun t("thickness");
  t.settings.min_thickness = 5;
  t.settings.thickness_stations = {0.5};
  const OptimiserResult r = t.run({1, 1});
  EXPECT_NEAR(r.x[0], 11.0 / 3.0, 1e-5);
  EXPECT_NEAR(r.x[1], 4.0 / 3.0, 1e-5);
  // An inactive one changes nothing.
  ToyRun loose("thickness_loose");
  loose.settings.min_thickness = 2;
  loose.settings.thickness_stations = {0.5};
  const OptimiserResult u = loose.run({3, 3});
  std::printf("loose: %s after %ld iterations, %ld evaluations\n", u.reason.c_str(), u.iterations,
              u.evaluations);
  EXPECT_NEAR(u.x[0], 3.0, 1e-5);
  EXPECT_NEAR(u.x[1], 1.0, 1e-5);
}

TEST(ShapeOptimiser, InactiveThicknessBesideAFlowConstraint) {
  // Both kinds of constraint together; a + b = 10/3 > 2 at the optimum of the flow constraint.
  ToyRun t("both");
  t.with_constraint = true;
  t.settings.flow_constraints = {"a_minus_b"};
  t.settings.min_thickness = 2;
  t.settings.thickness_stations = {0.25, 0.5, 0.75};
  const OptimiserResult r = t.run({1, 2});
  EXPECT_NEAR(r.x[0], 5.0 / 3.0, 1e-5);
  EXPECT_NEAR(r.x[1], 5.0 / 3.0, 1e-5);
}

TEST(ShapeOptimiser, JournalReplaysTheRunBitForBit) {
  ToyRun first("journal");
  first.with_constraint = true;
  first.settings.flow_constraints = {"a_minus_b"};
  first.target = 0.5;
  const OptimiserResult a = first.run({1, 2});
  ToyRun again("journal");
  again.with_constraint = true;
  again.settings.flow_constraints = {"a_minus_b"};
  again.target = 0.5;
  const OptimiserResult b = again.run({1, 2}, true);
  EXPECT_EQ(again.evaluations, 0) << "every evaluation should come from the journal";
  EXPECT_EQ(a.x, b.x);
  EXPECT_NEAR(a.x[0] - a.x[1], 0.5, 1e-5);
  if (world().rank() == 0)
    std::remove(first.path.c_str());
}

// A run stopped by its iteration limit, resumed with a larger one: every recorded evaluation is
// replayed, and it ends where an uninterrupted run with the larger limit ends. A journal signed
// otherwise is refused unless its signature is among the accepted earlier ones.
TEST(ShapeOptimiser, JournalContinuesARunPastItsIterationLimit) {
  // J far from zero: BLMVM's first step lands on a bound, and the run needs several iterations.
  ToyRun whole("whole"), stopped("continued"), continued("continued");
  for (ToyRun* r : {&whole, &stopped, &continued})
    r->offset = 100;
  const OptimiserResult reference = whole.run({1, 1});
  stopped.settings.max_iterations = 1;
  stopped.signature = "earlier";
  const OptimiserResult first = stopped.run({1, 1});
  ASSERT_LT(stopped.evaluations, whole.evaluations) << "the limit should stop the run early";
  EXPECT_THROW(continued.run({1, 1}, true), ConfigError) << "a journal of another signature";
  continued.also_accepted = {"earlier"};
  const OptimiserResult last = continued.run({1, 1}, true);
  EXPECT_EQ(continued.evaluations + stopped.evaluations, whole.evaluations)
      << "the recorded evaluations should be replayed, the others solved";
  EXPECT_EQ(last.x, reference.x);
  EXPECT_NE(first.x, reference.x);
  if (world().rank() == 0) {
    std::remove(whole.path.c_str());
    std::remove(stopped.path.c_str());
  }
}

// J = 100 + (a - 3)^2 + 2 (b - 1)^2 from (1, 1): J0 = 104, dJ/dx = (-4, 0). BLMVM's own first
// step, 2 J0 / |dJ/dx|^2 dJ/dx = (52, 0), lands on the bound a = 10; asked for a first decrease
// of 1% of J0, the step is 0.01 J0 / |dJ/dx|^2 dJ/dx = (0.26, 0). Both reach the optimum.
TEST(ShapeOptimiser, FirstStepDecreaseSetsTheFirstStep) {
  ToyRun own("first_step_own");
  own.offset = 100;
  const OptimiserResult a = own.run({1, 1});
  ASSERT_GE(own.points.size(), 2u);
  EXPECT_DOUBLE_EQ(own.points[1][0], 10.0);
  EXPECT_DOUBLE_EQ(own.points[1][1], 1.0);
  EXPECT_NEAR(a.x[0], 3.0, 1e-6);

  ToyRun aimed("first_step_aimed");
  aimed.offset = 100;
  aimed.settings.first_step_decrease = 0.01;
  const OptimiserResult b = aimed.run({1, 1});
  ASSERT_GE(aimed.points.size(), 2u);
  EXPECT_NEAR(aimed.points[1][0], 1.26, 1e-12);
  EXPECT_DOUBLE_EQ(aimed.points[1][1], 1.0);
  EXPECT_NEAR(b.x[0], 3.0, 1e-6);
  EXPECT_NEAR(b.x[1], 1.0, 1e-6);
  EXPECT_NEAR(b.objective, 100.0, 1e-10); // J itself, not the shifted function TAO minimised
  if (world().rank() == 0) {
    std::remove(own.path.c_str());
    std::remove(aimed.path.c_str());
  }
}

TEST(ShapeOptimiser, FirstStepDecreaseWithConstraintsIsRefused) {
  ToyRun t("first_step_constrained");
  t.with_constraint = true;
  t.settings.flow_constraints = {"a_minus_b"};
  t.settings.first_step_decrease = 0.05;
  EXPECT_THROW(t.run({1, 2}), ConfigError);
  EXPECT_EQ(t.evaluations, 0);
}

TEST(ShapeOptimiser, ThicknessWithoutStationsIsRefused) {
  ToyRun t("refused");
  t.settings.min_thickness = 1;
  EXPECT_THROW(t.run({1, 1}), ConfigError);
}

} // namespace
