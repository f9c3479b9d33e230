// Navier-Stokes on the MAC grid: second-order convergence to exact solutions (Taylor-Green in 2D,
// the ABC Beltrami flow in 3D), Poiseuille flow held exactly (periodic channel driven by a body
// force, and inflow/outflow channel), the 3D duct inflow developing into the exact square-duct flow
// at second order, discrete incompressibility to the solver tolerance, and
// identical results on 1, 2 and 4 ranks with walls, a moving lid, inflow and outflow.

#include "test_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/solvers/navier_stokes/diagnostics.hpp"
#include "undertow/solvers/navier_stokes/solver.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <gtest/gtest.h>
#include <tuple>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using undertow::testing::world;

/// max over owned faces and components of |u - f|.
double max_velocity_error(const NavierStokes& ns, const VelocityFunction& f, double t) {
  return velocity_error(ns, f, t).second;
}

DomainSpec box(int dim, std::array<long, 3> cells, std::array<double, 3> length,
               std::array<bool, 3> periodic) {
  DomainSpec s;
  s.dim = dim;
  s.cells = cells;
  if (dim == 2)
    s.cells[2] = 1;
  s.length = length;
  s.periodic = periodic;
  return s;
}

/// Runs `steps` steps to time t_end; returns the solver's final state through `check`.
void run(NavierStokes& ns, double t_end, long steps) {
  for (long n = 0; n < steps; ++n)
    ns.step(t_end / double(steps));
}

const double kPi = 3.14159265358979323846;

TEST(NavierStokes, TaylorGreen2DConvergesAtSecondOrder) {
  const auto& comm = world();
  const double nu = 0.05, t_end = 1.0;
  const VelocityFunction exact = [&](int c, double x, double y, double, double t) {
    const double decay = std::exp(-2.0 * nu * t);
    return c == 0 ? std::sin(x) * std::cos(y) * decay : -std::cos(x) * std::sin(y) * decay;
  };
  std::vector<double> errors;
  for (long n : {16, 32, 64}) {
    const Domain d(comm, box(2, {n, n, 1}, {2 * kPi, 2 * kPi, 1}, {true, true, false}));
    NavierStokesParams p;
    p.nu = nu;
    NavierStokes ns(d, p);
    set_velocity(ns, exact, 0.0);
    ns.project_initial();
    run(ns, t_end, 2 * n / 4);
    errors.push_back(max_velocity_error(ns, exact, t_end));
    EXPECT_LT(max_divergence(ns), 1e-8) << n;
  }
  for (std::size_t i = 1; i < errors.size(); ++i)
    EXPECT_GT(std::log2(errors[i - 1] / errors[i]), 1.9);
  if (comm.is_root())
    std::printf("Taylor-Green 2D max velocity errors 16/32/64: %.3e %.3e %.3e, orders %.3f %.3f\n",
                errors[0], errors[1], errors[2], std::log2(errors[0] / errors[1]),
                std::log2(errors[1] / errors[2]));
}

/// max over owned cells of |f - exact at the cell centre|, over all ranks.
double max_cell_error(const Communicator& comm, const Field& f,
                      const std::function<double(double, double, double)>& exact) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  const GridGeometry g = f.geometry();
  const IndexSpace& o = f.owned();
  double worst = 0;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        worst =
            std::max(worst, std::abs(host(i, j, k) - exact(g.coordinate(0, i), g.coordinate(1, j),
                                                           g.coordinate(2, k))));
  return comm.max(worst);
}

/// A smooth periodic velocity component c that varies along every axis (the face average and the
/// gradients of each component are then second-order, not exact).
double varying_field(int c, double x, double y, double z) {
  return std::sin(x + 0.5 * c) * std::cos(y - 0.3 * c) * std::cos(z + 0.2 * c);
}

TEST(NavierStokes, CellCentredOutputFieldsAreSecondOrder) {
  // Cell-centred velocity and vorticity (what the field output writes) converge at second order.
  // The ABC flow is a Beltrami field, curl u = u: its vorticity is known exactly, component by
  // component.
  const auto& comm = world();
  const double A = 1.0, B = 0.7, C = 0.4;
  const auto abc = [&](int c, double x, double y, double z) {
    const double v[3] = {A * std::sin(z) + C * std::cos(y), B * std::sin(x) + A * std::cos(z),
                         C * std::sin(y) + B * std::cos(x)};
    return v[c];
  };
  std::vector<double> velocity_errors, vorticity_errors;
  for (long n : {16, 32}) {
    const Domain d(comm, box(3, {n, n, n}, {2 * kPi, 2 * kPi, 2 * kPi}, {true, true, true}));
    NavierStokes ns(d, NavierStokesParams());
    set_velocity(
        ns, [&](int c, double x, double y, double z, double) { return abc(c, x, y, z); }, 0.0);
    Field cell(d, Location::Cell, 0, "cell");
    double ev = 0, ew = 0;
    for (int c = 0; c < 3; ++c) {
      const auto exact = [&](double x, double y, double z) {
        return abc(c, x, y, z);
      };
      cell_vorticity(ns, c, cell);
      ew = std::max(ew, max_cell_error(comm, cell, exact));
    }
    // ABC components do not vary along their own axis, which would make the face average exact:
    // the velocity check uses a field that varies along every axis.
    const auto smooth = varying_field;
    set_velocity(
        ns, [&](int c, double x, double y, double z, double) { return smooth(c, x, y, z); }, 0.0);
    for (int c = 0; c < 3; ++c) {
      cell_velocity(ns, c, cell);
      ev = std::max(ev, max_cell_error(comm, cell, [&](double x, double y, double z) {
                      return smooth(c, x, y, z);
                    }));
    }
    velocity_errors.push_back(ev);
    vorticity_errors.push_back(ew);
  }
  EXPECT_GT(std::log2(velocity_errors[0] / velocity_errors[1]), 1.9);
  EXPECT_GT(std::log2(vorticity_errors[0] / vorticity_errors[1]), 1.9);
  if (comm.is_root())
    std::printf("cell-centred velocity errors %.3e %.3e, vorticity errors %.3e %.3e\n",
                velocity_errors[0], velocity_errors[1], vorticity_errors[0], vorticity_errors[1]);
}

