/// \file
/// Runs undertow's point functions inside kernels on the default execution space (the GPU in a
/// CUDA build) and compares them with host loops that spell the same differences out. Needs no
/// MPI, PETSc or HDF5; tests/tools/cuda_kernel_check.sh builds and runs it. Exit 0 on agreement.

#include "undertow/solvers/elasticity/element.hpp"
#include "undertow/solvers/navier_stokes/actuators.hpp"
#include "undertow/solvers/navier_stokes/obstacles.hpp"
#include "undertow/solvers/navier_stokes/operators.hpp"

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>

namespace {

using undertow::FieldView;
namespace ns = undertow::navier_stokes;

constexpr long kN = 24;
constexpr double kH = 1.0 / kN;

/// Smooth test velocity, evaluated at array indices.
double u0(long i, long j) {
  return std::sin(0.3 * i) + 0.1 * j * j;
}
double u1(long i, long j) {
  return std::cos(0.2 * j) * (1.0 + 0.05 * i);
}

int report(const char* what, double error, double tolerance) {
  std::printf("%-56s max |device - host| = %.3e  (tolerance %.0e)  %s\n", what, error, tolerance,
              error <= tolerance ? "ok" : "FAILED");
  return error <= tolerance ? 0 : 1;
}

int check_navier_stokes() {
  ns::Velocity v;
  v.u[0] = FieldView("u0", kN, kN, 1);
  v.u[1] = FieldView("u1", kN, kN, 1);
  // Filled on the host and copied, so both sides start from the same bits (the device's sin and
  // cos need not round like the host's).
  for (int c = 0; c < 2; ++c) {
    auto host = Kokkos::create_mirror_view(v.u[c]);
    for (long j = 0; j < kN; ++j)
      for (long i = 0; i < kN; ++i)
        host(i, j, 0) = c == 0 ? u0(i, j) : u1(i, j);
    Kokkos::deep_copy(v.u[c], host);
  }
  const ns::Velocity vel = v;
  FieldView div("div", kN, kN, 1), tendency("tendency", kN, kN, 1);
  const double inv_h[3] = {1 / kH, 1 / kH, 1 / kH};
  const double nu = 0.01;
  Kokkos::parallel_for(
      "check::ns_point_functions", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({1, 1}, {kN - 1, kN - 1}),
      KOKKOS_LAMBDA(long i, long j) {
        div(i, j, 0) = ns::divergence(vel, 2, inv_h, i, j, 0);
        tendency(i, j, 0) = ns::momentum_tendency(vel, 0, 2, inv_h, nu, 0.5, i, j, 0);
      });
  auto div_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), div);
  auto tend_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tendency);

  double div_error = 0, tend_error = 0;
  for (long j = 1; j < kN - 1; ++j)
    for (long i = 1; i < kN - 1; ++i) {
      const double d = (u0(i + 1, j) - u0(i, j)) / kH + (u1(i, j + 1) - u1(i, j)) / kH;
      div_error = std::fmax(div_error, std::fabs(div_h(i, j, 0) - d));
      // -d(u0 u0)/dx - d(u1 u0)/dy + nu lap u0 + f, as operators.hpp defines it.
      auto cell = [](long a, long b) {
        return 0.5 * (u0(a, b) + u0(a + 1, b));
      };
      const double uu = (cell(i, j) * cell(i, j) - cell(i - 1, j) * cell(i - 1, j)) / kH;
      auto edge_u1 = [](long a, long b) {
        return 0.5 * (u1(a - 1, b) + u1(a, b));
      };
      auto edge_u0 = [](long a, long b) {
        return 0.5 * (u0(a, b - 1) + u0(a, b));
      };
      const double vu =
          (edge_u1(i, j + 1) * edge_u0(i, j + 1) - edge_u1(i, j) * edge_u0(i, j)) / kH;
      const double lap = (u0(i + 1, j) - 2 * u0(i, j) + u0(i - 1, j)) / (kH * kH) +
                         (u0(i, j + 1) - 2 * u0(i, j) + u0(i, j - 1)) / (kH * kH);
      const double t = 0.5 - uu - vu + nu * lap;
      // Relative to the size of the products before they are differenced: a different order or
      // fused multiply-adds move the result by a few roundings of those, not of the (far
      // smaller) differences.
      const double scale =
          0.5 + (cell(i, j) * cell(i, j) + cell(i - 1, j) * cell(i - 1, j)) / kH +
          (std::fabs(edge_u1(i, j + 1) * edge_u0(i, j + 1)) +
           std::fabs(edge_u1(i, j) * edge_u0(i, j))) /
              kH +
          nu *
              (std::fabs(u0(i + 1, j)) + std::fabs(u0(i - 1, j)) + std::fabs(u0(i, j + 1)) +
               std::fabs(u0(i, j - 1)) + 4 * std::fabs(u0(i, j))) /
              (kH * kH);
      tend_error = std::fmax(tend_error, std::fabs(tend_h(i, j, 0) - t) / scale);
    }
  return report("navier_stokes::divergence", div_error, 1e-10) +
         report("navier_stokes::momentum_tendency (relative to terms)", tend_error, 1e-14);
}

