// Linear elasticity with Q1 elements: the element matrix (symmetry, rigid-body null space, any
// box from the unit box's parts), the matrix-free operator and the element-energy kernel against
// each other (dot-product tests), the patch test in 2D and 3D, the plane-stress cantilever
// against the exact Timoshenko-Goodier solution at second order, a 3D cantilever against
// Timoshenko beam theory, bad input, and the same displacement on 1, 2 and 4 ranks; on uniform
// and on stretched grids.

#include "test_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/solvers/elasticity/elasticity.hpp"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using namespace undertow::elasticity;
using undertow::testing::fill_global_random;
using undertow::testing::fill_random;
using undertow::testing::relative_max_difference;
using undertow::testing::world;

DomainSpec box(int dim, std::array<long, 3> cells, std::array<double, 3> length,
               std::array<double, 3> origin = {0, 0, 0}) {
  DomainSpec s;
  s.dim = dim;
  s.cells = cells;
  s.length = length;
  s.origin = origin;
  return s;
}

/// Every active axis stretched smoothly (cells 0.6 to 1.4 times the mean width).
DomainSpec stretched(const DomainSpec& s) {
  return undertow::testing::stretch_axes(s, 0.4);
}

/// The same cells given as a stretched axis's faces of equal widths: the stretched code path on
/// a uniform grid.
DomainSpec equal_faces(const DomainSpec& s) {
  return undertow::testing::stretch_axes(s, 0.0);
}

Box whole_face(const DomainSpec& d, int axis, int side) {
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = d.origin[a];
    b.hi[a] = d.origin[a] + d.length[a];
  }
  b.lo[axis] = b.hi[axis] = d.origin[axis] + (side == 0 ? 0.0 : d.length[axis]);
  return b;
}

using VectorFunction = std::function<std::array<double, 3>(double, double, double)>;

/// Sets the owned values of a node vector from f(x, y, z), then fills its ghosts.
void set_nodes(LinearElasticity& s, NodeVector& v, const VectorFunction& f) {
  for (int c = 0; c < s.dim(); ++c) {
    auto host = Kokkos::create_mirror_view(v[c].view());
    Kokkos::deep_copy(host, v[c].view());
    const GridGeometry g = v[c].geometry();
    const IndexSpace o = v[c].owned();
    for (long k = o.begin[2]; k < o.end[2]; ++k)
      for (long j = o.begin[1]; j < o.end[1]; ++j)
        for (long i = o.begin[0]; i < o.end[0]; ++i)
          host(i, j, k) = f(g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k))[c];
    Kokkos::deep_copy(v[c].view(), host);
    s.node_halo().fill(v[c]);
  }
}

/// Largest |v - f| over owned nodes and components, on every rank.
double max_error(const LinearElasticity& s, const NodeVector& v, const VectorFunction& f) {
  double worst = 0;
  for (int c = 0; c < s.dim(); ++c) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v[c].view());
    const GridGeometry g = v[c].geometry();
    const IndexSpace o = v[c].owned();
    for (long k = o.begin[2]; k < o.end[2]; ++k)
      for (long j = o.begin[1]; j < o.end[1]; ++j)
        for (long i = o.begin[0]; i < o.end[0]; ++i) {
          const double exact = f(g.coordinate(0, i), g.coordinate(1, j), g.coordinate(2, k))[c];
          worst = std::max(worst, std::abs(host(i, j, k) - exact));
        }
  }
  return s.domain().comm().max(worst);
}

/// Zeroes `v` where `mask` is 0, ghosts included.
void keep_masked(Field& v, const Field& mask) {
  const FieldView l = v.view(), m = mask.view();
  for_each(
      "test::keep_masked", v.ghosted(),
      KOKKOS_LAMBDA(long i, long j, long k) { l(i, j, k) *= m(i, j, k); });
}