TEST(NavierStokes, QCriterionIsSecondOrder) {
  // The Q-criterion at cell centres (what in-situ pipelines contour) against the exact
  // Q = -1/2 sum_cb (d u_c/d x_b)(d u_b/d x_c) of a field that varies along every axis. A product
  // of gradients: 16 -> 32 cells is still pre-asymptotic (observed order 1.89), so 24 -> 48.
  const auto& comm = world();
  const auto field = varying_field;
  const auto gradient = [](int c, int b, double x, double y, double z) {
    const double sx = std::sin(x + 0.5 * c), cx = std::cos(x + 0.5 * c);
    const double sy = std::sin(y - 0.3 * c), cy = std::cos(y - 0.3 * c);
    const double sz = std::sin(z + 0.2 * c), cz = std::cos(z + 0.2 * c);
    return b == 0 ? cx * cy * cz : b == 1 ? -sx * sy * cz : -sx * cy * sz;
  };
  std::vector<double> errors;
  for (long n : {24, 48}) {
    const Domain d(comm, box(3, {n, n, n}, {2 * kPi, 2 * kPi, 2 * kPi}, {true, true, true}));
    NavierStokes ns(d, NavierStokesParams());
    set_velocity(
        ns, [&](int c, double x, double y, double z, double) { return field(c, x, y, z); }, 0.0);
    Field cell(d, Location::Cell, 0, "cell");
    cell_q_criterion(ns, cell);
    errors.push_back(max_cell_error(comm, cell, [&](double x, double y, double z) {
      double q = 0;
      for (int c = 0; c < 3; ++c)
        for (int b = 0; b < 3; ++b)
          q -= 0.5 * gradient(c, b, x, y, z) * gradient(b, c, x, y, z);
      return q;
    }));
  }
  if (comm.is_root())
    std::printf("Q-criterion errors %.3e %.3e: order %.3f\n", errors[0], errors[1],
                std::log2(errors[0] / errors[1]));
  EXPECT_GT(std::log2(errors[0] / errors[1]), 1.9);
}

/// Max velocity errors of the ABC (Arnold-Beltrami-Childress) flow on n^3 grids at t = 0.5. It
/// is a Beltrami field (curl u = u), so u . grad u is a gradient and u decays as exp(-nu t)
/// exactly: an exact, fully three-dimensional solution.
std::vector<double> beltrami_errors(const std::vector<long>& sizes) {
  const auto& comm = world();
  const double nu = 0.1, t_end = 0.5, A = 1.0, B = 0.7, C = 0.4;
  const VelocityFunction exact = [&](int c, double x, double y, double z, double t) {
    const double decay = std::exp(-nu * t);
    const double v[3] = {A * std::sin(z) + C * std::cos(y), B * std::sin(x) + A * std::cos(z),
                         C * std::sin(y) + B * std::cos(x)};
    return v[c] * decay;
  };
  std::vector<double> errors;
  for (long n : sizes) {
    const Domain d(comm, box(3, {n, n, n}, {2 * kPi, 2 * kPi, 2 * kPi}, {true, true, true}));
    NavierStokesParams p;
    p.nu = nu;
    NavierStokes ns(d, p);
    set_velocity(ns, exact, 0.0);
    ns.project_initial();
    run(ns, t_end, n / 2);
    errors.push_back(max_velocity_error(ns, exact, t_end));
    EXPECT_LT(max_divergence(ns), 1e-8) << n;
  }
  if (comm.is_root())
    for (std::size_t i = 0; i < errors.size(); ++i)
      std::printf("ABC flow 3D, %ld^3: max velocity error %.3e%s\n", sizes[i], errors[i],
                  i ? (", order " + std::to_string(std::log2(errors[i - 1] / errors[i]))).c_str()
                    : "");
  return errors;
}

TEST(NavierStokes, BeltramiFlow3DConvergesAtSecondOrder) {
  const auto e = beltrami_errors({16, 32});
  EXPECT_GT(std::log2(e[0] / e[1]), 1.9);
}

TEST(NavierStokesSlow, BeltramiFlow3DOnFinerGrids) {
  const auto e = beltrami_errors({16, 32, 64});
  EXPECT_NEAR(std::log2(e[1] / e[2]), 2.0, 0.05);
}

TEST(NavierStokes, PoiseuilleInAPeriodicChannelIsExact) {
  // Body force G along x between walls at y = 0 and y = H: u = G / (2 nu) y (H - y), steady.
  const auto& comm = world();
  const double nu = 0.02, G = 0.3, H = 1.0;
  const VelocityFunction exact = [&](int c, double, double y, double, double) {
    return c == 0 ? G / (2 * nu) * y * (H - y) : 0.0;
  };
  const Domain d(comm, box(2, {16, 20, 1}, {2.0, H, 1}, {true, false, false}));
  NavierStokesParams p;
  p.nu = nu;
  p.body_force = {G, 0, 0};
  NavierStokes ns(d, p);
  set_velocity(ns, exact, 0.0);
  ns.project_initial();
  run(ns, 1.0, 100);
  const double peak = G / (8 * nu) * H * H;
  EXPECT_LT(max_velocity_error(ns, exact, 1.0), 1e-12 * peak);
}

