// Advection-diffusion: the point functions, second-order convergence to the exact Fourier-mode
// solution (periodic and Dirichlet walls, 2D and 3D), and identical results on 1, 2 and 4 ranks.

#include "test_support.hpp"

#include "undertow/core/reductions.hpp"
#include "undertow/solvers/scalar/advection_diffusion.hpp"
#include "undertow/solvers/scalar/advection_diffusion_terms.hpp"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using namespace undertow::scalar;
using undertow::testing::make_spec;
using undertow::testing::world;

struct Outcome {
  ErrorNorms error;
  std::vector<double> field; ///< gathered on rank 0
};

/// Runs to t_end with dt proportional to h (Courant number fixed) on `comm`.
Outcome run(const Communicator& comm, const DomainSpec& spec, double t_end = 0.5) {
  const Domain d(comm, spec);
  AdvectionDiffusionParams p;
  p.kappa = 0.02;
  p.velocity = {0.8, -0.5, spec.dim == 3 ? 0.3 : 0.0};
  p.mode = {1, 2, spec.dim == 3 ? 1 : 0};
  AdvectionDiffusion solver(d, p);
  solver.initialise(0.0);
  const long steps = static_cast<long>(std::ceil(t_end / solver.stable_dt(0.4)));
  for (long n = 0; n < steps; ++n)
    solver.step(t_end / double(steps));
  EXPECT_NEAR(solver.time(), t_end, 1e-12);
  return {solver.error(), gather_to_root(comm, solver.concentration())};
}

DomainSpec spec(int dim, long n, std::array<bool, 3> periodic) {
  DomainSpec s = make_spec(dim, {n, n, n}, periodic);
  s.length = {1.0, 1.0, 1.0};
  return s;
}

/// log2 of successive error ratios over grids n, 2n, 4n.
std::vector<double> orders(const std::vector<double>& errors) {
  std::vector<double> out;
  for (std::size_t i = 1; i < errors.size(); ++i)
    out.push_back(std::log2(errors[i - 1] / errors[i]));
  return out;
}

TEST(AdvectionDiffusionTerms, FluxesMatchTheirDefinitions) {
  // A uniform state carries flux u c and no diffusive flux.
  EXPECT_DOUBLE_EQ(face_flux(2.0, 0.1, 10.0, 3.0, 3.0), 6.0);
  // A linear profile c = x has diffusive flux -kappa.
  EXPECT_DOUBLE_EQ(diffusive_flux(0.25, 1.0 / 0.1, 1.0, 1.1), -0.25);
  // The ghost puts the boundary value on the face between ghost and inner cell.
  EXPECT_DOUBLE_EQ(0.5 * (dirichlet_ghost(2.0, 1.5) + 1.5), 2.0);
  // SSP-RK3 stage weights: a * c0 + b * (c + dt rhs).
  EXPECT_DOUBLE_EQ(rk_stage(0.75, 4.0, 0.25, 2.0, 0.5, 4.0), 4.0);
}

TEST(AdvectionDiffusion, ExactSolutionSolvesThePde) {
  FourierMode m;
  m.kappa = 0.03;
  m.k[0] = 2.0 * math::pi;
  m.k[1] = 4.0 * math::pi;
  m.velocity[0] = 0.7;
  m.velocity[1] = -0.2;
  // Central differences of the exact solution: dc/dt + u.grad c - kappa lap c = O(eps^2).
  const double x = 0.31, y = 0.62, z = 0.0, t = 0.4, e = 1e-4;
  const double dcdt = (m.value(x, y, z, t + e) - m.value(x, y, z, t - e)) / (2 * e);
  const double dcdx = (m.value(x + e, y, z, t) - m.value(x - e, y, z, t)) / (2 * e);
  const double dcdy = (m.value(x, y + e, z, t) - m.value(x, y - e, z, t)) / (2 * e);
  const double c = m.value(x, y, z, t);
  const double lap = (m.value(x + e, y, z, t) + m.value(x - e, y, z, t) + m.value(x, y + e, z, t) +
                      m.value(x, y - e, z, t) - 4 * c) /
                     (e * e);
  EXPECT_NEAR(dcdt + m.velocity[0] * dcdx + m.velocity[1] * dcdy - m.kappa * lap, 0.0, 1e-5);
}

TEST(AdvectionDiffusion, SecondOrderConvergence2D) {
  const auto& comm = world();
  for (const auto& periodic : std::vector<std::array<bool, 3>>{
           {true, true, false}, {true, false, false}, {false, false, false}}) {
    std::vector<double> l2, linf;
    for (long n : {16, 32, 64}) {
      const Outcome o = run(comm, spec(2, n, periodic));
      l2.push_back(o.error.l2);
      linf.push_back(o.error.linf);
    }
    for (double p : orders(l2))
      EXPECT_GT(p, 1.9) << "RMS order, periodic " << periodic[0] << periodic[1];
    if (comm.is_root())
      std::printf("2D periodic %d%d: RMS errors 16/32/64 %.4e %.4e %.4e, orders %.3f %.3f\n",
                  int(periodic[0]), int(periodic[1]), l2[0], l2[1], l2[2], orders(l2)[0],
                  orders(l2)[1]);
    for (double p : orders(linf))
      EXPECT_GT(p, 1.85) << "max order, periodic " << periodic[0] << periodic[1];
    EXPECT_LT(l2.back(), 5e-3);
  }
}

