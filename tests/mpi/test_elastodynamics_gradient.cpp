// The elastodynamic adjoint through the whole Newmark loop: the adjoint of one step against the
// step (dot-product test), Taylor tests of the sensor misfit's gradient for every parameter type
// (element densities, E0, loads, mass density, both Rayleigh coefficients; on uniform and
// stretched grids) through the physics-neutral reverse sweep, the same gradient with store-all,
// revolve and multistage (memory + HDF5) checkpointing, the same J and gradient on 1, 2 and 4
// ranks, and an inverse problem: two zones' Young's moduli identified from sensor histories by TAO
// (BLMVM).

#include "test_support.hpp"

#include "undertow/adjoint/elastodynamics_gradient.hpp"
#include "undertow/core/error.hpp"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <petsctao.h>

namespace {

using namespace undertow;
using namespace undertow::elasticity;
using namespace undertow::adjoint;
using undertow::testing::fill_global_random;
using undertow::testing::taylor_rate;
using undertow::testing::world;

/// How far two runs of the same computation may differ, relatively. On 1 and 2 ranks they are
/// bitwise equal; on 4, MUMPS's parallel factorisation is not bitwise repeatable (its
/// reductions arrive in any order), and repeated runs differed by up to 2e-12.
constexpr double kRepeat = 1e-10;

/// The beam's grid: uniform, or stretched smoothly along both axes (cells 0.6 to 1.4 times the
/// mean width; the sensors' points stay nodes).
DomainSpec beam(bool stretched = false) {
  DomainSpec s;
  s.dim = 2;
  s.cells = {16, 4, 1};
  s.length = {2.0, 0.5, 1.0};
  return stretched ? undertow::testing::stretch_axes(s, 0.4) : s;
}

/// A cantilever clamped at x = 0, random densities in [0.5, 1], SIMP p = 3, a tip load.
ElasticitySpec cantilever_spec() {
  ElasticitySpec spec;
  spec.simp.E0 = 100.0;
  spec.simp.E_min = 1e-3;
  spec.simp.penal = 3.0;
  spec.poisson = 0.3;
  spec.mass_density = 1.0;
  Support clamp;
  clamp.box.hi = {0, 0.5, 0};
  spec.supports.push_back(clamp);
  Load tip;
  tip.box.lo = tip.box.hi = {2.0, 0.5, 0};
  tip.value = {0.2, -1.0, 0};
  spec.loads.push_back(tip);
  spec.solver = LinearSolver::Direct;
  return spec;
}

NewmarkSettings damped(LoadHistory::Kind history) {
  NewmarkSettings s;
  s.rayleigh_mass = 0.05;
  s.rayleigh_stiffness = 0.01;
  s.load.kind = history;
  s.load.period = 1.0;
  return s;
}

std::vector<Sensor> sensors() {
  Sensor tip{{2.0, 0.5, 0}, 1}, middle_x{{1.0, 0.5, 0}, 0}, middle_y{{1.0, 0.0, 0}, 1};
  return {tip, middle_x, middle_y};
}

std::vector<double> steps() {
  return std::vector<double>(30, 0.25);
}

/// The problem: a solver with random densities, and measurements made with densities 0.8.
struct Problem {
  explicit Problem(const Communicator& comm, bool stretched = false)
      : domain(comm, beam(stretched)), solver(domain, cantilever_spec()) {
    fill_value(solver.density(), solver.density().owned(), 0.8);
    misfit.sensors = sensors();
    misfit.measured = record_sensors(solver, settings, misfit.sensors, steps());
    fill_global_random(solver.density(), 5, 0.5, 0.5);
  }
  Domain domain;
  LinearElasticity solver;
  NewmarkSettings settings = damped(LoadHistory::Kind::Constant);
  DisplacementMisfit misfit;
};

double cell_dot(const Communicator& comm, const Field& a, const Field& b) {
  const FieldView x = a.view(), y = b.view();
  return comm.sum(local_sum(
      "test::cell_dot", a.owned(),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += x(i, j, k) * y(i, j, k); }));
}

