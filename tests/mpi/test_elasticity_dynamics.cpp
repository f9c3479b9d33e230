// Elastodynamics by Newmark: the consistent mass (symmetry, total mass), the discrete energy
// balance of every step (exact energy conservation without damping, the Rayleigh dissipation with
// it), the first bending frequency of a cantilever against beam theory, bad settings, and the
// same displacement history on 1, 2 and 4 ranks.

#include "test_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/solvers/elasticity/dynamics.hpp"

#include <cmath>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using namespace undertow::elasticity;
using undertow::testing::fill_global_random;
using undertow::testing::world;

constexpr double kLength = 1.0, kDepth = 0.05; // [m]
constexpr double kSteelE = 200e9, kSteelRho = 7850;

DomainSpec beam(long nx, long ny) {
  DomainSpec s;
  s.dim = 2;
  s.cells = {nx, ny, 1};
  s.length = {kLength, kDepth, 1.0};
  return s;
}

/// A steel cantilever clamped at x = 0 with a downward tip load of `force` [N] (per unit
/// thickness) at the upper tip corner.
ElasticitySpec cantilever(double force, LinearSolver solver) {
  ElasticitySpec spec;
  spec.simp.E0 = kSteelE;
  spec.simp.E_min = 1.0;
  spec.simp.penal = 1.0;
  spec.poisson = 0.3;
  spec.mass_density = kSteelRho;
  Support clamp;
  clamp.box.hi = {0, kDepth, 0};
  spec.supports.push_back(clamp);
  Load tip;
  tip.box.lo = tip.box.hi = {kLength, kDepth, 0};
  tip.value = {0, -force, 0};
  spec.loads.push_back(tip);
  spec.solver = solver;
  spec.rtol = 1e-12;
  return spec;
}

/// Euler-Bernoulli's first bending frequency of the cantilever [Hz].
double beam_frequency() {
  const double inertia = kDepth * kDepth * kDepth / 12.0, area = kDepth;
  return 1.87510407 * 1.87510407 / (2 * M_PI) *
         std::sqrt(kSteelE * inertia / (kSteelRho * area * std::pow(kLength, 4)));
}

NodeVector random_vector(LinearElasticity& s, std::uint64_t seed) {
  NodeVector v = s.make_node_vector("random");
  for (int c = 0; c < s.dim(); ++c) {
    fill_global_random(v[c], seed + std::uint64_t(c), -1.0, 2.0);
    s.node_halo().fill(v[c]);
  }
  return v;
}

// The consistent mass is symmetric across ranks and holds the whole mass rho V per component,
// on uniform and on stretched grids.
TEST(ElasticDynamics, ConsistentMassIsSymmetricAndHoldsTheMass) {
  for (bool stretched : {false, true})
    for (int dim : {2, 3}) {
      DomainSpec d = beam(12, 5);
      d.dim = dim;
      d.cells = {12, 5, dim == 3 ? 4L : 1L};
      d.length = {2.0, 0.5, 0.25};
      if (stretched)
        d = undertow::testing::stretch_axes(d, 0.4);
      const Domain domain(world(), d);
      ElasticitySpec spec = cantilever(1.0, LinearSolver::Direct);
      spec.mass_density = 3.0;
      spec.loads.clear();
      spec.supports[0].box.hi = {0, 10, 10}; // the whole face x = 0
      LinearElasticity s(domain, spec);
      NodeVector x = random_vector(s, 11), y = random_vector(s, 23), mx = s.make_node_vector("mx"),
                 my = s.make_node_vector("my");
      s.apply_operator(nullptr, &x, mx);
      s.apply_operator(nullptr, &y, my);
      const double xmy = s.dot(x, my), ymx = s.dot(y, mx);
      EXPECT_NEAR(xmy, ymx, 1e-13 * std::abs(xmy)) << dim << "D, stretched " << stretched;
      NodeVector one = s.make_node_vector("one"), m1 = s.make_node_vector("m1");
      for (int c = 0; c < dim; ++c) {
        fill_value(one[c], one[c].ghosted(), 1.0);
      }
      s.apply_operator(nullptr, &one, m1);
      const double volume = dim == 3 ? 2.0 * 0.5 * 0.25 : 2.0 * 0.5;
      EXPECT_NEAR(s.dot(one, m1), dim * spec.mass_density * volume, 1e-12)
          << dim << "D, stretched " << stretched;
    }
}