/// A channel L x H = 3 x 1 on 24 x 12 cells: parabolic inflow (peak U) at x = 0, walls at y = 0
/// and H, and `outlet` at x = L. Starts from the exact profile and runs 50 steps to t = 0.5.
constexpr double kChannelNu = 0.05, kChannelU = 1.0, kChannelH = 1.0, kChannelL = 3.0;

double channel_profile(int c, double, double y, double, double) {
  return c == 0 ? 4 * kChannelU * y * (kChannelH - y) / (kChannelH * kChannelH) : 0.0;
}

void run_channel(NavierStokes& ns) {
  set_velocity(ns, channel_profile, 0.0);
  ns.project_initial();
  run(ns, 0.5, 50);
}

NavierStokesParams channel_params(BoundaryKind outlet) {
  NavierStokesParams p;
  p.nu = kChannelNu;
  p.pressure.rtol = 1e-13;
  p.boundaries.face[0].kind = BoundaryKind::Inflow;
  p.boundaries.face[0].velocity[0] = kChannelU;
  p.boundaries.face[0].profile = InflowProfile::Parabolic;
  p.boundaries.face[1].kind = outlet;
  return p;
}

TEST(NavierStokes, PoiseuilleFromInflowToOutflowIsExact) {
  // The profile is carried unchanged and the pressure falls linearly, dp/dx = -8 nu U / H^2.
  const auto& comm = world();
  const double nu = kChannelNu, U = kChannelU, H = kChannelH, L = kChannelL;
  const VelocityFunction exact = channel_profile;
  const Domain d(comm, box(2, {24, 12, 1}, {L, H, 1}, {false, false, false}));
  NavierStokes ns(d, channel_params(BoundaryKind::Outflow));
  run_channel(ns);
  EXPECT_LT(max_velocity_error(ns, exact, 0.5), 1e-10 * U);
  EXPECT_LT(max_divergence(ns), 1e-9);
  // Pressure gradient between every pair of neighbouring cells along x.
  const std::vector<double> pressure = gather_to_root(comm, ns.pressure());
  if (comm.is_root()) {
    const double h = L / 24, expected = -8 * nu * U / (H * H);
    double worst = 0;
    for (long i = 0; i + 1 < 24; ++i)
      for (long j = 0; j < 12; ++j)
        worst = std::max(
            worst, std::abs((pressure[(i + 1) * 12 + j] - pressure[i * 12 + j]) / h - expected));
    EXPECT_LT(worst, 1e-8 * std::abs(expected));
  }
}

TEST(NavierStokes, PoiseuilleThroughAConvectiveOutflowIsExact) {
  // The parabolic profile does not change along x, so du/dt + U_c du/dx = 0 holds at the outlet.
  const auto& comm = world();
  const double U = kChannelU;
  const VelocityFunction exact = channel_profile;
  const Domain d(comm, box(2, {24, 12, 1}, {kChannelL, kChannelH, 1}, {false, false, false}));
  NavierStokesParams p = channel_params(BoundaryKind::Convective);
  p.boundaries.face[1].velocity[0] = 2.0 / 3.0 * U; // the mean velocity
  NavierStokes ns(d, p);
  run_channel(ns);
  EXPECT_LT(max_velocity_error(ns, exact, 0.5), 1e-10 * U);
  EXPECT_LT(max_divergence(ns), 1e-9);
}

/// Fully developed laminar flow in a square duct [0, H]^2 (Boussinesq's series, as in White,
/// Viscous Fluid Flow, section 3-3), divided by its cross-section mean: u / u_mean at (y, z).
double square_duct_shape(double y, double z, double H) {
  const double a = 0.5 * H, eta = y - a, zeta = z - a;
  double value = 0, mean = 0;
  for (int m = 1; m < 200; m += 2) {
    const double sign = (m / 2) % 2 == 0 ? 1.0 : -1.0, n = m, q = n * kPi / 2;
    value +=
        sign / (n * n * n) * (1 - std::cosh(q * zeta / a) / std::cosh(q)) * std::cos(q * eta / a);
    mean += 2 / (kPi * n * n * n * n) * (1 - std::tanh(q) / q);
  }
  return value / mean;
}

/// The square-duct run of SquareDuctInflowDevelopsIntoTheSeriesSolution on n^2 cells per
/// cross-section: the worst departure from the series in the outer half, the peak over the mean,
/// and the spread of the flux over the cross-sections.
struct DuctResult {
  double worst_shape, peak_over_mean, worst_flux;
};

