// The adjoint of RK3-CN (imex.cpp): the transposed Helmholtz operator and solve, the transpose
// of each substep's explicit right-hand side, and their composition over a step. docs/adjoint.md
// derives them.

#include "undertow/solvers/navier_stokes/adjoint.hpp"

#include "undertow/core/error.hpp"

#include "force_transpose.hpp"
#include "momentum_transpose.hpp"
#include "projection_transpose.hpp"

#include <cmath>

namespace undertow {
namespace navier_stokes {

namespace {

/// masked := x on `space` and 0 on every other local point.
void mask_to(const Field& x, const IndexSpace& space, Field& masked) {
  fill_value(masked, masked.ghosted(), 0.0);
  const FieldView xv = x.view(), mv = masked.view();
  for_each_rows(
      "adj::viscous_mask", space,
      KOKKOS_LAMBDA(long i, long j, long k) { mv(i, j, k) = xv(i, j, k); });
}

/// masked := x on the rows of the viscous terms of component c (the free faces that are not
/// convective outflow faces), 0 elsewhere.
void viscous_rows(const NavierStokes& ns, int c, const Field& x, Field& masked) {
  mask_to(x, ns.free_faces(c), masked);
  for (const ConvectiveFace& f : ns.convective_faces(c))
    fill_value(masked, f.layer, 0.0);
}

/// scale L^T m at point (i, j, k) (the Laplacian's 3-point stencils, symmetric on uniform axes),
/// m being zero off the rows of L and beyond the array (Guarded: the point may be on the array's
/// edge); m of component c.
template <bool Guarded, int Dim, class S>
KOKKOS_INLINE_FUNCTION double laplacian_transpose_at(const FieldView& mv, int c, double scale,
                                                     const S& sp, long i, long j, long k) {
  double sum = 0;
  for (int d = 0; d < Dim; ++d) {
    if (sp.uniform(d)) {
      const double inv_h = sp.cell(d, along(d, i, j, k));
      sum += (fetch<Guarded>(mv, i, j, k, d, 1, d, 0) + fetch<Guarded>(mv, i, j, k, d, -1, d, 0) -
              2.0 * mv(i, j, k)) *
             (inv_h * inv_h);
    } else {
      sum += stretched_diffusion_gather<Guarded>(mv, c, d, sp, i, j, k);
    }
  }
  return scale * sum;
}

/// out := scale L^T m at every local point. The dimension is a template parameter, so that the
/// loop over the axes unrolls, and only the array's outermost layer checks its neighbours'
/// indices (the same sums in the same order everywhere).
template <int Dim, class S>
void laplacian_transpose_kernel(const Field& m, int c, double scale, const S& sp, Field& out) {
  const FieldView mv = m.view(), ov = out.view();
  const long n0 = static_cast<long>(mv.extent(0)), n1 = static_cast<long>(mv.extent(1)),
             n2 = static_cast<long>(mv.extent(2));
  for_each_rows( // out is not m
      "adj::laplacian_transpose", out.ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
        const bool inside =
            i > 0 && i < n0 - 1 && j > 0 && j < n1 - 1 && (Dim == 2 || (k > 0 && k < n2 - 1));
        ov(i, j, k) = inside ? laplacian_transpose_at<false, Dim>(mv, c, scale, sp, i, j, k)
                             : laplacian_transpose_at<true, Dim>(mv, c, scale, sp, i, j, k);
      });
}
void laplacian_transpose(const Field& m, int c, double scale, const GridSpacing& spacing, int dim,
                         Field& out) {
  with_spacing(spacing, [&](const auto& sp) {
    if (dim == 2)
      laplacian_transpose_kernel<2>(m, c, scale, sp, out);
    else
      laplacian_transpose_kernel<3>(m, c, scale, sp, out);
  });
}

/// y := (1 + penalty chi) x + s on `space` (chi may be empty).
void diagonal_plus(const IndexSpace& space, const FieldView& x, const FieldView& chi,
                   double penalty, const FieldView& s, const FieldView& y) {
  for_each_rows( // y is not x or s
      "adj::helmholtz_transpose", space, KOKKOS_LAMBDA(long i, long j, long k) {
        y(i, j, k) = (1.0 + (chi.data() ? penalty * chi(i, j, k) : 0.0)) * x(i, j, k) + s(i, j, k);
      });
}

/// dchi -= penalty mu u* on `space`; with the actuators' target U (the right-hand side's
/// penalty chi U), dchi += penalty mu (U - u*) and dtarget += penalty mu chi.
void chi_term(const IndexSpace& space, double penalty, const FieldView& mu, const FieldView& ustar,
              const FieldView& dchi, const FieldView& chi, const FieldView& target,
              const FieldView& dtarget) {
  if (target.data()) {
    for_each_rows(
        "adj::imex_chi_actuated", space, KOKKOS_LAMBDA(long i, long j, long k) {
          dchi(i, j, k) += penalty * mu(i, j, k) * (target(i, j, k) - ustar(i, j, k));
          dtarget(i, j, k) += penalty * mu(i, j, k) * chi(i, j, k);
        });
    return;
  }
  for_each_rows(
      "adj::imex_chi", space, KOKKOS_LAMBDA(long i, long j, long k) {
        dchi(i, j, k) -= penalty * mu(i, j, k) * ustar(i, j, k);
      });
}

/// Over the rows of the viscous terms (m nonzero there only): sum of m (L w + L u*), and sum of
/// m. Returns {the first, the second}.
template <class S>
double viscous_product(const IndexSpace& space, const Velocity& w, const Velocity& ustar,
                       const FieldView& m, int c, int dim, const S& sp) {
  return local_sum(
      "adj::imex_viscosity_derivative", space, KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        acc += m(i, j, k) *
               (laplacian(w, c, dim, sp, i, j, k) + laplacian(ustar, c, dim, sp, i, j, k));
      });
}

std::array<double, 2> viscous_sums(const IndexSpace& space, const Velocity& w,
                                   const Velocity& ustar, const FieldView& m, int c, int dim,
                                   const GridSpacing& spacing) {
  double lap = 0;
  with_spacing(spacing,
               [&](const auto& sp) { lap = viscous_product(space, w, ustar, m, c, dim, sp); });
  const double sum = local_sum(
      "adj::imex_force_derivative", space,
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += m(i, j, k); });
  return {lap, sum};
}