NodeVector random_nodes(LinearElasticity& s, std::uint64_t seed, bool free_only) {
  NodeVector v = s.make_node_vector("random");
  for (int c = 0; c < s.dim(); ++c) {
    fill_global_random(v[c], seed + std::uint64_t(c), -1.0, 2.0);
    s.node_halo().fill(v[c]);
  }
  if (free_only) { // zero on supported components, where the state is always zero
    NodeVector free = s.make_node_vector("free");
    for (int c = 0; c < s.dim(); ++c)
      fill_value(free[c], free[c].ghosted(), 1.0);
    combine(s.dim(), 1.0, free, -1.0, &s.supported(), free);
    for (int c = 0; c < s.dim(); ++c) {
      const FieldView x = v[c].view(), m = free[c].view();
      Kokkos::parallel_for(
          "test::mask", x.span(), KOKKOS_LAMBDA(std::size_t q) { x.data()[q] *= m.data()[q]; });
    }
  }
  return v;
}

// The adjoint of one Newmark step is the transpose of the step (with the load switched off the
// step is linear in (u, v, a)): <L x, y> = <x, L^T y>.
TEST(ElastodynamicsAdjoint, StepAdjointIsTheTransposeOfTheStep) {
  for (bool stretched : {false, true}) {
    Problem p(world(), stretched);
    LinearElasticity& s = p.solver;
    for (int c = 0; c < 2; ++c)
      fill_value(s.load()[c], s.load()[c].ghosted(), 0.0);
    Newmark run(s, p.settings);
    NewmarkAdjoint adjoint(run);
    run.start();
    const double dt = 0.3;
    NodeVector x[3] = {random_nodes(s, 1, true), random_nodes(s, 11, true),
                       random_nodes(s, 21, true)};
    NodeVector* state[3] = {&run.displacement(), &run.velocity(), &run.acceleration()};
    for (int q = 0; q < 3; ++q)
      for (int c = 0; c < 2; ++c)
        copy(x[q][c], (*state[q])[c]);
    run.step(dt);
    NodeVector y[3] = {random_nodes(s, 31, true), random_nodes(s, 41, true),
                       random_nodes(s, 51, true)};
    double forward = 0;
    for (int q = 0; q < 3; ++q)
      forward += s.dot(*state[q], y[q]);
    adjoint.step(dt, y[0], y[1], y[2]);
    double backward = 0;
    for (int q = 0; q < 3; ++q)
      backward += s.dot(x[q], y[q]);
    EXPECT_NEAR(forward, backward, 1e-11 * std::abs(forward)) << "stretched " << stretched;
    if (world().is_root())
      std::printf("Newmark step%s: <L x, y> = %.15e, <x, L^T y> = %.15e\n",
                  stretched ? " (stretched grid)" : "", forward, backward);
  }
}