struct EnergyRecord {
  double worst_balance = 0; ///< largest |energy balance residual| of a step [J]
  double largest_energy = 0;
  double final_energy = 0, energy_after_pulse = 0; ///< KE + SE
};

/// Runs `steps` steps and records the discrete work balance of each (WorkBalance):
///   dKE + dSE = (g_n + g_{n+1}) / 2 f.(u_{n+1} - u_n) - dt v_mid.C v_mid,
/// which the trapezoidal rule satisfies exactly (v_mid = (v_n + v_{n+1}) / 2).
EnergyRecord energy_run(const NewmarkSettings& settings, double dt, int steps) {
  const Domain domain(world(), beam(80, 4));
  LinearElasticity s(domain, cantilever(1e4, LinearSolver::Direct));
  Newmark run(s, settings);
  run.start();
  WorkBalance balance(run);
  EnergyRecord out;
  for (int n = 0; n < steps; ++n) {
    balance.before();
    run.step(dt);
    const WorkBalance::Step b = balance.after(dt);
    const double next = b.kinetic + b.strain;
    out.worst_balance = std::max(out.worst_balance, std::abs(b.residual));
    out.largest_energy = std::max(out.largest_energy, next);
    if (settings.load.kind == LoadHistory::Kind::HalfSine && run.time() <= settings.load.period)
      out.energy_after_pulse = next;
    out.final_energy = next;
  }
  return out;
}

// Without damping the energy is conserved exactly: under a suddenly applied constant load
// (total energy KE + SE - f.u stays 0) and in the free vibration after a pulse. With Rayleigh
// damping every step dissipates exactly dt v_mid.C v_mid.
//
// The residual is that of the linear solves: MUMPS solves A a = r to about cond(A) * 1e-16 with
// cond(A) near 1e6 here (steel, dt = T1 / 40), which shows as 1e-10 of the largest energy; a
// wrong coefficient of the scheme would show as O(dt^2) = 1e-3 or more.
TEST(ElasticDynamics, EnergyBalanceOfEveryStep) {
  constexpr double kBalance = 1e-9;
  const double period = 1.0 / beam_frequency(), dt = period / 40;
  NewmarkSettings constant;
  const EnergyRecord step_load = energy_run(constant, dt, 120);
  EXPECT_LT(step_load.worst_balance, kBalance * step_load.largest_energy);

  NewmarkSettings pulse;
  pulse.load.kind = LoadHistory::Kind::HalfSine;
  pulse.load.period = 0.25 * period;
  const EnergyRecord free = energy_run(pulse, dt, 120);
  EXPECT_LT(free.worst_balance, kBalance * free.largest_energy);
  EXPECT_NEAR(free.final_energy, free.energy_after_pulse, kBalance * free.largest_energy);

  NewmarkSettings damped = pulse;
  damped.rayleigh_mass = 20.0;
  damped.rayleigh_stiffness = 2e-5;
  const EnergyRecord lossy = energy_run(damped, dt, 120);
  EXPECT_LT(lossy.worst_balance, kBalance * lossy.largest_energy);
  EXPECT_LT(lossy.final_energy, 0.5 * lossy.energy_after_pulse);
  if (world().rank() == 0)
    std::printf("energy balance / largest energy: step load %.2e, pulse %.2e, damped %.2e; "
                "damped energy kept after 3 periods %.3f\n",
                step_load.worst_balance / step_load.largest_energy,
                free.worst_balance / free.largest_energy,
                lossy.worst_balance / lossy.largest_energy,
                lossy.final_energy / lossy.energy_after_pulse);
}

/// Tip displacement history (y component at the upper tip corner) of a pulse-loaded cantilever.
std::vector<double> tip_history(const Communicator& comm, long nx, long ny, LinearSolver solver,
                                double dt, int steps, const NewmarkSettings& settings) {
  const Domain domain(comm, beam(nx, ny));
  LinearElasticity s(domain, cantilever(1e4, solver));
  Newmark run(s, settings);
  run.start();
  std::vector<double> out;
  for (int n = 0; n < steps; ++n) {
    run.step(dt);
    out.push_back(s.node_value_at(run.displacement(), {kLength, kDepth, 0})[1]);
  }
  return out;
}

