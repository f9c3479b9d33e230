// Checkpointing schedules alone (pure logic): simulated on a fake state that records its step
// number, every adjoint step gets the tape of its own step, in reverse order, each once; no more
// checkpoint slots are live than allowed; and revolve's advances equal the Griewank-Walther
// minimum t(l, s) = r l - C(s + r, s + 1) for every l <= 200 and s <= 15.

#include "undertow/adjoint/checkpointing.hpp"

#include <gtest/gtest.h>
#include <map>

namespace {

using namespace undertow::adjoint;

struct Simulation {
  long advances = 0;
  int max_slot = -1;
  bool ok = true;
  std::string error;
};

/// Runs `schedule` for `steps` steps on a fake state (the step number it is at).
Simulation simulate(Schedule& schedule, long steps) {
  Simulation sim;
  long current = 0;
  std::map<int, long> checkpoints;
  std::map<long, long> tapes; ///< step -> the state it was recorded from
  long next_reverse = steps - 1;
  const auto fail = [&](const std::string& why) {
    if (sim.ok)
      sim.error = why;
    sim.ok = false;
  };
  for (Action a = schedule.next(); a.kind != Action::Done; a = schedule.next()) {
    switch (a.kind) {
    case Action::Advance:
      if (a.step <= current || a.step > steps)
        fail("advance to " + std::to_string(a.step) + " from " + std::to_string(current));
      sim.advances += a.step - current;
      current = a.step;
      break;
    case Action::Save:
      if (a.step != current)
        fail("save of x_" + std::to_string(a.step) + " while at x_" + std::to_string(current));
      checkpoints[a.slot] = current;
      sim.max_slot = std::max(sim.max_slot, a.slot);
      break;
    case Action::Restore:
      if (!checkpoints.count(a.slot) || checkpoints[a.slot] != a.step)
        fail("restore of x_" + std::to_string(a.step) + " from slot " + std::to_string(a.slot));
      current = checkpoints[a.slot];
      break;
    case Action::Record:
      if (a.step != current)
        fail("record of step " + std::to_string(a.step) + " at x_" + std::to_string(current));
      tapes[a.step] = current;
      current += 1;
      break;
    case Action::Reverse:
      if (a.step != next_reverse)
        fail("reverse of step " + std::to_string(a.step) + ", expected " +
             std::to_string(next_reverse));
      if (!tapes.count(a.step) || tapes[a.step] != a.step)
        fail("reverse of step " + std::to_string(a.step) + " without its tape");
      --next_reverse;
      break;
    case Action::Done:
      break;
    }
  }
  if (next_reverse != -1)
    fail("steps left unreversed: " + std::to_string(next_reverse + 1));
  return sim;
}

TEST(Schedules, StoreAllReversesEveryStepWithItsTape) {
  for (long steps : {1L, 2L, 7L, 100L}) {
    StoreAllSchedule schedule(steps);
    const Simulation sim = simulate(schedule, steps);
    EXPECT_TRUE(sim.ok) << sim.error;
    EXPECT_EQ(sim.advances, 0);
  }
}

TEST(Schedules, GriewankWaltherFormulaOnKnownValues) {
  EXPECT_EQ(RevolveSchedule::minimum_advances(10, 1), 45); // l (l - 1) / 2
  EXPECT_EQ(RevolveSchedule::minimum_advances(3, 2), 2);   // x_1 saved, then one advance each
  EXPECT_EQ(RevolveSchedule::minimum_advances(1, 5), 0);
  EXPECT_EQ(RevolveSchedule::minimum_advances(6, 3), 7); // r = 2: 2 * 6 - C(5, 4)
}

TEST(Schedules, RevolveReachesTheGriewankWaltherMinimum) {
  for (int slots = 1; slots <= 15; ++slots)
    for (long steps = 1; steps <= 200; ++steps) {
      RevolveSchedule schedule(steps, slots);
      const Simulation sim = simulate(schedule, steps);
      ASSERT_TRUE(sim.ok) << steps << " steps, " << slots << " slots: " << sim.error;
      ASSERT_LT(sim.max_slot, slots) << steps << " steps, " << slots << " slots";
      ASSERT_EQ(sim.advances, schedule.advances()) << steps << " steps, " << slots << " slots";
      ASSERT_EQ(sim.advances, RevolveSchedule::minimum_advances(steps, slots))
          << steps << " steps, " << slots << " slots";
    }
}

} // namespace