/// lambda += m on `space`.
void add_on(const IndexSpace& space, const FieldView& m, const FieldView& lambda) {
  for_each_rows(
      "adj::imex_identity", space,
      KOKKOS_LAMBDA(long i, long j, long k) { lambda(i, j, k) += m(i, j, k); });
}

/// Transpose of the convective outflow rule's term -dt weight rate (w - w_inner): mu at the face
/// moves to lambda at the face and the face inside.
void convective_transpose(const ConvectiveFace& f, int c, double factor, const FieldView& mu,
                          const FieldView& lambda) {
  const long inward = f.inward;
  for_each(
      "adj::imex_convective", f.layer, KOKKOS_LAMBDA(long i, long j, long k) {
        const double w = factor * mu(i, j, k);
        lambda(i, j, k) -= w;
        add_at(lambda, i, j, k, c, inward, w);
      });
}

} // namespace

void NavierStokesAdjoint::allocate_imex() {
  if (m_krylov)
    return;
  m_imex_rhs = m_ns.make_velocity("adj::imex_rhs");
  m_ustar = m_ns.make_velocity("adj::ustar");
  m_viscous_mu = m_ns.make_velocity("adj::viscous_mu");
  m_masked = m_ns.make_velocity("adj::viscous_masked");
  m_scatter = m_ns.make_velocity("adj::viscous_scatter");
  std::array<IndexSpace, 3> free;
  for (int c = 0; c < m_domain.dim(); ++c)
    free[c] = m_ns.free_faces(c);
  m_krylov = std::make_unique<linear::FieldBiCGStab>(m_domain.comm(), m_ustar, free);
}