DuctResult developed_square_duct(long n) {
  const auto& comm = world();
  const double H = 1, L = 4, U = 1, nu = 0.2;
  const long cells_x = 4 * n;
  const Domain d(comm, box(3, {cells_x, n, n}, {L, H, H}, {false, false, false}));
  NavierStokesParams p;
  p.nu = nu;
  p.pressure.rtol = 1e-12;
  p.scheme = TimeScheme::Rk3CrankNicolson;
  p.boundaries.face[0].kind = BoundaryKind::Inflow;
  p.boundaries.face[0].velocity[0] = U;
  p.boundaries.face[0].profile = InflowProfile::Parabolic;
  p.boundaries.face[1].kind = BoundaryKind::Outflow;
  NavierStokes ns(d, p);
  const auto product = [&](double y, double z) {
    return 16 * U * y * z * (H - y) * (H - z) / (H * H * H * H);
  };
  set_velocity(
      ns, [&](int c, double, double y, double z, double) { return c == 0 ? product(y, z) : 0.0; },
      0.0);
  ns.project_initial();
  const double h = H / double(n);
  // To t = 3 (the slowest viscous mode has decayed by e^-12) at CFL 0.5: 2.5 to 6 times the
  // explicit scheme's diffusive limit.
  run(ns, 3.0, 6 * n);
  EXPECT_LT(max_divergence(ns), 1e-9);

  // The inflow's flux (midpoint rule on the inflow face), the flux through each layer of x-faces,
  // and the worst departure from the developed shape in x >= L/2.
  double inflow = 0;
  for (long j = 0; j < n; ++j)
    for (long k = 0; k < n; ++k)
      inflow += product((j + 0.5) * h, (k + 0.5) * h) * h * h;
  const Field& u = ns.velocity(0);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
  const GridGeometry g = u.geometry();
  const IndexSpace& o = u.owned();
  std::vector<double> flux(cells_x + 1, 0.0), faces(cells_x + 1, 0.0);
  double worst_shape = 0, peak = 0;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i) {
        const double x = g.coordinate(0, i), value = host(i, j, k);
        const long layer = std::lround(x / h);
        flux[layer] += value * h * h;
        faces[layer] += 1;
        if (x < 0.5 * L)
          continue;
        const double exact =
            inflow / (H * H) * square_duct_shape(g.coordinate(1, j), g.coordinate(2, k), H);
        worst_shape = std::max(worst_shape, std::abs(value - exact));
        peak = std::max(peak, value);
      }
  double worst_flux = 0;
  long layers = 0;
  for (long i = 0; i <= cells_x; ++i)
    if (comm.sum(faces[i]) == double(n * n)) {
      worst_flux = std::max(worst_flux, std::abs(comm.sum(flux[i]) - inflow));
      ++layers;
    }
  EXPECT_GE(layers, cells_x - 1);
  return {comm.max(worst_shape) / U, comm.max(peak) / (inflow / (H * H)), worst_flux / inflow};
}

TEST(NavierStokes, SquareDuctInflowDevelopsIntoTheSeriesSolution) {
  // A duct L x H x H = 4 x 1 x 1 with no-slip walls on its four sides, the DFG 3D inflow (the
  // product of two parabolas, peak U: mean 4/9 U, peak over mean 2.25) at x = 0 and an outflow
  // at x = L. At Re = U_mean H / nu = 2.2 the profile develops within about H into the duct's
  // exact one (peak over mean 2.0962), which the outer half of the duct must hold with a
  // second-order error; every cross-section carries the inflow's flux.
  EXPECT_NEAR(square_duct_shape(0.5, 0.5, 1.0), 2.0962, 1e-4); // White, Viscous Fluid Flow
  const DuctResult coarse = developed_square_duct(9), fine = developed_square_duct(13);
  const double order = std::log(coarse.worst_shape / fine.worst_shape) / std::log(13.0 / 9.0);
  EXPECT_GT(order, 1.8);
  EXPECT_LT(fine.worst_shape, 8e-3);
  EXPECT_NEAR(fine.peak_over_mean, 2.0962, 0.02);
  EXPECT_LT(coarse.worst_flux, 1e-10);
  EXPECT_LT(fine.worst_flux, 1e-10);
  if (world().is_root())
    std::printf("square duct, 9^2 and 13^2 cells: worst departure from the series %.3e and "
                "%.3e (order %.2f), peak / mean %.4f and %.4f (series 2.0962, inflow 2.25), "
                "flux spread %.1e and %.1e\n",
                coarse.worst_shape, fine.worst_shape, order, coarse.peak_over_mean,
                fine.peak_over_mean, coarse.worst_flux, fine.worst_flux);
}

/// Energy of the departure from uniform flow U, sum over the gathered velocity values.
double perturbation_energy(const Communicator& comm, const NavierStokes& ns, double U) {
  const std::vector<double> u = gather_to_root(comm, ns.velocity(0));
  const std::vector<double> v = gather_to_root(comm, ns.velocity(1));
  double e = 0;
  for (double x : u)
    e += (x - U) * (x - U);
  for (double y : v)
    e += y * y;
  return comm.sum(e); // only rank 0 holds the gathered values
}

TEST(NavierStokes, AVortexLeavesThroughAConvectiveOutflow) {
  // A Gaussian vortex carried by a uniform stream U through the outlet at x = 2. Slip walls at
  // y = 0 and 1. After it has crossed the outlet, what is left of it is what the outlet
  // reflected (and what viscosity spread). The convective condition must leave less than the
  // zero-gradient one, and little in absolute terms.
  const auto& comm = world();
  const double U = 1.0, x0 = 1.2, y0 = 0.5, r0 = 0.1, gamma = 10.0;
  const VelocityFunction start = [&](int c, double x, double y, double, double) {
    const double g = gamma * std::exp(-((x - x0) * (x - x0) + (y - y0) * (y - y0)) / (r0 * r0));
    return c == 0 ? U - g * (y - y0) : g * (x - x0);
  };
  std::vector<double> left;
  for (BoundaryKind outlet : {BoundaryKind::Outflow, BoundaryKind::Convective}) {
    const Domain d(comm, box(2, {64, 32, 1}, {2, 1, 1}, {false, false, false}));
    NavierStokesParams p;
    p.nu = 1e-3;
    p.boundaries.face[0].kind = BoundaryKind::Inflow;
    p.boundaries.face[0].velocity[0] = U;
    p.boundaries.face[1].kind = outlet;
    p.boundaries.face[1].velocity[0] = U;
    p.boundaries.face[2].kind = BoundaryKind::Slip;
    p.boundaries.face[3].kind = BoundaryKind::Slip;
    NavierStokes ns(d, p);
    set_velocity(ns, start, 0.0);
    ns.project_initial();
    const double initial = perturbation_energy(comm, ns, U);
    run(ns, 1.6, 400); // the centre moves from x = 1.2 to 2.8
    left.push_back(perturbation_energy(comm, ns, U) / initial);
    EXPECT_LT(max_divergence(ns), 1e-8);
  }
  if (comm.is_root())
    std::printf("vortex energy left after crossing the outlet: zero-gradient %.3e, convective "
                "%.3e\n",
                left[0], left[1]);
  EXPECT_LT(left[1], left[0]);
  EXPECT_LT(left[1], 0.01);
}