// Taylor tests of every parameter type through the whole loop, with a load applied suddenly
// (the start's mass solve is differentiated too) and with a half-sine pulse; and the step load
// on a stretched grid.
TEST(ElastodynamicsAdjoint, TaylorTestsOfEveryParameter) {
  for (int run = 0; run < 3; ++run) {
    const LoadHistory::Kind history =
        run == 1 ? LoadHistory::Kind::HalfSine : LoadHistory::Kind::Constant;
    const bool stretched = run == 2;
    Problem p(world(), stretched);
    p.settings = damped(history);
    p.misfit.measured = record_sensors(p.solver, p.settings, p.misfit.sensors, steps());
    // The measurements came from the random densities: move away from them.
    fill_value(p.solver.density(), p.solver.density().owned(), 0.7);
    LinearElasticity& s = p.solver;
    const Communicator& comm = world();
    const Log log(comm);
    const double J0 = dynamic_objective(s, p.settings, p.misfit, steps());
    const DynamicGradient g =
        dynamic_gradient(s, p.settings, p.misfit, steps(), Checkpointing{}, log, 0);
    EXPECT_NEAR(g.objective, J0, kRepeat * J0);
    const std::string name =
        std::string(history == LoadHistory::Kind::Constant ? "step load" : "pulse") +
        (stretched ? ", stretched" : "");

    Field base(s.domain(), Location::Cell, 0, "base"), drho(s.domain(), Location::Cell, 0, "d");
    copy(s.density(), base);
    fill_global_random(drho, 77, -0.2, 0.4);
    auto J_rho = [&](double h) {
      copy(base, s.density());
      axpy(h, drho, s.density());
      const double J = dynamic_objective(s, p.settings, p.misfit, steps());
      copy(base, s.density());
      return J;
    };
    EXPECT_GE(
        taylor_rate(J_rho, J0, cell_dot(comm, g.density, drho), (name + ", densities").c_str()),
        1.9);

    const double E0 = s.simp().E0;
    auto J_E = [&](double h) {
      s.simp().E0 = E0 * (1 + h);
      const double J = dynamic_objective(s, p.settings, p.misfit, steps());
      s.simp().E0 = E0;
      return J;
    };
    EXPECT_GE(taylor_rate(J_E, J0, E0 * g.youngs_modulus, (name + ", E0").c_str()), 1.9);

    NodeVector f0 = s.make_node_vector("f0"), df = random_nodes(s, 91, false);
    combine(2, 1.0, s.load(), 0.0, nullptr, f0);
    auto J_f = [&](double h) {
      combine(2, 1.0, f0, h, &df, s.load());
      const double J = dynamic_objective(s, p.settings, p.misfit, steps());
      combine(2, 1.0, f0, 0.0, nullptr, s.load());
      return J;
    };
    EXPECT_GE(taylor_rate(J_f, J0, s.dot(g.load, df), (name + ", loads").c_str()), 1.9);

    const double rho_m = s.spec().mass_density;
    auto J_m = [&](double h) {
      s.set_mass_density(rho_m * (1 + h));
      const double J = dynamic_objective(s, p.settings, p.misfit, steps());
      s.set_mass_density(rho_m);
      return J;
    };
    EXPECT_GE(taylor_rate(J_m, J0, rho_m * g.mass_density, (name + ", mass density").c_str()), 1.9);

    // The Rayleigh coefficients, each scaled by (1 + 10 h).
    const NewmarkSettings base_settings = p.settings;
    using Coefficient = double NewmarkSettings::*;
    for (const auto& rayleigh :
         {std::make_pair(Coefficient(&NewmarkSettings::rayleigh_mass), g.rayleigh_mass),
          std::make_pair(Coefficient(&NewmarkSettings::rayleigh_stiffness),
                         g.rayleigh_stiffness)}) {
      const Coefficient coefficient = rayleigh.first;
      auto J_c = [&](double h) {
        p.settings.*coefficient = base_settings.*coefficient * (1 + 10 * h);
        const double J = dynamic_objective(s, p.settings, p.misfit, steps());
        p.settings = base_settings;
        return J;
      };
      const bool alpha = coefficient == &NewmarkSettings::rayleigh_mass;
      EXPECT_GE(taylor_rate(J_c, J0, 10 * base_settings.*coefficient * rayleigh.second,
                            (name + (alpha ? ", Rayleigh alpha" : ", Rayleigh beta")).c_str()),
                1.9);
    }
  }
}

Checkpointing plan(Checkpointing::Schedule schedule, int ram, int disk) {
  Checkpointing c;
  c.schedule = schedule;
  c.ram_slots = ram;
  c.disk_slots = disk;
  c.file = "elastodynamics_checkpoints_np" + std::to_string(world().size()) + ".h5";
  return c;
}