void NavierStokesAdjoint::apply_helmholtz_transpose(int k, double dt, const Velocity3& x,
                                                    Velocity3& y) {
  allocate_imex();
  const ImexSubstep& s = kRk3CrankNicolson[k];
  const auto& params = m_ns.params();
  const int dim = m_domain.dim();
  const GridSpacing& sp = m_ns.spacing();
  const double penalty = m_ns.penalised() ? 2.0 * s.alpha * dt / params.obstacles.eta : 0.0;
  for (int c = 0; c < dim; ++c)
    require(y[c].view().data() != x[c].view().data(), "apply_helmholtz_transpose: y must not be x");
  // H = D - a L P0: H^T = D - a P0^T L^T, the rows of L being the free faces that are not
  // convective outflow faces.
  for (int c = 0; c < dim; ++c) {
    viscous_rows(m_ns, c, x[c], m_masked[c]);
    laplacian_transpose(m_masked[c], c, -s.alpha * dt * params.nu, sp, dim, m_scatter[c]);
  }
  transpose_boundary(m_scatter, m_discarded);
  for (int c = 0; c < dim; ++c) {
    const FieldView chi = m_ns.penalised() ? m_ns.total_mask(c).view() : FieldView();
    diagonal_plus(m_ns.free_faces(c), x[c].view(), chi, penalty, m_scatter[c].view(), y[c].view());
  }
}

int NavierStokesAdjoint::viscous_solve_transpose(int k, double dt, const Velocity3& b,
                                                 Velocity3& mu) {
  allocate_imex();
  auto scope = m_timers.scope("viscous adjoint");
  for (int c = 0; c < m_domain.dim(); ++c)
    fill_value(mu[c], mu[c].ghosted(), 0.0);
  const auto transposed = [&](Velocity3& x, Velocity3& y) {
    apply_helmholtz_transpose(k, dt, x, y);
  };
  const auto& params = m_ns.params();
  const auto preconditioner = [&]() -> const linear::FieldTriple& {
    return m_ns.helmholtz_inverse_diagonal(k, dt);
  };
  const linear::KrylovResult result =
      m_krylov->solve(transposed, preconditioner, b, mu, params.viscous_rtol,
                      params.viscous_max_iterations, 0.0, true);
  if (!result.converged)
    throw CollectiveError(format("the transposed implicit viscous solve (BiCGStab, substep "
                                 "%.0f) did not converge: residual %.3e after %.0f iterations. ",
                                 double(k + 1), result.residual, double(result.iterations)) +
                          "Loosen viscous.rtol, raise viscous.max_iterations, or reduce time.cfl "
                          "(or time.dt)");
  return result.iterations;
}