/// Velocity and pressure gathered to rank 0 after `steps` steps of `set_up` on `comm`.
std::vector<double> final_state(const Communicator& comm, const DomainSpec& spec,
                                const NavierStokesParams& p, long steps, double dt) {
  const Domain d(comm, spec);
  NavierStokes ns(d, p);
  // A smooth, non-trivial start: a vortex that the walls and inflow then act on.
  set_velocity(
      ns,
      [](int c, double x, double y, double z, double) {
        return c == 0   ? 0.3 * std::sin(3 * x) * std::cos(2 * y)
               : c == 1 ? 0.2 * std::cos(x + z)
                        : 0.1 * std::sin(y);
      },
      0.0);
  ns.project_initial();
  run(ns, dt * steps, steps);
  std::vector<double> all;
  for (int c = 0; c < spec.dim; ++c) {
    const auto part = gather_to_root(comm, ns.velocity(c));
    all.insert(all.end(), part.begin(), part.end());
  }
  const auto pressure = gather_to_root(comm, ns.pressure());
  all.insert(all.end(), pressure.begin(), pressure.end());
  return all;
}

void expect_same_on_any_rank_count(const DomainSpec& spec, const NavierStokesParams& p, long steps,
                                   double dt) {
  const auto& comm = world();
  const std::vector<double> full = final_state(comm, spec, p, steps, dt);
  for (int ranks : {1, 2}) {
    if (ranks >= comm.size())
      continue;
    const Communicator part = comm.split(comm.rank() < ranks ? 0 : 1, comm.rank());
    std::vector<double> ref;
    if (comm.rank() < ranks)
      ref = final_state(part, spec, p, steps, dt);
    if (!comm.is_root())
      continue;
    ASSERT_EQ(ref.size(), full.size());
    double scale = 0, diff = 0;
    for (std::size_t q = 0; q < ref.size(); ++q) {
      scale = std::max(scale, std::abs(ref[q]));
      diff = std::max(diff, std::abs(ref[q] - full[q]));
    }
    EXPECT_LE(diff, 1e-10 * scale) << comm.size() << " ranks against " << ranks;
    std::printf("%d ranks against %d: max difference %.2e (scale %.2e)\n", comm.size(), ranks, diff,
                scale);
  }
}

TEST(NavierStokes, LidDrivenCavitySameOnAnyNumberOfRanks) {
  NavierStokesParams p;
  p.nu = 0.01;
  p.pressure.rtol = 1e-13;
  p.boundaries.face[3].velocity[0] = 1.0; // lid at y = 1
  expect_same_on_any_rank_count(box(2, {24, 20, 1}, {1, 1, 1}, {false, false, false}), p, 10, 0.01);
}

/// A 3D duct: parabolic inflow at x-, `outlet` at x+, slip walls in z, no-slip in y; nu 0.02.
NavierStokesParams duct_flow(TimeScheme scheme, BoundaryKind outlet) {
  NavierStokesParams p;
  p.nu = 0.02;
  p.pressure.rtol = 1e-13;
  p.scheme = scheme;
  p.boundaries.face[0].kind = BoundaryKind::Inflow;
  p.boundaries.face[0].velocity[0] = 1.0;
  p.boundaries.face[0].profile = InflowProfile::Parabolic;
  p.boundaries.face[1].kind = outlet;
  p.boundaries.face[4].kind = BoundaryKind::Slip;
  p.boundaries.face[5].kind = BoundaryKind::Slip;
  return p;
}

TEST(NavierStokes, Duct3DSameOnAnyNumberOfRanks) {
  const NavierStokesParams p = duct_flow(TimeScheme::SspRk3, BoundaryKind::Outflow);
  expect_same_on_any_rank_count(box(3, {13, 11, 9}, {2, 1, 1}, {false, false, false}), p, 6, 0.02);
}

// RK3-CN (time.scheme = imex): the same exact and manufactured checks, second order in time at
// steps 10 times beyond the explicit scheme's diffusive limit, and decomposition invariance.

const char* projection_name(ImexProjection projection) {
  return projection == ImexProjection::LastSubstep ? "last_substep" : "every_substep";
}

