// Progress-line arithmetic: the ETA extrapolates the rate in simulated time from the run's start,
// and the step rate counts the steps of this run (a continued run's own).

#include "undertow/core/log.hpp"

#include <gtest/gtest.h>

namespace {

using namespace undertow;

TEST(Progress, EtaExtrapolatesFromTheStartOfTheRun) {
  // Half of [0, 10] took 10 s: 10 s to go.
  EXPECT_DOUBLE_EQ(estimate_eta(10.0, 0.0, 5.0, 10.0), 10.0);
  // A restarted run counts from its own start time.
  EXPECT_DOUBLE_EQ(estimate_eta(4.0, 8.0, 9.0, 10.0), 4.0);
  // Before any progress, and past the end, there is nothing to extrapolate.
  EXPECT_DOUBLE_EQ(estimate_eta(1.0, 0.0, 0.0, 10.0), 0.0);
  EXPECT_DOUBLE_EQ(estimate_eta(1.0, 0.0, 11.0, 10.0), 0.0);
}

TEST(Progress, StepRateCountsTheStepsOfThisRun) {
  // 100 steps in 20 s from the start: 5 steps/s.
  EXPECT_DOUBLE_EQ(step_rate(0, 100, 20.0), 5.0);
  // A run continued from step 712 that reached step 800 in 110 s took 88 steps, not 800.
  EXPECT_DOUBLE_EQ(step_rate(712, 800, 110.0), 0.8);
  // Before its first step a run has no rate.
  EXPECT_DOUBLE_EQ(step_rate(712, 712, 5.0), 0.0);
}

TEST(Progress, DurationFormat) {
  EXPECT_EQ(format_duration(0.4), "0:00:00");
  EXPECT_EQ(format_duration(3723.0), "1:02:03");
}

} // namespace