/// The unit-modulus Q1 element matrices, 2D plane stress and 3D, computed in a kernel.
int check_elasticity() {
  namespace el = undertow::elasticity;
  int failures = 0;
  for (int dim : {2, 3}) {
    const int nd = dim * el::nodes_per_element(dim);
    const el::Lame lame = el::unit_lame(0.3, dim, true);
    const double h[3] = {0.7, 1.3, 0.9};
    Kokkos::View<double*> k0("k0", nd * nd);
    Kokkos::parallel_for(
        "check::unit_stiffness", nd * nd,
        KOKKOS_LAMBDA(int t) { k0(t) = el::unit_stiffness(dim, h, lame, t / nd, t % nd); });
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k0);
    double error = 0, scale = 0;
    for (int t = 0; t < nd * nd; ++t) {
      const double expected = el::unit_stiffness(dim, h, lame, t / nd, t % nd);
      error = std::fmax(error, std::fabs(host(t) - expected));
      scale = std::fmax(scale, std::fabs(expected));
    }
    failures += report(dim == 2 ? "elasticity::unit_stiffness 2D (relative)"
                                : "elasticity::unit_stiffness 3D (relative)",
                       error / scale, 1e-15);
    // A stretched grid's form: the unit box's parts S_ab in a kernel, weighted by
    // V / (h_a h_b) on the host, give the same matrix.
    Kokkos::View<double*> parts("parts", dim * dim * nd * nd);
    Kokkos::parallel_for(
        "check::stiffness_part", dim * dim * nd * nd, KOKKOS_LAMBDA(int t) {
          const int p = t / (nd * nd), e = t % (nd * nd);
          parts(t) = el::stiffness_part(dim, lame, p / dim, p % dim, e / nd, e % nd);
        });
    auto parts_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parts);
    const double box = dim == 2 ? h[0] * h[1] : h[0] * h[1] * h[2];
    double parts_error = 0;
    for (int t = 0; t < nd * nd; ++t) {
      double k = 0;
      for (int p = 0; p < dim * dim; ++p)
        k += box / (h[p / dim] * h[p % dim]) * parts_host(p * nd * nd + t);
      parts_error = std::fmax(parts_error, std::fabs(k - host(t)));
    }
    failures += report(dim == 2 ? "elasticity::stiffness_part 2D sum - k0 (relative)"
                                : "elasticity::stiffness_part 3D sum - k0 (relative)",
                       parts_error / scale, 1e-14);
    // The consistent mass, and its total (h_x h_y (h_z) per component): sum_s m0[r][s] over the
    // rows of one component adds up to the element's volume.
    Kokkos::View<double*> m0("m0", nd * nd);
    Kokkos::parallel_for(
        "check::unit_mass", nd * nd,
        KOKKOS_LAMBDA(int t) { m0(t) = el::unit_mass(dim, h, t / nd, t % nd); });
    auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m0);
    double mass_error = 0, total = 0;
    for (int t = 0; t < nd * nd; ++t) {
      mass_error =
          std::fmax(mass_error, std::fabs(mass(t) - el::unit_mass(dim, h, t / nd, t % nd)));
      if ((t / nd) % dim == 0)
        total += mass(t);
    }
    const double volume = dim == 2 ? h[0] * h[1] : h[0] * h[1] * h[2];
    failures += report(dim == 2 ? "elasticity::unit_mass 2D (relative)"
                                : "elasticity::unit_mass 3D (relative)",
                       mass_error / volume, 1e-15);
    failures += report(dim == 2 ? "elasticity::unit_mass 2D total - volume (relative)"
                                : "elasticity::unit_mass 3D total - volume (relative)",
                       std::fabs(total - volume) / volume, 1e-14);
  }
  return failures;
}