/// Taylor-Green max velocity errors at t = 1 on n^2 grids for each n of `cells`, in n / 2 steps
/// (dt proportional to h: space and time errors together); printed with their orders.
std::vector<double> imex_taylor_green_errors(ImexProjection projection,
                                             const std::vector<long>& cells) {
  const auto& comm = world();
  const double nu = 0.05, t_end = 1.0;
  const VelocityFunction exact = [&](int c, double x, double y, double, double t) {
    const double decay = std::exp(-2.0 * nu * t);
    return c == 0 ? std::sin(x) * std::cos(y) * decay : -std::cos(x) * std::sin(y) * decay;
  };
  std::vector<double> errors;
  for (long n : cells) {
    const Domain d(comm, box(2, {n, n, 1}, {2 * kPi, 2 * kPi, 1}, {true, true, false}));
    NavierStokesParams p;
    p.nu = nu;
    p.scheme = TimeScheme::Rk3CrankNicolson;
    p.imex_projection = projection;
    NavierStokes ns(d, p);
    set_velocity(ns, exact, 0.0);
    ns.project_initial();
    run(ns, t_end, 2 * n / 4);
    errors.push_back(max_velocity_error(ns, exact, t_end));
    EXPECT_LT(max_divergence(ns), 1e-8) << n;
  }
  if (comm.is_root()) {
    std::printf("RK3-CN (%s) Taylor-Green 2D max velocity errors", projection_name(projection));
    for (std::size_t i = 0; i < cells.size(); ++i)
      std::printf(" %ld^2 %.3e", cells[i], errors[i]);
    for (std::size_t i = 1; i < errors.size(); ++i)
      std::printf("%s %.3f", i == 1 ? ", orders" : "", std::log2(errors[i - 1] / errors[i]));
    std::printf("\n");
  }
  return errors;
}

TEST(NavierStokesImex, TaylorGreen2DConvergesAtSecondOrder) {
  const std::vector<double> errors =
      imex_taylor_green_errors(ImexProjection::EverySubstep, {16, 32, 64});
  for (std::size_t i = 1; i < errors.size(); ++i)
    EXPECT_GT(std::log2(errors[i - 1] / errors[i]), 1.9);
}

TEST(NavierStokesImex, TaylorGreen2DConvergesAtSecondOrderProjectingTheLastSubstep) {
  // One projection a step: errors about 5 times larger, and 16^2 -> 32^2 is still
  // pre-asymptotic (observed order 1.86), so 32^2 to 128^2 (orders 1.94, 1.99).
  const std::vector<double> errors =
      imex_taylor_green_errors(ImexProjection::LastSubstep, {32, 64, 128});
  for (std::size_t i = 1; i < errors.size(); ++i)
    EXPECT_GT(std::log2(errors[i - 1] / errors[i]), 1.9);
}