/// Boundary values that vary node by node, lifted: u = w + l with l = f on the supported
/// components (0 elsewhere), w = 0 there, and K w = load - K l. Subtracts K l from the solver's
/// load and returns l.
NodeVector lift(LinearElasticity& s, const VectorFunction& f) {
  NodeVector l = s.make_node_vector("lifted"), kl = s.make_node_vector("k_lifted");
  set_nodes(s, l, f);
  for (int c = 0; c < s.dim(); ++c)
    keep_masked(l[c], s.supported()[c]);
  s.apply_stiffness(l, kl);
  for (int c = 0; c < s.dim(); ++c)
    axpy(-1.0, kl[c], s.load()[c]);
  return l;
}

/// The elements' Young's moduli E(rho_e).
Field modulus(const LinearElasticity& s) {
  Field E(s.domain(), Location::Cell, 0, "E");
  const FieldView rho = s.density().view(), e = E.view();
  const Simp simp = s.spec().simp;
  for_each(
      "test::modulus", E.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { e(i, j, k) = simp.modulus(rho(i, j, k)); });
  return E;
}

// ---------------------------------------------------------------------------------------------

TEST(Elasticity, ElementMatrixIsSymmetricWithRigidBodyNullSpace) {
  for (int dim : {2, 3}) {
    const double h[3] = {0.7, 1.3, 0.9};
    const Lame lame = unit_lame(0.3, dim, true);
    const int nn = nodes_per_element(dim), nd = dim * nn;
    std::vector<double> k(nd * nd);
    for (int r = 0; r < nd; ++r)
      for (int s = 0; s < nd; ++s)
        k[r * nd + s] = unit_stiffness(dim, h, lame, r, s);
    double scale = 0;
    for (double v : k)
      scale = std::max(scale, std::abs(v));
    for (int r = 0; r < nd; ++r)
      for (int s = 0; s < nd; ++s)
        EXPECT_NEAR(k[r * nd + s], k[s * nd + r], 1e-15 * scale);
    // Translations and infinitesimal rotations produce no force.
    std::vector<std::vector<double>> modes;
    for (int c = 0; c < dim; ++c) {
      std::vector<double> t(nd, 0.0);
      for (int n = 0; n < nn; ++n)
        t[dim * n + c] = 1.0;
      modes.push_back(t);
    }
    for (int a = 0; a < dim; ++a)
      for (int b = a + 1; b < dim; ++b) {
        std::vector<double> rot(nd, 0.0);
        for (int n = 0; n < nn; ++n) {
          rot[dim * n + a] = -node_offset(n, b) * h[b];
          rot[dim * n + b] = node_offset(n, a) * h[a];
        }
        modes.push_back(rot);
      }
    for (const auto& m : modes)
      for (int r = 0; r < nd; ++r) {
        double f = 0;
        for (int s = 0; s < nd; ++s)
          f += k[r * nd + s] * m[s];
        EXPECT_NEAR(f, 0.0, 1e-14 * scale) << "dim " << dim;
      }
    // A uniform stretch along x: the force on the x = h face equals the stress times its area.
    std::vector<double> stretch(nd, 0.0);
    for (int n = 0; n < nn; ++n)
      stretch[dim * n] = node_offset(n, 0) * h[0] * 1e-3; // eps_xx = 1e-3
    double force = 0;
    for (int n = 0; n < nn; ++n)
      if (node_offset(n, 0) == 1)
        for (int s = 0; s < nd; ++s)
          force += k[dim * n * nd + s] * stretch[s];
    const double area = dim == 2 ? h[1] : h[1] * h[2];
    EXPECT_NEAR(force, (lame.lambda + 2 * lame.mu) * 1e-3 * area, 1e-15) << "dim " << dim;
    // Stretched grids form each element's matrices from the unit box's:
    // k0(h) = V sum_ab S_ab / (h_a h_b) and m0(h) = V m0(1).
    const double unit[3] = {1.0, 1.0, 1.0};
    const double volume = dim == 2 ? h[0] * h[1] : h[0] * h[1] * h[2];
    double mass_scale = 0;
    for (int r = 0; r < nd; ++r)
      for (int s = 0; s < nd; ++s)
        mass_scale = std::max(mass_scale, unit_mass(dim, h, r, s));
    for (int r = 0; r < nd; ++r)
      for (int s = 0; s < nd; ++s) {
        double from_parts = 0;
        for (int a = 0; a < dim; ++a)
          for (int b = 0; b < dim; ++b)
            from_parts += volume / (h[a] * h[b]) * stiffness_part(dim, lame, a, b, r, s);
        EXPECT_NEAR(from_parts, k[r * nd + s], 1e-14 * scale) << "dim " << dim;
        EXPECT_NEAR(volume * unit_mass(dim, unit, r, s), unit_mass(dim, h, r, s),
                    1e-15 * mass_scale)
            << "dim " << dim;
      }
  }
}