// The same gradient whichever way the forward states are kept: recomputed steps and restored
// checkpoints (HDF5 ones included) give back the states of the first run.
TEST(ElastodynamicsAdjoint, SameGradientWithEveryCheckpointingSchedule) {
  Problem p(world());
  const Log log(world());
  using S = Checkpointing::Schedule;
  const DynamicGradient all =
      dynamic_gradient(p.solver, p.settings, p.misfit, steps(), plan(S::All, 0, 0), log, 0);
  for (const Checkpointing& c :
       {plan(S::Revolve, 3, 0), plan(S::Multistage, 2, 2), plan(S::Online, 2, 2)}) {
    const DynamicGradient g = dynamic_gradient(p.solver, p.settings, p.misfit, steps(), c, log, 0);
    EXPECT_NEAR(g.objective, all.objective, kRepeat * all.objective);
    EXPECT_NEAR(g.youngs_modulus, all.youngs_modulus, kRepeat * std::abs(all.youngs_modulus));
    EXPECT_NEAR(g.mass_density, all.mass_density, kRepeat * std::abs(all.mass_density));
    const double norm = cell_dot(world(), all.density, all.density);
    EXPECT_NEAR(cell_dot(world(), g.density, g.density), norm, kRepeat * norm);
    EXPECT_GT(g.recomputed_steps, 0);
    if (c.disk_slots > 0) {
      EXPECT_GT(g.bytes_written, 0);
    }
  }
}

// J and its gradient on 1, 2 and 4 ranks equal those of one rank.
TEST(ElastodynamicsAdjoint, DecompositionInvariance) {
  const auto& comm = world();
  const Communicator alone = comm.split(comm.rank() == 0 ? 0 : 1, comm.rank());
  const Log log(comm);
  Problem p(comm);
  const DynamicGradient g =
      dynamic_gradient(p.solver, p.settings, p.misfit, steps(), Checkpointing{}, log, 0);
  const double norm = cell_dot(comm, g.density, g.density);
  const double load_norm = p.solver.dot(g.load, g.load);
  if (comm.rank() != 0)
    return;
  Problem q(alone);
  const Log quiet(alone);
  const DynamicGradient serial =
      dynamic_gradient(q.solver, q.settings, q.misfit, steps(), Checkpointing{}, quiet, 0);
  const double tol = 1e-10;
  EXPECT_NEAR(g.objective, serial.objective, tol * serial.objective);
  EXPECT_NEAR(g.youngs_modulus, serial.youngs_modulus, tol * std::abs(serial.youngs_modulus));
  EXPECT_NEAR(g.rayleigh_mass, serial.rayleigh_mass, tol * std::abs(serial.rayleigh_mass));
  EXPECT_NEAR(norm, cell_dot(alone, serial.density, serial.density), tol * norm);
  EXPECT_NEAR(load_norm, q.solver.dot(serial.load, serial.load), tol * load_norm);
  std::printf("%d ranks: J = %.15e (1 rank %.15e), dJ/dE0 = %.15e (1 rank %.15e)\n", comm.size(),
              g.objective, serial.objective, g.youngs_modulus, serial.youngs_modulus);
}

} // namespace

namespace {

/// Two zones of a cantilever (x below or above half its length), for the identification test.
void set_zones(LinearElasticity& s, double left, double right) {
  const FieldView rho = s.density().view();
  const GridGeometry g = s.density().geometry();
  for_each(
      "test::zones", s.density().owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        rho(i, j, k) = g.coordinate(0, i) < 1.0 ? left : right;
      });
}

/// The sum of a cell field over each zone.
std::array<double, 2> zone_sums(const Communicator& comm, const Field& f) {
  const FieldView v = f.view();
  const GridGeometry g = f.geometry();
  std::array<double, 2> out{};
  for (int z = 0; z < 2; ++z)
    out[static_cast<std::size_t>(z)] = comm.sum(local_sum(
        "test::zone_sum", f.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          if ((g.coordinate(0, i) < 1.0) == (z == 0))
            acc += v(i, j, k);
        }));
  return out;
}