TEST(AdvectionDiffusion, SecondOrderConvergence3D) {
  const auto& comm = world();
  for (const auto& periodic :
       std::vector<std::array<bool, 3>>{{true, true, true}, {true, false, true}}) {
    std::vector<double> l2;
    for (long n : {8, 16, 32})
      l2.push_back(run(comm, spec(3, n, periodic), 0.25).error.l2);
    for (double p : orders(l2))
      EXPECT_GT(p, 1.9) << "3D RMS order, periodic " << periodic[0] << periodic[1] << periodic[2];
    if (comm.is_root())
      std::printf("3D: RMS errors 8/16/32 %.4e %.4e %.4e, orders %.3f %.3f\n", l2[0], l2[1], l2[2],
                  orders(l2)[0], orders(l2)[1]);
  }
}

/// `s` stretched smoothly along every axis that is not periodic (cells 0.6 to 1.4 times the
/// mean width).
DomainSpec stretched(DomainSpec s) {
  for (int a = 0; a < s.dim; ++a)
    if (!s.periodic[a])
      s.faces[a] = undertow::testing::smoothly_stretched(s.cells[a], s.length[a], 0.4, s.origin[a]);
  return s;
}

// On stretched grids (walls on the stretched axes): still second order.
TEST(AdvectionDiffusion, SecondOrderConvergenceStretched) {
  const auto& comm = world();
  for (const auto& periodic :
       std::vector<std::array<bool, 3>>{{true, false, false}, {false, false, false}}) {
    std::vector<double> l2, linf;
    for (long n : {16, 32, 64}) {
      const Outcome o = run(comm, stretched(spec(2, n, periodic)));
      l2.push_back(o.error.l2);
      linf.push_back(o.error.linf);
    }
    if (comm.is_root())
      std::printf("2D stretched, periodic %d%d: RMS errors 16/32/64 %.4e %.4e %.4e, orders %.3f "
                  "%.3f; max orders %.3f %.3f\n",
                  int(periodic[0]), int(periodic[1]), l2[0], l2[1], l2[2], orders(l2)[0],
                  orders(l2)[1], orders(linf)[0], orders(linf)[1]);
    for (double p : orders(l2))
      EXPECT_GT(p, 1.9) << "RMS order, periodic " << periodic[0] << periodic[1];
    for (double p : orders(linf))
      EXPECT_GT(p, 1.85) << "max order, periodic " << periodic[0] << periodic[1];
  }
}

// Finer grids, on 4 ranks (label slow): the asymptotic order, closer to 2 than on coarse grids.
TEST(AdvectionDiffusionSlow, AsymptoticOrderOnFinerGrids) {
  const auto& comm = world();
  std::vector<double> l2_2d, l2_3d;
  for (long n : {64, 128, 256})
    l2_2d.push_back(run(comm, spec(2, n, {true, false, false}), 0.5).error.l2);
  for (long n : {16, 32, 64})
    l2_3d.push_back(run(comm, spec(3, n, {true, true, false}), 0.25).error.l2);
  for (double p : orders(l2_2d))
    EXPECT_NEAR(p, 2.0, 0.05) << "2D";
  for (double p : orders(l2_3d))
    EXPECT_NEAR(p, 2.0, 0.1) << "3D";
  if (comm.is_root()) {
    std::printf("2D RMS errors 64/128/256: %.4e %.4e %.4e\n", l2_2d[0], l2_2d[1], l2_2d[2]);
    std::printf("3D RMS errors 16/32/64:   %.4e %.4e %.4e\n", l2_3d[0], l2_3d[1], l2_3d[2]);
  }
}

/// The run on all ranks against the same run on the first 1 (and 2) ranks alone.
void expect_decomposition_invariant(const DomainSpec& s, double t_end) {
  const auto& comm = world();
  const Outcome full = run(comm, s, t_end);
  for (int ranks : {1, 2}) {
    if (ranks >= comm.size())
      continue;
    const Communicator part = comm.split(comm.rank() < ranks ? 0 : 1, comm.rank());
    Outcome ref;
    if (comm.rank() < ranks)
      ref = run(part, s, t_end);
    if (!comm.is_root())
      continue;
    ASSERT_EQ(ref.field.size(), full.field.size());
    double scale = 0, diff = 0;
    for (std::size_t p = 0; p < ref.field.size(); ++p) {
      scale = std::max(scale, std::abs(ref.field[p]));
      diff = std::max(diff, std::abs(ref.field[p] - full.field[p]));
    }
    EXPECT_LE(diff, 1e-12 * scale) << comm.size() << " ranks against " << ranks;
    EXPECT_NEAR(full.error.l2, ref.error.l2, 1e-12 * ref.error.l2);
    EXPECT_NEAR(full.error.linf, ref.error.linf, 1e-12 * ref.error.linf);
  }
}

TEST(AdvectionDiffusion, SameResultOnAnyNumberOfRanks2D) {
  for (const auto& periodic :
       std::vector<std::array<bool, 3>>{{true, true, false}, {false, true, false}}) {
    DomainSpec s = make_spec(2, {37, 23, 1}, periodic);
    expect_decomposition_invariant(s, 0.3);
  }
}

TEST(AdvectionDiffusion, SameResultOnAnyNumberOfRanksStretched) {
  expect_decomposition_invariant(stretched(make_spec(2, {37, 23, 1}, {false, true, false})), 0.3);
}

TEST(AdvectionDiffusion, SameResultOnAnyNumberOfRanks3D) {
  DomainSpec s = make_spec(3, {17, 13, 11}, {true, false, true});
  expect_decomposition_invariant(s, 0.1);
}

} // namespace