/// A problem with random densities on `comm`: a cantilever clamped at x = 0.
ElasticitySpec clamped_spec(const DomainSpec& d) {
  ElasticitySpec spec;
  spec.supports.push_back({whole_face(d, 0, 0), {true, true, true}, {0, 0, 0}});
  Load tip;
  tip.kind = LoadKind::Traction;
  tip.box = whole_face(d, 0, 1);
  tip.value = {0.0, -1.0, 0.0};
  spec.loads.push_back(tip);
  spec.rtol = 1e-12;
  return spec;
}

// The matrix-free operator is symmetric across ranks, and the element-energy kernel (the
// sensitivity of b^T K a to each element's modulus) is the transpose of E -> K(E) a.
TEST(Elasticity, DotProductTestsOfOperatorAndElementEnergy) {
  const auto& comm = world();
  for (bool stretch : {false, true})
    for (int dim : {2, 3}) {
      const DomainSpec uniform = box(dim, {9, 7, 5}, {2.0, 1.0, 1.0});
      const DomainSpec d = stretch ? stretched(uniform) : uniform;
      const Domain domain(comm, d);
      LinearElasticity s(domain, clamped_spec(d));
      fill_random(s.density(), 11, comm.rank());
      NodeVector x = s.make_node_vector("x"), y = s.make_node_vector("y");
      NodeVector kx = s.make_node_vector("kx"), ky = s.make_node_vector("ky");
      for (int c = 0; c < dim; ++c) {
        fill_random(x[c], 21 + c, comm.rank());
        fill_random(y[c], 31 + c, comm.rank());
        s.node_halo().fill(x[c]);
        s.node_halo().fill(y[c]);
      }
      s.apply_stiffness(x, kx);
      s.apply_stiffness(y, ky);
      const double xky = s.dot(x, ky), ykx = s.dot(y, kx);
      EXPECT_NEAR(xky, ykx, 1e-13 * std::abs(xky)) << "dim " << dim << ", stretched " << stretch;
      // <K(dE) x, y> with K linear in E: sum_e dE_e y_e^T k0 x_e.
      Field energy(domain, Location::Cell, 0, "energy");
      s.element_energy(y, x, energy);
      const Field E = modulus(s);
      const double by_elements = global_dot(comm, E, energy);
      EXPECT_NEAR(by_elements, ykx, 1e-13 * std::abs(ykx))
          << "dim " << dim << ", stretched " << stretch;
    }
}

// A linear displacement field is reproduced exactly (to the solver's tolerance) when it is
// prescribed on the whole boundary.
TEST(Elasticity, PatchTest) {
  const auto& comm = world();
  for (bool stretch : {false, true})
    for (int dim : {2, 3}) {
      const DomainSpec uniform = box(dim, {7, 6, 5}, {1.4, 1.0, 0.8}, {0.3, -0.2, 0.1});
      const DomainSpec d = stretch ? stretched(uniform) : uniform;
      const Domain domain(comm, d);
      auto linear = [](double x, double y, double z) {
        return std::array<double, 3>{1e-3 * (1 + 2 * x - 3 * y + z), 1e-3 * (-2 + x + 4 * y - z),
                                     1e-3 * (0.5 + 3 * x + y + 2 * z)};
      };
      ElasticitySpec spec;
      for (int a = 0; a < dim; ++a)
        for (int side = 0; side < 2; ++side)
          spec.supports.push_back({whole_face(d, a, side), {true, true, true}, {0, 0, 0}});
      spec.rtol = 1e-13;
      LinearElasticity s(domain, spec);
      const NodeVector lifted = lift(s, linear);
      s.solve();
      NodeVector total = s.make_node_vector("total");
      for (int c = 0; c < dim; ++c) {
        copy(s.displacement()[c], total[c]);
        axpy(1.0, lifted[c], total[c]);
      }
      EXPECT_LT(max_error(s, total, linear), 1e-12) << "dim " << dim << ", stretched " << stretch;
    }
}