/// The signed distances of the airfoils, the star and the spline, and their dual-number derivatives
/// in one parameter, in a kernel against the same functions on the host (the device's sqrt, sin,
/// cos and atan2 may differ from the host's in the last bits).
int check_shapes() {
  ns::Shape cst;
  cst.kind = ns::ShapeKind::Cst;
  cst.centre[0] = 0.2;
  cst.centre[1] = 0.5;
  cst.chord = 0.6;
  cst.angle = 0.07;
  cst.harmonics = 4;
  for (int i = 0; i < 4; ++i) {
    cst.cos_coeff[i] = 0.2 + 0.02 * i;
    cst.sin_coeff[i] = 0.1 - 0.01 * i;
  }
  ns::Shape naca = cst;
  naca.kind = ns::ShapeKind::Naca;
  naca.camber = 0.04;
  naca.camber_position = 0.4;
  ns::Shape star;
  star.kind = ns::ShapeKind::Star;
  star.centre[0] = star.centre[1] = 0.5;
  star.radius = 0.2;
  star.harmonics = 3;
  star.cos_coeff[1] = 0.04;
  star.sin_coeff[2] = -0.02;
  ns::Shape spline = star; // a pointed rear: c_1 < c_0
  spline.kind = ns::ShapeKind::Spline;
  spline.harmonics = 11;
  for (int j = 0; j < spline.harmonics; ++j)
    ns::shape_parameter(spline, 12 + j) = 0.1 + 0.02 * std::fabs(j - 5.0);
  ns::shape_parameter(spline, 13) = 0.15;
  int failures = 0;
  const char* names[4] = {"navier_stokes::Shape distance, cst (+ d/d cst_upper_1)",
                          "navier_stokes::Shape distance, naca (+ d/d camber)",
                          "navier_stokes::Shape distance, star (+ d/d cos_coeff_2)",
                          "navier_stokes::Shape distance, spline (+ d/d spline_radius_9)"};
  const ns::Shape shapes[4] = {cst, naca, star, spline};
  const int seeds[4] = {13, 9, 13, 21};
  for (int s = 0; s < 4; ++s) {
    const ns::Shape shape = shapes[s];
    const ns::BasicShape<undertow::Dual> dual = ns::seeded(shape, seeds[s]);
    FieldView phi("phi", kN, kN, 1), dphi("dphi", kN, kN, 1);
    Kokkos::parallel_for(
        "check::shape_distance", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {kN, kN}),
        KOKKOS_LAMBDA(long i, long j) {
          const double x = (i + 0.5) * kH, y = (j + 0.5) * kH;
          phi(i, j, 0) = shape.distance(x, y, 0.0);
          dphi(i, j, 0) = dual.distance(x, y, 0.0).d;
        });
    auto phi_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), phi);
    auto dphi_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dphi);
    double error = 0;
    for (long j = 0; j < kN; ++j)
      for (long i = 0; i < kN; ++i) {
        const double x = (i + 0.5) * kH, y = (j + 0.5) * kH;
        error = std::fmax(error, std::fabs(phi_h(i, j, 0) - shape.distance(x, y, 0.0)));
        error = std::fmax(error, std::fabs(dphi_h(i, j, 0) - dual.distance(x, y, 0.0).d));
      }
    failures += report(names[s], error, 1e-13);
  }
  return failures;
}

/// The actuators' patterns (a rotation and two jet pairs) on both components.
int check_actuators() {
  const double centre[2] = {0.5, 0.45};
  ns::ActuatorPattern patterns[3] = {{},
                                     ns::jet_pair_pattern(centre, 0.2, 0.3, 1.2, 3.4, 0.8),
                                     ns::jet_pair_pattern(centre, 0.2, 0.3, -2.9, 1.1, 0.8)};
  patterns[0].centre[0] = centre[0];
  patterns[0].centre[1] = centre[1];
  patterns[0].reach = 0.3;
  int failures = 0;
  for (const ns::ActuatorPattern& p : patterns) {
    FieldView g("g", kN, kN, 2);
    Kokkos::parallel_for(
        "check::actuator_pattern", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {kN, kN}),
        KOKKOS_LAMBDA(long i, long j) {
          const double x = (i + 0.5) * kH, y = (j + 0.5) * kH;
          g(i, j, 0) = p.value(0, x, y);
          g(i, j, 1) = p.value(1, x, y);
        });
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g);
    double error = 0;
    for (long j = 0; j < kN; ++j)
      for (long i = 0; i < kN; ++i)
        for (int c = 0; c < 2; ++c)
          error =
              std::fmax(error, std::fabs(h(i, j, c) - p.value(c, (i + 0.5) * kH, (j + 0.5) * kH)));
    failures += report(p.rotation ? "navier_stokes::ActuatorPattern, rotation"
                                  : "navier_stokes::ActuatorPattern, jets",
                       error, 1e-13);
  }
  return failures;
}

} // namespace

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  int failures = 0;
  {
    std::printf("execution space: %s\n", Kokkos::DefaultExecutionSpace::name());
    failures += check_navier_stokes();
    failures += check_elasticity();
    failures += check_shapes();
    failures += check_actuators();
  }
  Kokkos::finalize();
  std::printf("%s\n", failures == 0 ? "all point functions agree" : "DISAGREEMENT");
  return failures == 0 ? 0 : 1;
}
