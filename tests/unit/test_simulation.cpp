// The time loop alone (core/simulation.hpp), on a model that only counts: the clock policies
// (fixed dt landing on t_end, a step count, CFL-adaptive dt, a walltime budget), the callback
// cadences (steps, a step, simulated-time intervals, the last step, signals, after the loop), a
// stop requested by a callback, and the handler of a failing step.

#include "../test_support.hpp"
#include "undertow/core/simulation.hpp"

#include <chrono>
#include <csignal>
#include <gtest/gtest.h>
#include <thread>

namespace {

using namespace undertow;
using undertow::testing::world;

/// Records the dt of every step; stable_dt(cfl) = cfl / 10; throws at step `fail_at`; raises
/// `signal` during step `signal_at`; sleeps `sleep_ms` per step.
struct CountingModel : TimeStepper {
  double t = 0;
  std::vector<double> dts;
  long fail_at = -1, signal_at = -1;
  int signal = 0;
  int sleep_ms = 0;
  double time() const override { return t; }
  void step(double dt) override {
    const long n = static_cast<long>(dts.size()) + 1;
    if (n == fail_at)
      throw CollectiveError("the solve diverged");
    if (n == signal_at)
      std::raise(signal);
    if (sleep_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    dts.push_back(dt);
    t += dt;
  }
  double stable_dt(double cfl) const override { return cfl / 10; }
};

Clock fixed(double dt, double t_end) {
  Clock c;
  c.fixed_dt = dt;
  c.t_end = t_end;
  return c;
}

TEST(Simulation, FixedDtLandsOnTheEndTime) {
  CountingModel m;
  Simulation sim(world(), m, fixed(0.3, 1.0));
  std::vector<long> last;
  sim.add_callback("last", Cadence::last_step(), [&](Simulation& s) { last.push_back(s.step()); });
  int finished = 0;
  sim.add_finish("finish", [&](Simulation&) { ++finished; });
  sim.run();
  ASSERT_EQ(m.dts.size(), 4u);
  EXPECT_NEAR(m.dts[3], 0.1, 1e-15);
  EXPECT_DOUBLE_EQ(m.t, 1.0);
  EXPECT_EQ(last, std::vector<long>{4});
  EXPECT_EQ(finished, 1);
  EXPECT_EQ(sim.stopped_by(), "end time");
}

TEST(Simulation, StepCountStartsFromTheFirstStep) {
  CountingModel m;
  Clock c;
  c.fixed_dt = 0.1;
  c.max_steps = 5;
  Simulation sim(world(), m, c, 10);
  sim.run();
  EXPECT_EQ(m.dts.size(), 5u);
  EXPECT_EQ(sim.step(), 15);
  EXPECT_EQ(sim.stopped_by(), "steps");
}

TEST(Simulation, CflAdaptiveDtAsksTheModel) {
  CountingModel m;
  Clock c;
  c.cfl = 0.5;
  c.t_end = 0.2;
  Simulation sim(world(), m, c);
  sim.run();
  ASSERT_EQ(m.dts.size(), 4u);
  EXPECT_DOUBLE_EQ(m.dts[0], 0.05);
}

TEST(Simulation, GivenStepsAreTakenAsGiven) {
  CountingModel m;
  Clock c;
  c.steps = {0.1, 0.2, 0.05};
  Simulation sim(world(), m, c);
  sim.run();
  EXPECT_EQ(m.dts, c.steps);
  EXPECT_EQ(sim.stopped_by(), "steps");
}

TEST(Simulation, ADriverThatStepsItselfGetsTheCallbacks) {
  // As the reverse sweep of a gradient drives its forward steps.
  CountingModel m;
  Clock c;
  c.steps = {0.1, 0.1, 0.1, 0.1};
  Simulation sim(world(), m, c);
  std::vector<long> every2;
  long finished_at = -1;
  sim.add_callback("every2", Cadence::steps(2), [&](Simulation& s) { every2.push_back(s.step()); });
  sim.add_finish("finish", [&](Simulation& s) { finished_at = s.step(); });
  for (double dt : c.steps) {
    EXPECT_DOUBLE_EQ(sim.next_dt(), dt);
    m.step(dt);
    sim.after_step(dt);
  }
  EXPECT_EQ(every2, (std::vector<long>{2, 4}));
  EXPECT_EQ(finished_at, 4); // at the last step, while the model holds the final state
}

TEST(Simulation, CadencesFireOnTheirSteps) {
  CountingModel m;
  Simulation sim(world(), m, fixed(0.1, 1.0));
  std::vector<long> every3, at5, interval, both;
  sim.add_callback("every3", Cadence::steps(3), [&](Simulation& s) { every3.push_back(s.step()); });
  sim.add_callback("at5", Cadence::at_step(5), [&](Simulation& s) { at5.push_back(s.step()); });
  sim.add_callback("interval", Cadence::interval(0.25),
                   [&](Simulation& s) { interval.push_back(s.step()); });
  sim.add_callback("both", Cadence::steps(4) | Cadence::last_step(),
                   [&](Simulation& s) { both.push_back(s.step()); });
  sim.run();
  EXPECT_EQ(every3, (std::vector<long>{3, 6, 9}));
  EXPECT_EQ(at5, std::vector<long>{5});
  // The first steps at or past t = 0.25, 0.5, 0.75 and 1.
  EXPECT_EQ(interval, (std::vector<long>{3, 5, 8, 10}));
  EXPECT_EQ(both, (std::vector<long>{4, 8, 10}));
}

TEST(Simulation, IntervalsCountFromTheStartTime) {
  CountingModel m;
  m.t = 0.6; // e.g. a restarted run
  Simulation sim(world(), m, fixed(0.1, 1.2), 6);
  std::vector<long> interval;
  sim.add_callback("interval", Cadence::interval(0.25),
                   [&](Simulation& s) { interval.push_back(s.step()); });
  sim.run();
  EXPECT_EQ(interval, (std::vector<long>{8, 10})); // t = 0.75 and 1.0; not 0.5 again
}

TEST(Simulation, ARequestedStopEndsTheRunAfterThisStep) {
  CountingModel m;
  Simulation sim(world(), m, fixed(0.1, 10.0));
  std::vector<long> before, after;
  sim.add_callback("before", Cadence::last_step(),
                   [&](Simulation& s) { before.push_back(s.step()); });
  sim.add_callback("monitor", Cadence::steps(1), [&](Simulation& s) {
    if (s.step() == 7)
      s.request_stop("steady state");
  });
  sim.add_callback("after", Cadence::last_step(),
                   [&](Simulation& s) { after.push_back(s.step()); });
  sim.run();
  EXPECT_EQ(m.dts.size(), 7u);
  EXPECT_TRUE(before.empty()); // it ran before the stop was requested
  EXPECT_EQ(after, std::vector<long>{7});
  EXPECT_EQ(sim.stopped_by(), "steady state");
}

TEST(Simulation, SignalsReachTheSignalCallbacks) {
  CountingModel m;
  m.signal_at = 3;
  m.signal = SIGUSR1;
  Simulation sim(world(), m, fixed(0.1, 1.0));
  sim.watch_signals();
  std::vector<std::pair<long, int>> seen;
  sim.add_callback("checkpoint", Cadence::signal(),
                   [&](Simulation& s) { seen.emplace_back(s.step(), s.signal()); });
  sim.run();
  EXPECT_EQ(seen, (std::vector<std::pair<long, int>>{{3, SIGUSR1}})); // and the run goes on
  EXPECT_EQ(m.dts.size(), 10u);

  CountingModel stopped;
  stopped.signal_at = 4;
  stopped.signal = SIGTERM;
  Simulation term(world(), stopped, fixed(0.1, 1.0));
  term.watch_signals();
  seen.clear();
  term.add_callback("checkpoint", Cadence::signal(),
                    [&](Simulation& s) { seen.emplace_back(s.step(), s.signal()); });
  term.run();
  EXPECT_EQ(seen, (std::vector<std::pair<long, int>>{{4, SIGTERM}}));
  EXPECT_EQ(stopped.dts.size(), 4u);
  EXPECT_EQ(term.stopped_by(), "signal");
}

TEST(Simulation, TheWalltimeBudgetStopsLikeASignal) {
  CountingModel m;
  m.sleep_ms = 30;
  Clock c = fixed(0.1, 100.0);
  c.walltime = 0.1;
  Simulation sim(world(), m, c);
  long checkpointed = -1;
  sim.add_callback("checkpoint", Cadence::signal(), [&](Simulation& s) {
    EXPECT_EQ(s.signal(), SIGTERM);
    EXPECT_TRUE(s.last_step());
    checkpointed = s.step();
  });
  sim.run();
  EXPECT_EQ(sim.stopped_by(), "walltime");
  EXPECT_EQ(checkpointed, sim.step());
  EXPECT_GE(m.dts.size(), 3u);
  EXPECT_LT(m.dts.size(), 100u);
}

// A stop that arrives with the last step has nothing left to stop: the run ends as finished,
// and the signal callbacks (which write a restart file and exit 75 on SIGTERM) do not fire.
// In a CI run the walltime ran out on the last step of a part: it exited 75, and the next part
// was refused for having nothing to run.
TEST(Simulation, AStopArrivingWithTheLastStepEndsTheRunAsFinished) {
  CountingModel m;
  m.signal_at = 10;
  m.signal = SIGTERM;
  Simulation term(world(), m, fixed(0.1, 1.0));
  term.watch_signals();
  int signal_calls = 0;
  term.add_callback("checkpoint", Cadence::signal(), [&](Simulation&) { ++signal_calls; });
  term.run();
  EXPECT_EQ(m.dts.size(), 10u);
  EXPECT_EQ(signal_calls, 0);
  EXPECT_EQ(term.stopped_by(), "end time");
  EXPECT_EQ(term.signal(), 0);

  CountingModel slow;
  slow.sleep_ms = 30;
  Clock c = fixed(0.1, 0.1); // one step, longer than the budget
  c.walltime = 0.01;
  Simulation spent(world(), slow, c);
  signal_calls = 0;
  spent.add_callback("checkpoint", Cadence::signal(), [&](Simulation&) { ++signal_calls; });
  spent.run();
  EXPECT_EQ(slow.dts.size(), 1u);
  EXPECT_EQ(signal_calls, 0);
  EXPECT_EQ(spent.stopped_by(), "end time");

  // The same for a run's own end condition (stop_when), e.g. a converged iteration.
  CountingModel converging;
  converging.signal_at = 4;
  converging.signal = SIGTERM;
  Simulation until(world(), converging, fixed(0.1, 1.0));
  until.watch_signals();
  until.stop_when("converged", [&] { return converging.dts.size() == 4; });
  signal_calls = 0;
  long last_seen = -1;
  until.add_callback("checkpoint", Cadence::signal(), [&](Simulation&) { ++signal_calls; });
  until.add_callback("table", Cadence::last_step(), [&](Simulation& s) { last_seen = s.step(); });
  until.run();
  EXPECT_EQ(converging.dts.size(), 4u);
  EXPECT_EQ(signal_calls, 0);
  EXPECT_EQ(last_seen, 4);
  EXPECT_EQ(until.stopped_by(), "converged");
}

// A pause (a stop signal or a spent walltime) completes its step as an uninterrupted run does,
// then saves: the step's scheduled callbacks run before the signal callbacks whatever the order
// they were added in, and the last-step callbacks do not fire (the run is continued). In a CI
// run the walltime ran out on a snapshot step of an elastodynamics run: the restart callback,
// added first, ended the part before the snapshot, and the continued run's series lacked it.
TEST(Simulation, APauseRunsTheStepsScheduledCallbacksBeforeTheSignalOnes) {
  for (long pause_at : {4L, 5L}) {
    CountingModel m;
    m.signal_at = pause_at;
    m.signal = SIGTERM;
    Simulation sim(world(), m, fixed(0.1, 1.0));
    sim.watch_signals();
    std::vector<std::string> order;
    sim.add_callback("restart", Cadence::steps(100) | Cadence::signal(), [&](Simulation& s) {
      EXPECT_TRUE(s.paused());
      order.push_back("restart " + std::to_string(s.step()));
      throw Stopped("stopped by a signal");
    });
    sim.add_callback("snapshot", Cadence::steps(2) | Cadence::last_step(), [&](Simulation& s) {
      order.push_back("snapshot " + std::to_string(s.step()));
    });
    EXPECT_THROW(sim.run(), Stopped);
    std::vector<std::string> expected;
    for (long step = 2; step <= pause_at; step += 2)
      expected.push_back("snapshot " + std::to_string(step));
    expected.push_back("restart " + std::to_string(pause_at));
    EXPECT_EQ(order, expected) << "pause at step " << pause_at;
    EXPECT_EQ(sim.stopped_by(), "signal");
  }
}

TEST(Simulation, AFailingStepGoesThroughItsHandler) {
  CountingModel m;
  m.fail_at = 4;
  Simulation sim(world(), m, fixed(0.1, 1.0));
  sim.on_step_error([](Simulation& s, const CollectiveError& e) {
    throw CollectiveError("step " + std::to_string(s.step() + 1) + ": " + e.what());
  });
  try {
    sim.run();
    FAIL() << "the failing step was not reported";
  } catch (const CollectiveError& e) {
    EXPECT_STREQ(e.what(), "step 4: the solve diverged");
  }
}

/// A driver that takes the steps itself (a gradient's sweep) reports a failed step the same way:
/// the handler sees the step about to be taken and its dt.
TEST(Simulation, ADriverSteppedFailureGoesThroughItsHandler) {
  CountingModel m;
  Simulation sim(world(), m, fixed(0.1, 1.0));
  for (int n = 0; n < 3; ++n) {
    m.step(0.1);
    sim.after_step(0.1);
  }
  sim.on_step_error([](Simulation& s, const CollectiveError& e) {
    throw CollectiveError("step " + std::to_string(s.step() + 1) + ", dt " +
                          std::to_string(s.dt()) + ": " + e.what());
  });
  try {
    sim.step_failed(0.05, CollectiveError("the solve diverged"));
    FAIL() << "the handler was not called";
  } catch (const CollectiveError& e) {
    EXPECT_STREQ(e.what(), "step 4, dt 0.050000: the solve diverged");
  }
}

TEST(Simulation, ClocksThatCannotWorkAreRefused) {
  CountingModel m;
  EXPECT_THROW(Simulation(world(), m, Clock{}), ConfigError); // no dt, no end
  Clock endless;
  endless.fixed_dt = 0.1;
  EXPECT_THROW(Simulation(world(), m, endless), ConfigError);
  Simulation sim(world(), m, fixed(0.1, 1.0));
  EXPECT_THROW(sim.add_callback("never", Cadence{}, [](Simulation&) {}), Error);
}

} // namespace