/// Timoshenko & Goodier's plane-stress cantilever, 0 <= x <= L, -D/2 <= y <= D/2, unit
/// thickness, an upward parabolic shear load of total P at x = L, the root's axis horizontal at
/// (0, 0). Derived from sigma_xx = -P (L - x) y / I, tau_xy = P (D^2/4 - y^2) / (2 I), sigma_yy =
/// 0 (docs/elasticity.md).
struct Cantilever {
  double L = 4, D = 1, E = 1000, nu = 0.3, P = 1;
  double I() const { return D * D * D / 12; }
  std::array<double, 3> operator()(double x, double y, double) const {
    const double c = P / (E * I());
    const double ux = -c * y * (L * x - x * x / 2) + nu * c * y * y * y / 6 -
                      (1 + nu) * c * y * y * y / 3 + (1 + nu) * c * D * D * y / 4;
    const double uy = nu * c * (L - x) * y * y / 2 + c * (L * x * x / 2 - x * x * x / 6);
    return {ux, uy, 0};
  }
  double shear(double y) const { return P * (D * D / 4 - y * y) / (2 * I()); }
};

/// Relative error of the tip deflection u_y(L, 0) on an (8 m) x (2 m) grid, uniform or
/// stretched.
double cantilever_tip_error(const Communicator& comm, long m, bool stretch) {
  const Cantilever exact;
  const DomainSpec uniform = box(2, {8 * m, 2 * m, 1}, {exact.L, exact.D, 1}, {0, -exact.D / 2, 0});
  const DomainSpec d = stretch ? stretched(uniform) : uniform;
  const Domain domain(comm, d);
  ElasticitySpec spec;
  spec.simp.E0 = exact.E;
  spec.poisson = exact.nu;
  spec.supports.push_back({whole_face(d, 0, 0), {true, true, false}, {0, 0, 0}});
  spec.rtol = 1e-13;
  LinearElasticity s(domain, spec);
  // Consistent nodal forces of the parabolic shear at x = L: two Gauss points per segment.
  auto f = Kokkos::create_mirror_view(s.load()[1].view());
  Kokkos::deep_copy(f, s.load()[1].view());
  const GridGeometry g = s.load()[1].geometry();
  const IndexSpace o = s.load()[1].owned();
  for (long j = o.begin[1]; j < o.end[1]; ++j)
    for (long i = o.begin[0]; i < o.end[0]; ++i) {
      if (std::abs(g.coordinate(0, i) - exact.L) > 1e-9)
        continue;
      const double y = g.coordinate(1, j);
      double load = 0;
      for (int side : {-1, 1}) {                  // the segments below and above the node
        const long node = g.global_offset[1] + j; // global index of the node along y
        if ((side < 0 && node == 0) || (side > 0 && node == d.cells[1]))
          continue;
        const double h = std::abs(g.coordinate(1, j + side) - y);
        for (double xi : {-1 / std::sqrt(3.0), 1 / std::sqrt(3.0)}) {
          const double t = 0.5 * (1 + xi); // 0 at the node, 1 at the other end
          load += 0.5 * h * (1 - t) * exact.shear(y + t * side * h);
        }
      }
      f(i, j, 0) += load;
    }
  Kokkos::deep_copy(s.load()[1].view(), f);
  const NodeVector lifted = lift(s, exact); // the root's exact displacements
  s.solve();
  NodeVector total = s.make_node_vector("total");
  for (int c = 0; c < 2; ++c) {
    copy(s.displacement()[c], total[c]);
    axpy(1.0, lifted[c], total[c]);
  }
  const double tip = exact(exact.L, 0, 0)[1];
  return std::abs(s.node_value_at(total, {exact.L, 0, 0})[1] - tip) / tip;
}