void NavierStokesAdjoint::imex_substep_adjoint(int k, const Velocity3& w,
                                               const Velocity3* w_previous, Field& p, double dt,
                                               const ForceSeed& force_seed, Velocity3& lambda_ustar,
                                               Velocity3& lambda_w, Velocity3* lambda_w_previous,
                                               Field& lambda_p, const Velocity3* ustar) {
  allocate_imex();
  const ImexSubstep& s = kRk3CrankNicolson[k];
  const auto& params = m_ns.params();
  const int dim = m_domain.dim();
  const GridSpacing& sp = m_ns.spacing();
  const double volume = masked_sum_weight(m_domain);
  // u*, prepared as the projection and the viscous terms read it: the taped one, or recomputed
  // at the tape's state (the same solve, so bitwise the forward's).
  if (ustar) {
    for (int c = 0; c < dim; ++c)
      copy((*ustar)[c], m_ustar[c]);
  } else {
    m_ns.imex_right_hand_side(k, w, w_previous, p, dt, m_imex_rhs);
    m_ns.viscous_solve(k, dt, m_imex_rhs, w, m_ustar);
  }
  m_ns.prepare(m_ustar);
  // The forces F_b += 2 alpha V / eta sum mask_b (u* - U).
  const bool actuated = !params.actuators.empty();
  for (int c = 0; c < dim && actuated; ++c)
    fill_value(m_dtarget[c], m_dtarget[c].ghosted(), 0.0);
  if (m_ns.penalised()) {
    const double force_scale = 2.0 * s.alpha * volume / params.obstacles.eta;
    for (std::size_t b = 0; b < m_ns.obstacle_count(); ++b)
      for (int c = 0; c < dim; ++c) {
        const double seed = force_scale * force_seed[b][c];
        if (seed != 0.0)
          add_force_seed(m_ns.free_faces(c), seed, m_ns.mask(static_cast<int>(b), c),
                         m_ustar[c].view(), dim, lambda_ustar[c].view(),
                         m_mask_force_gradient[b][c].view(),
                         actuated ? m_ns.target(c).view() : FieldView(),
                         actuated ? m_dtarget[c].view() : FieldView());
      }
  }
  // mu = H^-T lambda_u*: the adjoint of the right-hand side.
  viscous_solve_transpose(k, dt, lambda_ustar, m_viscous_mu);
  auto scope = m_timers.scope("viscous adjoint");
  const double penalty = m_ns.penalised() ? 2.0 * s.alpha * dt / params.obstacles.eta : 0.0;
  double dnu = 0;
  fill_value(m_gradient_transpose, m_gradient_transpose.ghosted(), 0.0);
  for (int c = 0; c < dim; ++c) {
    const IndexSpace& free = m_ns.free_faces(c);
    const FieldView mu = m_viscous_mu[c].view();
    // The pressure term -2 alpha dt G p on every free face.
    gradient_transpose_gather(free, mu, -2.0 * s.alpha * dt, c, sp, m_gradient_transpose.view());
    // H depends on chi through its diagonal: dJ/dchi -= mu penalty u*; the right-hand side
    // through penalty chi U.
    if (m_ns.penalised())
      chi_term(free, penalty, mu, m_ustar[c].view(), m_chi_gradient[c].view(),
               m_ns.total_mask(c).view(), actuated ? m_ns.target(c).view() : FieldView(),
               actuated ? m_dtarget[c].view() : FieldView());
    // mu on the rows of the viscous terms (the convective faces have none).
    viscous_rows(m_ns, c, m_viscous_mu[c], m_masked[c]);
    // nu enters through alpha dt nu (L w + L u*), the body force through 2 alpha dt f.
    const auto sums = viscous_sums(free, velocity_views(w), velocity_views(m_ustar),
                                   m_masked[c].view(), c, dim, sp);
    dnu += s.alpha * dt * sums[0];
    add_body_force_derivative(c, 2.0 * s.alpha * dt * sums[1]);
    // The boundary values in alpha dt nu L u*: the affine part of H, through prepare's transpose
    // (its interior part is discarded; H^T had it).
    laplacian_transpose(m_masked[c], c, s.alpha * dt * params.nu, sp, dim, m_scatter[c]);
    // The identity part of the right-hand side, and the convective outflow rule.
    add_on(free, mu, lambda_w[c].view());
    for (const ConvectiveFace& f : m_ns.convective_faces(c)) {
      const double rate = f.speed * f.inv_h;
      convective_transpose(f, c, dt * rate * s.gamma, mu, lambda_w[c].view());
      if (s.zeta != 0.0)
        convective_transpose(f, c, dt * rate * s.zeta, mu, (*lambda_w_previous)[c].view());
    }
  }
  transpose_boundary(m_scatter, m_local);
  m_local.nu += dnu;
  if (actuated)
    add_actuator_derivatives(m_dtarget);
  potential_ghosts_transpose(m_gradient_transpose);
  axpy(1.0, m_gradient_transpose, lambda_p);
  // dt (gamma N(w) + alpha nu L w) and dt zeta N(w_previous) transposed, gathered into each
  // component (they read mu of every component).
  const double gamma_dt = s.gamma * dt;
  for (int t = 0; t < dim; ++t) {
    const MomentumTranspose mt{velocity_views(w), velocity_views(m_masked),      lambda_w[t].view(),
                               gamma_dt,          s.alpha * params.nu / s.gamma, sp};
    transpose_momentum(t, dim, mt, lambda_w[t].ghosted());
    if (s.zeta == 0.0)
      continue;
    const MomentumTranspose previous{velocity_views(*w_previous),
                                     velocity_views(m_masked),
                                     (*lambda_w_previous)[t].view(),
                                     s.zeta * dt,
                                     0.0,
                                     sp};
    transpose_momentum(t, dim, previous, (*lambda_w_previous)[t].ghosted());
  }
}

