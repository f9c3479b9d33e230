// Checkpointing schedules alone (pure logic): simulated on a fake state that records its step
// number, every adjoint step gets the tape of its own step, in reverse order, each once; no more
// checkpoint slots are live than allowed; and revolve's advances equal the Griewank-Walther
// minimum t(l, s) = r l - C(s + r, s + 1) for every l <= 200 and s <= 15; online revolve, told
// the length only when the run reaches it, stays within its documented bound of that minimum;
// multistage placement keeps the most restored slots in memory.

#include "undertow/adjoint/schedules.hpp"

#include <algorithm>
#include <cstdio>
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
    if (a.slot < 0 || a.slot >= std::max(1, schedule.slots()))
      fail("slot " + std::to_string(a.slot) + " out of range");
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
    if (!schedule.ended() && current == steps)
      schedule.end_at(steps);
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

TEST(Schedules, OnlineRevolveStaysWithinItsBound) {
  double worst = 0;
  for (int slots = 1; slots <= 15; ++slots)
    for (long steps = 1; steps <= 2000; steps += steps < 200 ? 1 : 7) {
      OnlineRevolveSchedule schedule(slots);
      const Simulation sim = simulate(schedule, steps);
      ASSERT_TRUE(sim.ok) << steps << " steps, " << slots << " slots: " << sim.error;
      ASSERT_EQ(sim.advances, schedule.advances()) << steps << " steps, " << slots << " slots";
      const double optimum = double(RevolveSchedule::minimum_advances(steps, slots));
      ASSERT_LE(double(sim.advances), optimum + double(steps))
          << steps << " steps, " << slots << " slots";
      if (optimum > 0)
        worst = std::max(worst, (double(sim.advances) - double(steps)) / optimum);
    }
  std::printf("online revolve: (advances - l) / t(l, s) <= %.3f over l <= 2000, s <= 15\n", worst);
}

TEST(Schedules, OnlineRevolveThinsItsForwardCheckpoints) {
  // 6 slots: 2 forward checkpoints. At step 8 they are x_0 and x_4 (x_2, x_6 dropped).
  ASSERT_EQ(OnlineRevolveSchedule::forward_slots(6), 2);
  OnlineRevolveSchedule schedule(6);
  std::vector<std::pair<long, int>> saves;
  for (int i = 0; i < 30; ++i) {
    const Action a = schedule.next();
    if (a.kind == Action::Save)
      saves.push_back({a.step, a.slot});
    if (a.kind == Action::Advance && a.step == 8)
      break;
  }
  ASSERT_GE(saves.size(), 4u);
  EXPECT_EQ(saves[0].first, 0);
  EXPECT_EQ(saves[1].first, 1);
  EXPECT_EQ(saves[2].first, 2); // x_1 dropped, d = 2
  EXPECT_EQ(saves[3].first, 4); // x_2 dropped, d = 4
  EXPECT_EQ(saves.back().first, 4);
}

TEST(Schedules, MultistageKeepsTheMostRestoredSlotsInMemory) {
  for (int slots : {3, 6, 10})
    for (long steps : {50L, 200L}) {
      RevolveSchedule schedule(steps, slots);
      // The restores the actions make, counted here, are the schedule's own counts.
      std::vector<long> restores(static_cast<std::size_t>(slots), 0),
          saves(static_cast<std::size_t>(slots), 0);
      for (Action a = schedule.next(); a.kind != Action::Done; a = schedule.next())
        if (a.kind == Action::Restore)
          ++restores[static_cast<std::size_t>(a.slot)];
        else if (a.kind == Action::Save)
          ++saves[static_cast<std::size_t>(a.slot)];
      EXPECT_EQ(restores, schedule.restores());
      EXPECT_EQ(saves, schedule.saves());
      for (int ram = 0; ram <= slots; ++ram) {
        const std::vector<bool> memory =
            place_in_memory(schedule.saves(), schedule.restores(), ram);
        ASSERT_EQ(std::count(memory.begin(), memory.end(), true), ram);
        for (std::size_t a = 0; a < memory.size(); ++a)
          for (std::size_t b = 0; b < memory.size(); ++b) {
            if (memory[a] && !memory[b]) {
              ASSERT_GE(restores[a], restores[b]) << "slot " << a << " in memory, " << b;
            }
          }
      }
    }
}

} // namespace