// On uniform grids and on grids stretched along both axes (cells 0.6 to 1.4 times the mean).
TEST(Elasticity, CantileverTipConvergesAtSecondOrder) {
  const auto& comm = world();
  for (bool stretch : {false, true}) {
    std::vector<double> errors;
    for (long m : {2, 4, 8, 16})
      errors.push_back(cantilever_tip_error(comm, m, stretch));
    for (std::size_t q = 0; q < errors.size(); ++q) {
      if (comm.is_root())
        std::printf("cantilever %3ldx%-3ld %s tip error %.4e", 8L << (q + 1), 2L << (q + 1),
                    stretch ? "stretched" : "uniform  ", errors[q]);
      if (q > 0 && comm.is_root())
        std::printf("  order %.3f", std::log2(errors[q - 1] / errors[q]));
      if (comm.is_root())
        std::printf("\n");
    }
    EXPECT_LT(errors.back(), 2e-3) << "stretched " << stretch;
    EXPECT_GT(std::log2(errors[errors.size() - 2] / errors.back()), 1.9) << "stretched " << stretch;
  }
}

} // namespace

/// Tip deflection of a 3D cantilever (L x 1 x 1, clamped at x = 0, uniform shear traction of
/// total P = 1 at x = L) on an (10 m) x m x m grid, at the axis.
double cantilever_3d_tip(const Communicator& comm, long m, double L, double E, double nu) {
  const DomainSpec d = box(3, {10 * m, m, m}, {L, 1, 1});
  const Domain domain(comm, d);
  ElasticitySpec spec;
  spec.simp.E0 = E;
  spec.poisson = nu;
  spec.supports.push_back({whole_face(d, 0, 0), {true, true, true}, {0, 0, 0}});
  Load tip;
  tip.kind = LoadKind::Traction;
  tip.box = whole_face(d, 0, 1);
  tip.value = {0.0, -1.0, 0.0}; // P / area with area 1
  spec.loads.push_back(tip);
  spec.rtol = 1e-10;
  LinearElasticity s(domain, spec);
  s.solve();
  return -s.node_value_at(s.displacement(), {L, 0.5, 0.5})[1];
}

// Timoshenko beam theory: delta = P L^3 / (3 E I) + P L / (kappa G A), kappa = 5/6. The Q1
// deflection converges at second order (Richardson's estimate from two grids); the remaining
// difference is the 3D clamp and the end load's distribution, which beam theory ignores.
TEST(Elasticity, Cantilever3dAgainstBeamTheory) {
  const auto& comm = world();
  const double L = 10, E = 1000, nu = 0.3, I = 1.0 / 12, G = E / (2 * (1 + nu));
  const double beam = L * L * L / (3 * E * I) + L / (5.0 / 6.0 * G);
  const double coarse = cantilever_3d_tip(comm, 4, L, E, nu);
  const double fine = cantilever_3d_tip(comm, 8, L, E, nu);
  const double extrapolated = (4 * fine - coarse) / 3;
  if (comm.is_root())
    std::printf("3D cantilever tip: 40x4x4 %.5f, 80x8x8 %.5f, extrapolated %.5f, beam theory "
                "%.5f (difference %.2f%%)\n",
                coarse, fine, extrapolated, beam, 100 * (extrapolated - beam) / beam);
  EXPECT_LT(coarse, fine); // Q1 is too stiff in bending and relaxes under refinement
  EXPECT_LT(std::abs(extrapolated - beam) / beam, 0.01);
}