void NavierStokesAdjoint::step_adjoint_rk3_crank_nicolson(const StepTape& tape, Velocity3& lambda,
                                                          const ForceSeed& force_seed,
                                                          const Field* pressure_seed) {
  const int dim = m_domain.dim();
  const double dt = tape.dt;
  const Velocity3* w[3] = {&tape.u0, &tape.stage1, &tape.stage2};
  Velocity3* lambda_w[3] = {&m_start, &m_stage1, &m_stage2};
  for (Velocity3* l : lambda_w)
    zero(*l, dim);
  // m_lambda_p is the adjoint of p_{n+1} = p^(3), carried from the step after this one.
  if (pressure_seed)
    axpy(1.0, *pressure_seed, m_lambda_p);
  // Substep k: w_{k+1} = P u*(w_k, w_{k-1}, p^(k)), p^(k+1) = p^(k) + psi_k / (2 alpha_k dt);
  // the last one's w_3 = u_{n+1}. Projected at the last substep only: w_{k+1} = u* for k < 2,
  // p^(k) = p_n for all three, p_{n+1} = p_n + psi_2 / dt; every substep's pressure term then
  // adds its part of the adjoint of p_n to m_lambda_p.
  const ImexProjection projection = m_ns.params().imex_projection;
  for (int k = 2; k >= 0; --k) {
    const double weight = imex_projection_weight(projection, k) * dt; // 0: not projected
    Velocity3* lambda_ustar = k == 2 ? &lambda : lambda_w[k + 1];
    // u* and w_{k+1} take the boundary values of the substep's end (as the step did).
    m_ns.set_boundary_time(tape.time + imex_substep_end(k) * dt);
    m_ns.set_force_time(tape.time + imex_substep_middle(k) * dt);
    if (k < 2)
      prepare_adjoint(*lambda_ustar);
    if (weight > 0.0) {
      fill_value(m_psi_seed, m_psi_seed.ghosted(), 0.0);
      axpy(1.0 / weight, m_lambda_p, m_psi_seed);
      project_adjoint(*lambda_ustar, k + 1, &m_psi_seed);
    }
    // Shares the tape's storage: its ghosts are filled.
    Field p = tape.pressure[imex_pressure_entry(projection, k)];
    // A substep that is not projected taped its u* as w_{k+1}: no solve to repeat.
    const Velocity3* ustar = weight > 0.0 || k == 2 ? nullptr : w[k + 1];
    imex_substep_adjoint(k, *w[k], k > 0 ? w[k - 1] : nullptr, p, dt, force_seed, *lambda_ustar,
                         *lambda_w[k], k > 0 ? lambda_w[k - 1] : nullptr, m_lambda_p, ustar);
  }
  add_feedback_transpose(m_sensors, m_start);
  m_ns.set_boundary_time(tape.time);
  prepare_adjoint(m_start);
  for (int c = 0; c < dim; ++c)
    copy(m_start[c], lambda[c]);
}

} // namespace navier_stokes
} // namespace undertow