// After a short pulse the cantilever rings in its first bending mode: the period between upward
// zero crossings against Euler-Bernoulli's f1 = 1.875^2 / (2 pi) sqrt(EI / (rho A L^4)).
TEST(ElasticDynamics, CantileverFirstBendingFrequency) {
  const double f_beam = beam_frequency(), period = 1.0 / f_beam, dt = period / 80;
  NewmarkSettings pulse;
  pulse.load.kind = LoadHistory::Kind::HalfSine;
  pulse.load.period = 0.5 * period;
  const std::vector<double> tip =
      tip_history(world(), 160, 8, LinearSolver::CgGamg, dt, 8 * 80, pulse);
  // Upward zero crossings after the pulse, linearly interpolated.
  std::vector<double> crossings;
  for (std::size_t n = 41; n < tip.size(); ++n)
    if (tip[n - 1] < 0 && tip[n] >= 0)
      crossings.push_back(dt * (double(n) + tip[n - 1] / (tip[n - 1] - tip[n])));
  ASSERT_GE(crossings.size(), 5u);
  const double measured = double(crossings.size() - 1) / (crossings.back() - crossings.front());
  // Expected offsets: Q1 bending stiffness with 8 elements through the depth (+), shear and
  // rotary inertia at L/h = 20 (-0.3 %), and the trapezoidal rule's period elongation at 80
  // steps per period (-0.05 %).
  const double error = measured / f_beam - 1.0;
  EXPECT_LT(std::abs(error), 0.01);
  if (world().rank() == 0)
    std::printf("first bending frequency %.4f Hz, beam theory %.4f Hz: %+.3f %%\n", measured,
                f_beam, 100 * error);
}

// The same displacement history on 1, 2 and 4 ranks (direct solver and CG + GAMG at 1e-12).
TEST(ElasticDynamics, DecompositionInvariance) {
  const auto& comm = world();
  const Communicator alone = comm.split(comm.rank() == 0 ? 0 : 1, comm.rank());
  NewmarkSettings settings;
  settings.load.kind = LoadHistory::Kind::Ramp;
  settings.load.period = 5e-3;
  settings.rayleigh_mass = 5;
  settings.rayleigh_stiffness = 1e-5;
  for (LinearSolver solver : {LinearSolver::Direct, LinearSolver::CgGamg}) {
    const std::vector<double> parallel = tip_history(comm, 40, 4, solver, 1e-3, 60, settings);
    if (comm.rank() != 0)
      continue;
    const std::vector<double> serial = tip_history(alone, 40, 4, solver, 1e-3, 60, settings);
    double scale = 0, diff = 0;
    for (std::size_t n = 0; n < serial.size(); ++n) {
      scale = std::max(scale, std::abs(serial[n]));
      diff = std::max(diff, std::abs(serial[n] - parallel[n]));
    }
    EXPECT_LT(diff / scale, 1e-10) << comm.size() << " ranks";
    std::printf("%s on %d ranks: max difference / max |u_tip| = %.2e\n",
                solver == LinearSolver::Direct ? "direct" : "CG+GAMG", comm.size(), diff / scale);
  }
}

TEST(ElasticDynamics, BadSettingsGetAClearError) {
  const Domain domain(world(), beam(8, 2));
  LinearElasticity s(domain, cantilever(1.0, LinearSolver::Direct));
  auto message = [&](const NewmarkSettings& settings) -> std::string {
    try {
      Newmark run(s, settings);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  NewmarkSettings bad;
  bad.gamma = 0.4;
  EXPECT_NE(message(bad).find("dynamics.gamma"), std::string::npos) << message(bad);
  bad = NewmarkSettings{};
  bad.beta = 0.1;
  EXPECT_NE(message(bad).find("gamma / 4"), std::string::npos) << message(bad);
  bad = NewmarkSettings{};
  bad.load.kind = LoadHistory::Kind::Ramp;
  EXPECT_NE(message(bad).find("dynamics.load_period"), std::string::npos) << message(bad);

  ElasticitySpec moving = cantilever(1.0, LinearSolver::Direct);
  moving.supports[0].value = {0.001, 0, 0};
  LinearElasticity m(domain, moving);
  try {
    Newmark run(m, NewmarkSettings{});
    ADD_FAILURE() << "a nonzero prescribed displacement was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("nonzero displacement"), std::string::npos) << e.what();
  }
}

} // namespace