struct Identification {
  LinearElasticity* solver;
  const NewmarkSettings* settings;
  const DisplacementMisfit* misfit;
  const Log* log;
  int evaluations = 0;
};

/// TAO's objective and gradient: the zones' densities in, J and dJ/dzone out.
PetscErrorCode misfit_and_gradient(Tao, Vec x, PetscReal* J, Vec g, void* context) {
  auto& id = *static_cast<Identification*>(context);
  const PetscScalar* theta = nullptr;
  VecGetArrayRead(x, &theta);
  set_zones(*id.solver, theta[0], theta[1]);
  VecRestoreArrayRead(x, &theta);
  const DynamicGradient grad =
      dynamic_gradient(*id.solver, *id.settings, *id.misfit, steps(), Checkpointing{}, *id.log, 0);
  const std::array<double, 2> dJ = zone_sums(id.solver->domain().comm(), grad.density);
  *J = grad.objective;
  PetscScalar* out = nullptr;
  VecGetArray(g, &out);
  out[0] = dJ[0];
  out[1] = dJ[1];
  VecRestoreArray(g, &out);
  ++id.evaluations;
  return 0;
}

// The inverse problem: the Young's moduli of two zones of a cantilever, E = rho^3 E0 with
// rho = (1, 0.6), identified from the displacement histories of three sensors by TAO's bounded
// quasi-Newton method with adjoint gradients, from rho = (0.8, 0.8).
TEST(ElastodynamicsAdjoint, IdentifiesTwoZoneModulusFromSensorHistories) {
  Problem p(world());
  set_zones(p.solver, 1.0, 0.6);
  p.misfit.measured = record_sensors(p.solver, p.settings, p.misfit.sensors, steps());
  const Log log(world());
  Identification id{&p.solver, &p.settings, &p.misfit, &log};
  Tao tao;
  Vec x, lo, hi;
  ASSERT_EQ(TaoCreate(PETSC_COMM_SELF, &tao), 0); // every rank runs the same 2-parameter TAO
  TaoSetType(tao, TAOBLMVM);
  VecCreateSeq(PETSC_COMM_SELF, 2, &x);
  VecDuplicate(x, &lo);
  VecDuplicate(x, &hi);
  VecSet(x, 0.8);
  VecSet(lo, 0.2);
  VecSet(hi, 1.0);
  TaoSetSolution(tao, x);
  TaoSetVariableBounds(tao, lo, hi);
  TaoSetObjectiveAndGradient(tao, nullptr, misfit_and_gradient, &id);
  TaoSetTolerances(tao, 1e-8, 0, 0); // stop at |grad J| < 1e-8
  TaoSetMaximumIterations(tao, 60);
  set_zones(p.solver, 0.8, 0.8);
  const double J_start = dynamic_objective(p.solver, p.settings, p.misfit, steps());
  ASSERT_EQ(TaoSolve(tao), 0);
  const PetscScalar* theta = nullptr;
  VecGetArrayRead(x, &theta);
  const double left = theta[0], right = theta[1];
  VecRestoreArrayRead(x, &theta);
  PetscInt iterations = 0;
  TaoGetIterationNumber(tao, &iterations);
  set_zones(p.solver, left, right);
  const double J_end = dynamic_objective(p.solver, p.settings, p.misfit, steps());
  if (world().is_root())
    std::printf("identified rho = (%.8f, %.8f), true (1, 0.6), after %d iterations and %d "
                "gradients; J %.3e -> %.3e\n",
                left, right, int(iterations), id.evaluations, J_start, J_end);
  EXPECT_NEAR(left, 1.0, 1e-4);
  EXPECT_NEAR(right, 0.6, 1e-4);
  EXPECT_LT(J_end, 1e-8 * J_start);
  VecDestroy(&x);
  VecDestroy(&lo);
  VecDestroy(&hi);
  TaoDestroy(&tao);
}

} // namespace
