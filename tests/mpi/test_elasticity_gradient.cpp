// Gradients of static elasticity objectives (compliance, a tip displacement) with respect to
// the element densities, the loads and E0: Taylor tests, whose first-order remainder must fall
// at second order, on 1, 2 and 4 ranks, on uniform and stretched grids.

#include "test_support.hpp"

#include "undertow/core/reductions.hpp"
#include "undertow/solvers/elasticity/static_adjoint.hpp"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using namespace undertow::elasticity;
using undertow::elasticity::StaticGradient;
using undertow::elasticity::StaticObjective;
using undertow::testing::fill_global_random;
using undertow::testing::taylor_rate;
using undertow::testing::world;

/// A heterogeneous 2D or 3D cantilever under a tip traction and its own weight.
ElasticitySpec cantilever(const DomainSpec& d) {
  ElasticitySpec spec;
  Box root;
  root.hi = {0, d.length[1], d.length[2]};
  spec.supports.push_back({root, {true, true, true}, {0, 0, 0}});
  Load tip;
  tip.kind = LoadKind::Traction;
  tip.box.lo = {d.length[0], 0, 0};
  tip.box.hi = {d.length[0], d.length[1], d.length[2]};
  tip.value = {0.2, -1.0, 0.1};
  spec.loads.push_back(tip);
  Load weight;
  weight.kind = LoadKind::Body;
  weight.box.hi = {d.length[0], d.length[1], d.length[2]};
  weight.value = {0.0, -0.3, 0.0};
  spec.loads.push_back(weight);
  spec.simp.E0 = 2.0;
  spec.simp.E_min = 1e-3;
  spec.solver = LinearSolver::Direct;
  return spec;
}

void check_gradients(int dim, bool compliance, bool stretched = false) {
  const auto& comm = world();
  DomainSpec d;
  d.dim = dim;
  d.cells = {12, 4, 3};
  d.length = {3.0, 1.0, 0.75};
  if (stretched) // cells 0.6 to 1.4 times the mean width along every axis
    d = undertow::testing::stretch_axes(d, 0.4);
  const Domain domain(comm, d);
  LinearElasticity s(domain, cantilever(d));
  fill_global_random(s.density(), 5, 0.2, 0.7);
  StaticObjective objective;
  if (!compliance) { // u_y at the tip's lower corner
    objective.compliance_weight = 0.0;
    objective.displacement_weights = s.make_node_vector("g");
    auto host = Kokkos::create_mirror_view(objective.displacement_weights[1].view());
    Kokkos::deep_copy(host, 0.0);
    const GridGeometry g = objective.displacement_weights[1].geometry();
    const IndexSpace o = objective.displacement_weights[1].owned();
    for (long k = o.begin[2]; k < o.end[2]; ++k)
      for (long j = o.begin[1]; j < o.end[1]; ++j)
        for (long i = o.begin[0]; i < o.end[0]; ++i)
          if (std::abs(g.coordinate(0, i) - d.length[0]) < 1e-9 &&
              std::abs(g.coordinate(1, j)) < 1e-9 &&
              (dim == 2 || std::abs(g.coordinate(2, k)) < 1e-9))
            host(i, j, k) = 1.0;
    Kokkos::deep_copy(objective.displacement_weights[1].view(), host);
  }
  s.solve();
  const StaticGradient grad = elasticity::static_gradient(s, objective);
  const double J0 = grad.value;
  const std::string name = std::to_string(dim) + "D " + (stretched ? "stretched " : "") +
                           (compliance ? "compliance" : "tip u_y");

  // Densities.
  Field rho0(domain, Location::Cell, 0, "rho0"), drho(domain, Location::Cell, 0, "drho");
  copy(s.density(), rho0);
  fill_global_random(drho, 17, -1.0, 2.0);
  const double slope_rho = global_dot(comm, grad.density, drho);
  auto J_rho = [&](double h) {
    copy(rho0, s.density());
    axpy(h, drho, s.density());
    s.solve();
    return elasticity::static_objective(s, objective);
  };
  EXPECT_GE(taylor_rate(J_rho, J0, slope_rho, (name + ", densities").c_str()), 1.9);
  copy(rho0, s.density());

  // Loads (free components only move u).
  NodeVector f0 = s.make_node_vector("f0"), df = s.make_node_vector("df");
  for (int c = 0; c < dim; ++c) {
    copy(s.load()[c], f0[c]);
    fill_global_random(df[c], 31 + c, -1.0, 2.0);
  }
  const double slope_f = s.dot(grad.load, df);
  auto J_f = [&](double h) {
    for (int c = 0; c < dim; ++c) {
      copy(f0[c], s.load()[c]);
      axpy(h, df[c], s.load()[c]);
    }
    s.solve();
    return elasticity::static_objective(s, objective);
  };
  EXPECT_GE(taylor_rate(J_f, J0, slope_f, (name + ", loads").c_str()), 1.9);
  for (int c = 0; c < dim; ++c)
    copy(f0[c], s.load()[c]);

  // E0.
  const double E0 = s.simp().E0;
  auto J_E = [&](double h) {
    s.simp().E0 = E0 + h;
    s.solve();
    return elasticity::static_objective(s, objective);
  };
  EXPECT_GE(taylor_rate(J_E, J0, grad.youngs_modulus, (name + ", E0").c_str()), 1.9);
  s.simp().E0 = E0;
}

TEST(ElasticityGradient, CompliancePassesTaylorTests) {
  check_gradients(2, true);
  check_gradients(3, true);
}

TEST(ElasticityGradient, TipDisplacementPassesTaylorTests) {
  check_gradients(2, false);
  check_gradients(3, false);
}

TEST(ElasticityGradient, StretchedGridsPassTaylorTests) {
  for (int dim : {2, 3}) {
    check_gradients(dim, true, true);
    check_gradients(dim, false, true);
  }
}

} // namespace