/// The displacement of a heterogeneous cantilever gathered on the root, component by component.
std::vector<double> solve_gathered(const Communicator& comm, const DomainSpec& d,
                                   LinearSolver solver) {
  const Domain domain(comm, d);
  ElasticitySpec spec = clamped_spec(d);
  spec.solver = solver;
  spec.rtol = 1e-12;
  LinearElasticity s(domain, spec);
  fill_global_random(s.density(), 0, 0.1, 0.9); // the same on any partition
  s.solve();
  std::vector<double> all;
  for (int c = 0; c < d.dim; ++c) {
    const auto part = gather_to_root(comm, s.displacement()[c]);
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

// The same displacement on 1, 2 and 4 ranks, with the direct solver and with CG + GAMG (whose
// aggregates, and so iterates, depend on the partition, converged to 1e-12).
TEST(Elasticity, DecompositionInvariance) {
  const auto& comm = world();
  const Communicator alone = comm.split(comm.rank() == 0 ? 0 : 1, comm.rank());
  for (bool stretch : {false, true})
    for (int dim : {2, 3})
      for (LinearSolver solver : {LinearSolver::Direct, LinearSolver::CgGamg}) {
        const DomainSpec uniform = box(dim, {24, 8, 6}, {3.0, 1.0, 0.75});
        const DomainSpec d = stretch ? stretched(uniform) : uniform;
        const std::vector<double> parallel = solve_gathered(comm, d, solver);
        std::vector<double> serial;
        if (comm.rank() == 0)
          serial = solve_gathered(alone, d, solver);
        if (comm.rank() != 0)
          continue;
        ASSERT_EQ(parallel.size(), serial.size());
        const double difference = relative_max_difference(serial, parallel);
        // Round-off (and the CG tolerance, 1e-12) amplified by the condition number of a
        // stiffness with densities down to 0.1.
        const double allowed = 5e-12;
        EXPECT_LT(difference, allowed)
            << dim << "D, " << comm.size() << " ranks, stretched " << stretch;
        std::printf("%dD %s %s on %d ranks: max difference / max |u| = %.2e\n", dim,
                    stretch ? "stretched" : "uniform",
                    solver == LinearSolver::Direct ? "direct" : "CG+GAMG", comm.size(), difference);
      }
}

// The stretched grid's element matrices (formed per element from the unit box's parts), given
// faces of equal widths, give the uniform grid's displacement to round-off.
TEST(Elasticity, StretchedElementsOfEqualWidthsMatchTheUniformGrid) {
  const auto& comm = world();
  for (int dim : {2, 3}) {
    const DomainSpec d = box(dim, {24, 8, 6}, {3.0, 1.0, 0.75});
    const std::vector<double> uniform = solve_gathered(comm, d, LinearSolver::Direct);
    const std::vector<double> faces = solve_gathered(comm, equal_faces(d), LinearSolver::Direct);
    if (comm.rank() != 0)
      continue;
    ASSERT_EQ(uniform.size(), faces.size());
    // The element matrices agree to round-off (ElementMatrixIsSymmetricWithRigidBodyNullSpace);
    // the solve amplifies it by the stiffness's condition number, as in DecompositionInvariance.
    EXPECT_LT(relative_max_difference(uniform, faces), 5e-12) << dim << "D";
  }
}

/// The message of the ConfigError or CollectiveError that building and solving `spec` throws.
std::string failure(const DomainSpec& d, const ElasticitySpec& spec) {
  const Domain domain(world(), d);
  try {
    LinearElasticity s(domain, spec);
    s.solve();
  } catch (const ConfigError& e) {
    return std::string("config: ") + e.what();
  } catch (const CollectiveError& e) {
    return std::string("collective: ") + e.what();
  }
  return "no error";
}

void expect_failure(const DomainSpec& d, const ElasticitySpec& spec, const std::string& kind,
                    const std::string& words) {
  const std::string message = failure(d, spec);
  EXPECT_EQ(message.rfind(kind, 0), 0u) << message;
  EXPECT_NE(message.find(words), std::string::npos) << message;
}

TEST(Elasticity, BadInputGetsAClearError) {
  const DomainSpec d = box(2, {8, 4, 1}, {2.0, 1.0, 1.0});
  const ElasticitySpec good = clamped_spec(d);
  DomainSpec periodic = d;
  periodic.periodic[0] = true;
  expect_failure(periodic, good, "config", "periodic");

  ElasticitySpec s = good;
  s.supports.clear();
  expect_failure(d, s, "config", "rigid body");

  s = good;
  s.supports[0].box.lo = {5, 5, 0};
  s.supports[0].box.hi = {6, 6, 0};
  expect_failure(d, s, "config", "support 1");

  s = good;
  s.loads[0].box.lo[0] = s.loads[0].box.hi[0] = 1.0; // inside, not on a boundary
  expect_failure(d, s, "config", "flat along one axis");

  s = good;
  s.poisson = 0.5;
  expect_failure(d, s, "config", "Poisson");

  // Only u_x held at the root: the structure can slide along y (round-off would let CG
  // "converge" to a displacement of 1e14).
  s = good;
  s.supports[0].fixed = {true, false, false};
  expect_failure(d, s, "config", "translation along y");
  // Only one node held: the structure can turn about it.
  s = good;
  s.supports[0].box.lo = s.supports[0].box.hi = {0, 0, 0};
  expect_failure(d, s, "config", "rotation");
}

namespace {

/// Largest |f - value| over the owned cells, on every rank.
double max_deviation(const Communicator& comm, const Field& f, double value) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  const IndexSpace o = f.owned();
  double worst = 0;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        worst = std::max(worst, std::abs(host(i, j, k) - value));
  return comm.max(worst);
}

} // namespace

// A bar stretched by a prescribed end displacement d: uniform strain d/L, lateral contraction
// -nu d/L (plane stress and 3D), no shear, and von Mises stress E d/L in every element, from the
// element-centre strain and stress kernels.
TEST(Elasticity, UniaxialStretchStrainAndStress) {
  const auto& comm = world();
  for (bool stretched_grid : {false, true})
    for (int dim : {2, 3}) {
      const DomainSpec uniform = box(dim, {8, 3, 3}, {4.0, 1.0, 1.0});
      const DomainSpec d = stretched_grid ? stretched(uniform) : uniform;
      const Domain domain(comm, d);
      const double E = 200.0, nu = 0.3, stretch = 1e-3;
      ElasticitySpec spec;
      spec.simp.E0 = E;
      spec.poisson = nu;
      spec.supports.push_back({whole_face(d, 0, 0), {true, false, false}, {0, 0, 0}});
      spec.supports.push_back({whole_face(d, 0, 1), {true, false, false}, {stretch, 0, 0}});
      Box origin, corner;
      corner.lo = corner.hi = {0, 1, 0};
      spec.supports.push_back({origin, {false, true, true}, {0, 0, 0}});
      if (dim == 3)
        spec.supports.push_back({corner, {false, false, true}, {0, 0, 0}});
      spec.rtol = 1e-13;
      LinearElasticity s(domain, spec);
      s.solve();
      std::array<Field, 6> strain, stress;
      for (int q = 0; q < 6; ++q) {
        strain[q] = Field(domain, Location::Cell, 0, "strain");
        stress[q] = Field(domain, Location::Cell, 0, "stress");
      }
      Field vm(domain, Location::Cell, 0, "von_mises");
      s.strain_and_stress(strain, stress, vm);
      const double exx = stretch / d.length[0];
      EXPECT_LT(max_deviation(comm, strain[0], exx), 1e-12 * exx) << dim << "D";
      EXPECT_LT(max_deviation(comm, strain[1], -nu * exx), 1e-12 * exx) << dim << "D";
      // Plane stress and 3D alike: the bar thins by -nu exx through its thickness.
      EXPECT_LT(max_deviation(comm, strain[2], -nu * exx), 1e-12 * exx) << dim << "D";
      if (dim == 3) {
        EXPECT_LT(max_deviation(comm, strain[4], 0.0), 1e-12 * exx);
        EXPECT_LT(max_deviation(comm, strain[5], 0.0), 1e-12 * exx);
      }
      EXPECT_LT(max_deviation(comm, strain[3], 0.0), 1e-12 * exx) << dim << "D";
      EXPECT_LT(max_deviation(comm, vm, E * exx), 1e-11 * E * exx) << dim << "D";
      // Uniaxial stress: sigma_xx = E exx, every other component 0.
      EXPECT_LT(max_deviation(comm, stress[0], E * exx), 1e-11 * E * exx) << dim << "D";
      for (int q = 1; q < 6; ++q)
        EXPECT_LT(max_deviation(comm, stress[q], 0.0), 1e-11 * E * exx) << dim << "D " << q;
    }
}

namespace {

// Writes into `computed` (ghosts included) the numbers the numbering gives, and into
// `from_owners`'s owned nodes the numbers their owner gives them: first + the lexicographic index
// among the owned nodes. A free function: CUDA's extended lambdas may not sit in TEST bodies.
void write_node_numbers(const NodeNumbering& numbering, Field& from_owners, Field& computed) {
  const GlobalNodeNumbers numbers = numbering.numbers();
  const FieldView o = from_owners.view(), c = computed.view();
  for_each(
      "test::node_numbers", from_owners.ghosted(),
      KOKKOS_LAMBDA(long i, long j, long k) { c(i, j, k) = double(numbers(i, j, k)); });
  const long first = numbering.first_node();
  const IndexSpace ow = from_owners.owned();
  const long b0 = ow.begin[0], b1 = ow.begin[1], b2 = ow.begin[2];
  const long n0 = ow.end[0] - ow.begin[0], n1 = ow.end[1] - ow.begin[1];
  for_each(
      "test::owned_numbers", ow, KOKKOS_LAMBDA(long i, long j, long k) {
        o(i, j, k) = double(first + ((k - b2) * n1 + (j - b1)) * n0 + (i - b0));
      });
}

} // namespace

// The global node numbers, computed from the decomposition alone, are a numbering of the nodes:
// each rank's owned nodes are [first, first + owned) in order, and every ghost node carries the
// number that its owner gives it (checked by copying the owners' numbers into the ghosts with
// the halo plan).
TEST(Elasticity, NodeNumbersAgreeWithTheirOwners) {
  for (int dim : {2, 3}) {
    const Domain domain(world(), box(dim, {7, 5, 3}, {1.0, 1.0, 1.0}));
    const NodeNumbering numbering(domain);
    Field from_owners(domain, Location::Node, 1, "test::from_owners");
    Field computed(domain, Location::Node, 1, "test::computed");
    const FieldView o = from_owners.view(), c = computed.view();
    write_node_numbers(numbering, from_owners, computed);
    HaloPlan halo(domain, Location::Node, 1);
    halo.fill(from_owners);
    const auto oh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), o);
    const auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
    const FieldLayout layout = from_owners.layout();
    long mismatches = 0, checked = 0;
    for (long k = 0; k < layout.extent[2]; ++k)
      for (long j = 0; j < layout.extent[1]; ++j)
        for (long i = 0; i < layout.extent[0]; ++i) {
          const long g[3] = {i + layout.global_offset[0], j + layout.global_offset[1],
                             k + layout.global_offset[2]};
          bool inside = true;
          for (int a = 0; a < 3; ++a)
            inside = inside && g[a] >= 0 && g[a] < layout.global.end[a];
          if (!inside)
            continue;
          ++checked;
          mismatches += oh(i, j, k) != ch(i, j, k);
        }
    EXPECT_EQ(world().sum(double(mismatches)), 0.0) << dim << "D";
    EXPECT_GT(checked, 0);
    EXPECT_EQ(world().sum(double(numbering.owned_nodes())), double(numbering.global_nodes()));
    EXPECT_EQ(numbering.global_nodes(), layout.global.size());
  }
}

// The elasticity solver's PETSc defaults live in its own options database: after a solve the
// global database holds none of them, while an option the user put there still reaches the
// solver (here a limit of one iteration, which makes the solve fail).
TEST(Elasticity, PetscOptionsStayInTheSolver) {
  const DomainSpec d = box(2, {16, 4, 1}, {4.0, 1.0, 1.0});
  const Domain domain(world(), d);
  {
    LinearElasticity s(domain, clamped_spec(d));
    s.solve();
  }
  PetscBool left = PETSC_TRUE;
  ASSERT_EQ(PetscOptionsHasName(nullptr, nullptr, "-elasticity_pc_gamg_esteig_ksp_type", &left), 0);
  EXPECT_EQ(left, PETSC_FALSE);

  ASSERT_EQ(PetscOptionsSetValue(nullptr, "-elasticity_ksp_max_it", "1"), 0);
  const std::string message = failure(d, clamped_spec(d));
  ASSERT_EQ(PetscOptionsClearValue(nullptr, "-elasticity_ksp_max_it"), 0);
  EXPECT_NE(message.find("DIVERGED_ITS"), std::string::npos) << message;
}