/// The velocity of a 2D field on rank 0 (both components, gathered).
std::vector<double> gathered_velocity(const Communicator& comm, const NavierStokes& ns) {
  std::vector<double> out = gather_to_root(comm, ns.velocity(0));
  const std::vector<double> v = gather_to_root(comm, ns.velocity(1));
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

/// Time-step convergence of a flow on a fixed grid: max errors of runs with `steps`[0..2]
/// steps against a run with `reference` steps (16 times the smallest dt / 2), and the two orders
/// corrected for the reference's own error (each error is C dt^2 (1 - (dt_ref/dt)^2)).
struct TemporalOrders {
  double errors[3];
  double orders[2];
};

/// Computes them, printed as "RK3-CN (<projection>) <flow>, nu dt / h^2 = ...: max errors ...,
/// orders ..." with nu dt / h^2 = stiffness / steps[i].
TemporalOrders temporal_orders(const Communicator& comm,
                               const std::function<std::vector<double>(long)>& run_with,
                               const long steps[3], long reference, ImexProjection projection,
                               const char* flow, double stiffness) {
  const std::vector<double> ref = run_with(reference);
  TemporalOrders t{};
  double correction[3];
  for (int i = 0; i < 3; ++i) {
    const std::vector<double> u = run_with(steps[i]);
    double worst = 0;
    for (std::size_t q = 0; q < u.size(); ++q)
      worst = std::max(worst, std::abs(u[q] - ref[q]));
    t.errors[i] = comm.max(worst);
    const double r = double(steps[i]) / double(reference);
    correction[i] = 1.0 - r * r;
  }
  for (int i = 0; i < 2; ++i)
    t.orders[i] = std::log2(t.errors[i] / t.errors[i + 1] * correction[i + 1] / correction[i]);
  if (comm.is_root())
    std::printf("RK3-CN (%s) %s, nu dt / h^2 = %.2f, %.2f, %.2f: max errors %.3e %.3e %.3e, "
                "orders %.3f %.3f\n",
                projection_name(projection), flow, stiffness / steps[0], stiffness / steps[1],
                stiffness / steps[2], t.errors[0], t.errors[1], t.errors[2], t.orders[0],
                t.orders[1]);
  return t;
}

/// Both observed orders between 1.9 and 2.2: an order far above 2 is a first pair still outside
/// the asymptotic range, which says nothing about the order of the scheme.
void expect_second_order(const TemporalOrders& t) {
  for (double order : t.orders) {
    EXPECT_GT(order, 1.9);
    EXPECT_LT(order, 2.2);
  }
}

/// A perturbed Taylor-Green flow (advection matters) on a fixed periodic 32^2 grid, nu dt / h^2
/// from 0.65 to 2.6 (SSP-RK3 is unstable above 0.31 here): errors against a run with 16 times
/// smaller steps, and their orders.
TemporalOrders periodic_temporal_orders(ImexProjection projection) {
  const auto& comm = world();
  const Domain d(comm, box(2, {32, 32, 1}, {2 * kPi, 2 * kPi, 1}, {true, true, false}));
  NavierStokesParams p;
  p.nu = 1.0;
  p.pressure.rtol = 1e-13;
  p.viscous_rtol = 1e-14;
  p.viscous_max_iterations = 1000;
  p.scheme = TimeScheme::Rk3CrankNicolson;
  p.imex_projection = projection;
  const double h = d.spacing(0);
  const VelocityFunction start = [](int c, double x, double y, double, double) {
    return c == 0 ? std::sin(x) * std::cos(y) + 0.5 * std::sin(2 * y)
                  : -std::cos(x) * std::sin(y) + 0.3 * std::cos(3 * x);
  };
  const double t_end = 1.0;
  const auto run_with = [&](long steps) {
    NavierStokes ns(d, p);
    set_velocity(ns, start, 0.0);
    ns.project_initial();
    run(ns, t_end, steps);
    return gathered_velocity(comm, ns);
  };
  const long steps[3] = {10, 20, 40};
  return temporal_orders(comm, run_with, steps, 160, projection, "periodic flow",
                         p.nu * t_end / (h * h));
}

TEST(NavierStokesImex, SecondOrderInTimeBeyondTheDiffusiveLimitOnPeriodicGrids) {
  expect_second_order(periodic_temporal_orders(ImexProjection::EverySubstep));
}

TEST(NavierStokesImex, SecondOrderInTimeOnPeriodicGridsProjectingTheLastSubstep) {
  expect_second_order(periodic_temporal_orders(ImexProjection::LastSubstep));
}

/// A lid-driven cavity from rest on a fixed 32^2 grid, t = 0.1 in `first`, twice and four times
/// as many steps (nu dt / h^2 = 41 / first ...; SSP-RK3 is unstable above 0.23 here): errors
/// against a run with 16 times smaller steps, and their orders. The incremental pressure keeps
/// the viscous terms and the projection from splitting at the walls.
TemporalOrders cavity_temporal_orders(ImexProjection projection, long first) {
  const auto& comm = world();
  const Domain d(comm, box(2, {32, 32, 1}, {1, 1, 1}, {false, false, false}));
  NavierStokesParams p;
  p.nu = 0.4;
  p.pressure.rtol = 1e-13;
  p.viscous_rtol = 1e-14;
  p.viscous_max_iterations = 1000;
  p.scheme = TimeScheme::Rk3CrankNicolson;
  p.imex_projection = projection;
  p.boundaries.face[3].velocity[0] = 1.0;
  const double h = d.spacing(0), t_end = 0.1;
  const auto run_with = [&](long steps) {
    NavierStokes ns(d, p);
    ns.project_initial();
    run(ns, t_end, steps);
    return gathered_velocity(comm, ns);
  };
  const long steps[3] = {first, 2 * first, 4 * first};
  return temporal_orders(comm, run_with, steps, 16 * first, projection, "cavity",
                         p.nu * t_end / (h * h));
}

TEST(NavierStokesImex, SecondOrderInTimeWithWalls) {
  // (From nu dt / h^2 = 4 the first observed order is 1.83: Crank-Nicolson damps the stiffest
  // modes of the impulsive start slowly.)
  expect_second_order(cavity_temporal_orders(ImexProjection::EverySubstep, 20));
}

TEST(NavierStokesImex, SecondOrderInTimeWithWallsProjectingTheLastSubstep) {
  // The unprojected substeps' error of the impulsive start decays more slowly: from 20 steps
  // the observed orders are 5.0 and 2.4 (pre-asymptotic), from 40 2.4 and 2.2, from 80 2.2 and
  // 2.1.
  expect_second_order(cavity_temporal_orders(ImexProjection::LastSubstep, 80));
}

TEST(NavierStokesImex, PoiseuilleFromInflowToOutflowIsExact) {
  const auto& comm = world();
  for (BoundaryKind outlet : {BoundaryKind::Outflow, BoundaryKind::Convective}) {
    const Domain d(comm, box(2, {24, 12, 1}, {kChannelL, kChannelH, 1}, {false, false, false}));
    NavierStokesParams p = channel_params(outlet);
    p.boundaries.face[1].velocity[0] = 2.0 / 3.0 * kChannelU;
    p.scheme = TimeScheme::Rk3CrankNicolson;
    p.viscous_rtol = 1e-14;
    p.viscous_max_iterations = 1000;
    NavierStokes ns(d, p);
    // The exact profile is a fixed point of the scheme. The first step starts from p = 0 (no
    // pressure is known yet): a one-time disturbance of order dt^2 that the flow carries out
    // (max error 2e-8 at t = 2.5, 1e-13 at t = 5, 3e-14 from t = 7.5 on).
    set_velocity(ns, channel_profile, 0.0);
    ns.project_initial();
    run(ns, 7.5, 150);
    EXPECT_LT(max_velocity_error(ns, channel_profile, 0.5), 1e-10 * kChannelU) << to_string(outlet);
    EXPECT_LT(max_divergence(ns), 1e-9) << to_string(outlet);
  }
}

TEST(NavierStokesImex, LidDrivenCavityAndDuctSameOnAnyNumberOfRanks) {
  NavierStokesParams p;
  p.nu = 0.01;
  p.pressure.rtol = 1e-13;
  p.scheme = TimeScheme::Rk3CrankNicolson;
  p.boundaries.face[3].velocity[0] = 1.0;
  expect_same_on_any_rank_count(box(2, {24, 20, 1}, {1, 1, 1}, {false, false, false}), p, 10, 0.02);
  NavierStokesParams q = duct_flow(TimeScheme::Rk3CrankNicolson, BoundaryKind::Convective);
  q.boundaries.face[1].velocity[0] = 0.5;
  expect_same_on_any_rank_count(box(3, {13, 11, 9}, {2, 1, 1}, {false, false, false}), q, 6, 0.04);
  // Projected at the last substep only.
  p.imex_projection = ImexProjection::LastSubstep;
  expect_same_on_any_rank_count(box(2, {24, 20, 1}, {1, 1, 1}, {false, false, false}), p, 10, 0.02);
}

// pressure.krylov = kokkos: the device-resident CG gives PETSc's flow, on any number of ranks.
TEST(NavierStokes, KokkosPressureCGGivesPetscFlowOnAnyNumberOfRanks) {
  const auto& comm = world();
  NavierStokesParams cavity;
  cavity.nu = 0.01;
  cavity.pressure.rtol = 1e-13;
  cavity.boundaries.face[3].velocity[0] = 1.0;
  const NavierStokesParams duct = duct_flow(TimeScheme::Rk3CrankNicolson, BoundaryKind::Outflow);
  const std::vector<std::tuple<std::string, DomainSpec, NavierStokesParams, long, double>> runs{
      {"cavity, explicit", box(2, {24, 20, 1}, {1, 1, 1}, {false, false, false}), cavity, 10, 0.01},
      {"3D duct, imex", box(3, {13, 11, 9}, {2, 1, 1}, {false, false, false}), duct, 6, 0.04}};
  for (const auto& [name, spec, params, steps, dt] : runs) {
    NavierStokesParams with_petsc = params, with_kokkos = params;
    with_petsc.pressure.krylov = linear::PressureKrylov::Petsc;
    with_kokkos.pressure.krylov = linear::PressureKrylov::Kokkos;
    const std::vector<double> a = final_state(comm, spec, with_petsc, steps, dt);
    const std::vector<double> b = final_state(comm, spec, with_kokkos, steps, dt);
    if (comm.is_root()) {
      ASSERT_EQ(a.size(), b.size());
      double scale = 0, diff = 0;
      for (std::size_t q = 0; q < a.size(); ++q) {
        scale = std::max(scale, std::abs(a[q]));
        diff = std::max(diff, std::abs(a[q] - b[q]));
      }
      EXPECT_LE(diff, 1e-10 * scale) << name;
      std::printf("%s: Kokkos CG against PETSc CG, max difference %.2e (scale %.2e)\n",
                  name.c_str(), diff, scale);
    }
    expect_same_on_any_rank_count(spec, with_kokkos, steps, dt);
  }
}

// --- Stretched grids (DomainSpec::faces) ---------------------------------------------------------

/// The inflow/outflow channel of PoiseuilleFromInflowToOutflowIsExact on 2n x n cells clustered
/// at both walls (1/2 of the mean width there, 3/2 in the middle) and at both ends.
DomainSpec stretched_channel(long n) {
  DomainSpec s = box(2, {2 * n, n, 1}, {kChannelL, kChannelH, 1}, {false, false, false});
  s.faces[0] = undertow::testing::smoothly_stretched(2 * n, kChannelL, 0.5);
  s.faces[1] = undertow::testing::smoothly_stretched(n, kChannelH, 0.5);
  return s;
}

// The channel's parabola is a fixed point on a stretched grid too: the viscous terms are exact
// for quadratics there, the wall ghosts are the quadratic through the wall, and the pressure is
// linear. Explicit and implicit viscous terms, an outflow and a convective outflow. (As on a
// uniform grid, imex's first step starts from p = 0, a disturbance the flow carries out.)
TEST(NavierStokesStretched, PoiseuilleIsExact) {
  const auto& comm = world();
  for (TimeScheme scheme : {TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson})
    for (BoundaryKind outlet : {BoundaryKind::Outflow, BoundaryKind::Convective}) {
      const Domain d(comm, stretched_channel(12));
      NavierStokesParams p = channel_params(outlet);
      p.boundaries.face[1].velocity[0] = 2.0 / 3.0 * kChannelU;
      p.scheme = scheme;
      p.viscous_rtol = 1e-14;
      p.viscous_max_iterations = 1000;
      NavierStokes ns(d, p);
      set_velocity(ns, channel_profile, 0.0);
      ns.project_initial();
      const bool imex = scheme == TimeScheme::Rk3CrankNicolson;
      run(ns, imex ? 7.5 : 0.5, imex ? 150 : 100);
      const std::string what = std::string(imex ? "imex" : "explicit") + ", " + to_string(outlet);
      EXPECT_LT(max_velocity_error(ns, channel_profile, 0.0), 1e-10 * kChannelU) << what;
      EXPECT_LT(max_divergence(ns), 1e-9) << what;
    }
}

// A stretched cavity and a stretched 3D duct give the same flow on 1, 2 and 4 ranks.
// The geometric multigrid preconditions the pressure here: its V-cycle is the same on any
// number of ranks, where BoomerAMG's (auto's choice on stretched grids) depends on the split.
TEST(NavierStokesStretched, SameOnAnyNumberOfRanks) {
  NavierStokesParams p;
  p.nu = 0.01;
  p.pressure.rtol = 1e-13;
  p.pressure.preconditioner = linear::PressurePreconditioner::Multigrid;
  p.boundaries.face[3].velocity[0] = 1.0;
  DomainSpec cavity = box(2, {24, 20, 1}, {1, 1, 1}, {false, false, false});
  cavity.faces[0] = undertow::testing::smoothly_stretched(24, 1.0, 0.6);
  cavity.faces[1] = undertow::testing::smoothly_stretched(20, 1.0, 0.6);
  for (TimeScheme scheme : {TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson}) {
    p.scheme = scheme;
    expect_same_on_any_rank_count(cavity, p, 10, 0.005);
  }
  NavierStokesParams q = duct_flow(TimeScheme::Rk3CrankNicolson, BoundaryKind::Convective);
  q.boundaries.face[1].velocity[0] = 0.5;
  q.pressure.preconditioner = linear::PressurePreconditioner::Multigrid;
  DomainSpec duct = box(3, {13, 11, 9}, {2, 1, 1}, {false, false, false});
  duct.faces[1] = undertow::testing::smoothly_stretched(11, 1.0, 0.5);
  duct.faces[2] = undertow::testing::smoothly_stretched(9, 1.0, 0.5);
  expect_same_on_any_rank_count(duct, q, 6, 0.02);
}

} // namespace
