// RK3-CN, the implicit-viscous time step of the Navier-Stokes solver (solver.hpp): the explicit
// right-hand side of each substep, the Helmholtz operator of its viscous terms and penalty, and
// the solve. The adjoint transposes each piece in imex_adjoint.cpp.

#include "undertow/solvers/navier_stokes/solver.hpp"

#include "undertow/core/error.hpp"

#include <cmath>

namespace undertow {
namespace navier_stokes {

namespace {

const Location kFaces[3] = {Location::FaceX, Location::FaceY, Location::FaceZ};

/// What the right-hand side kernel of one substep reads and writes.
struct ImexRhs {
  Velocity w, w_previous;
  FieldView out;
  /// Where set: N(w_previous) on entry (read in place of evaluating it), N(w) on exit.
  FieldView tendency;
  double dt, gamma, zeta, alpha_nu, force;
  GridSpacing spacing;
};

/// out = w + dt (gamma N(w) + zeta N(w_previous) + alpha nu L w + force) for component C.
template <int C, int Dim, class S>
void imex_rhs_kernel(const ImexRhs& m, const S& sp, const IndexSpace& space) {
  const bool previous = m.zeta != 0.0, kept = m.tendency.data() != nullptr;
  // for_each_rows: out is read nowhere, the tendency only at its own point.
  for_each_rows(
      "ns::imex_rhs", space, KOKKOS_LAMBDA(long i, long j, long k) {
        const double n = advective_tendency(m.w, C, Dim, sp, i, j, k);
        double r = m.gamma * n + m.alpha_nu * laplacian(m.w, C, Dim, sp, i, j, k) + m.force;
        if (previous)
          r += m.zeta *
               (kept ? m.tendency(i, j, k) : advective_tendency(m.w_previous, C, Dim, sp, i, j, k));
        if (kept)
          m.tendency(i, j, k) = n;
        m.out(i, j, k) = m.w.u[C](i, j, k) + m.dt * r;
      });
}
template <int C, int Dim>
void imex_rhs_kernel(const ImexRhs& m, const IndexSpace& space) {
  with_spacing(m.spacing, [&](const auto& sp) { imex_rhs_kernel<C, Dim>(m, sp, space); });
}

void imex_rhs(int c, int dim, const ImexRhs& m, const IndexSpace& space) {
  if (dim == 2)
    (c == 0 ? imex_rhs_kernel<0, 2> : imex_rhs_kernel<1, 2>)(m, space);
  else
    (c == 0   ? imex_rhs_kernel<0, 3>
     : c == 1 ? imex_rhs_kernel<1, 3>
              : imex_rhs_kernel<2, 3>)(m, space);
}

/// The explicit outflow rule on a convective face: out = w - dt rate (gamma (w - w_inner) +
/// zeta (w_previous - w_previous_inner)).
void convective_rhs(const ConvectiveFace& f, int c, const FieldView& w, const FieldView& wp,
                    double dt, double gamma, double zeta, const FieldView& out) {
  const double rate = f.speed * f.inv_h;
  const long inward = f.inward;
  const bool previous = zeta != 0.0;
  for_each(
      "ns::imex_convective_rhs", f.layer, KOKKOS_LAMBDA(long i, long j, long k) {
        double r = gamma * (w(i, j, k) - at(w, i, j, k, c, inward));
        if (previous)
          r += zeta * (wp(i, j, k) - at(wp, i, j, k, c, inward));
        out(i, j, k) = w(i, j, k) - dt * rate * r;
      });
}

/// y = (1 + penalty chi) x - a L x on `space` (a = alpha dt nu); chi may be empty.
struct Helmholtz {
  Velocity x;
  FieldView y, chi;
  double penalty, a;
  GridSpacing spacing;
};

template <int C, int Dim, class S>
void helmholtz_kernel(const Helmholtz& h, const S& sp, const IndexSpace& space) {
  // for_each_rows: y is not x (apply_helmholtz).
  for_each_rows(
      "ns::helmholtz", space, KOKKOS_LAMBDA(long i, long j, long k) {
        const double diagonal = 1.0 + (h.chi.data() ? h.penalty * h.chi(i, j, k) : 0.0);
        h.y(i, j, k) = diagonal * h.x.u[C](i, j, k) - h.a * laplacian(h.x, C, Dim, sp, i, j, k);
      });
}
template <int C, int Dim>
void helmholtz_kernel(const Helmholtz& h, const IndexSpace& space) {
  with_spacing(h.spacing, [&](const auto& sp) { helmholtz_kernel<C, Dim>(h, sp, space); });
}

void helmholtz(int c, int dim, const Helmholtz& h, const IndexSpace& space) {
  if (dim == 2)
    (c == 0 ? helmholtz_kernel<0, 2> : helmholtz_kernel<1, 2>)(h, space);
  else
    (c == 0   ? helmholtz_kernel<0, 3>
     : c == 1 ? helmholtz_kernel<1, 3>
              : helmholtz_kernel<2, 3>)(h, space);
}

/// y = (1 + penalty chi) x on a convective face (no viscous term there).
void helmholtz_convective(const ConvectiveFace& f, const FieldView& x, const FieldView& chi,
                          double penalty, const FieldView& y) {
  for_each(
      "ns::helmholtz_convective", f.layer, KOKKOS_LAMBDA(long i, long j, long k) {
        y(i, j, k) = (1.0 + (chi.data() ? penalty * chi(i, j, k) : 0.0)) * x(i, j, k);
      });
}

/// d = 1 / ((1 + penalty chi) + a sum_d 2 / h_d^2) on `space` (viscous = false: without the
/// viscous part).
void inverse_diagonal(const IndexSpace& space, const FieldView& chi, double penalty, double a,
                      double laplace_diagonal, const FieldView& d) {
  for_each(
      "ns::helmholtz_inverse_diagonal", space, KOKKOS_LAMBDA(long i, long j, long k) {
        d(i, j, k) =
            1.0 / (1.0 + (chi.data() ? penalty * chi(i, j, k) : 0.0) + a * laplace_diagonal);
      });
}

/// The same on a stretched grid, where the Laplacian's diagonal (of component c) varies.
void inverse_diagonal(const IndexSpace& space, const FieldView& chi, double penalty, double a,
                      int c, int dim, const GridSpacing& sp, const FieldView& d) {
  for_each(
      "ns::helmholtz_inverse_diagonal_stretched", space, KOKKOS_LAMBDA(long i, long j, long k) {
        double laplace_diagonal = 0.0;
        for (int e = 0; e < dim; ++e) {
          const long g = along(e, i, j, k);
          laplace_diagonal += e == c ? (sp.cell(e, g) + sp.cell(e, g - 1)) * sp.link(e, g)
                                     : (sp.link(e, g + 1) + sp.link(e, g)) * sp.span(e, g);
        }
        d(i, j, k) =
            1.0 / (1.0 + (chi.data() ? penalty * chi(i, j, k) : 0.0) + a * laplace_diagonal);
      });
}

/// out += scale a b on `space`.
void add_product(const IndexSpace& space, double scale, const FieldView& a, const FieldView& b,
                 const FieldView& out) {
  for_each(
      "ns::imex_penalty_target", space,
      KOKKOS_LAMBDA(long i, long j, long k) { out(i, j, k) += scale * a(i, j, k) * b(i, j, k); });
}

/// out += x on `space`.
void add_into(const IndexSpace& space, const FieldView& x, const FieldView& out) {
  for_each(
      "ns::viscous_correction", space,
      KOKKOS_LAMBDA(long i, long j, long k) { out(i, j, k) += x(i, j, k); });
}

/// out -= scale G p along c on `space`.
void subtract_gradient(const IndexSpace& space, const FieldView& p, int c, double scale,
                       const GridSpacing& sp, const FieldView& out) {
  for_each(
      "ns::imex_pressure_gradient", space, KOKKOS_LAMBDA(long i, long j, long k) {
        out(i, j, k) -= scale * face_gradient(p, c, sp, i, j, k);
      });
}

/// p += scale psi on the owned cells.
void add_scaled(const Field& psi, double scale, Field& p) {
  const FieldView pv = p.view(), sv = psi.view();
  for_each(
      "ns::imex_pressure_increment", p.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { pv(i, j, k) += scale * sv(i, j, k); });
}

} // namespace

void NavierStokes::imex_right_hand_side(int k, const std::array<Field, 3>& w,
                                        const std::array<Field, 3>* w_previous, Field& p, double dt,
                                        std::array<Field, 3>& rhs) {
  imex_right_hand_side(k, w, w_previous, p, dt, rhs, false);
}

void NavierStokes::imex_right_hand_side(int k, const std::array<Field, 3>& w,
                                        const std::array<Field, 3>* w_previous, Field& p, double dt,
                                        std::array<Field, 3>& rhs, bool reuse_tendency) {
  potential_ghosts(p);
  auto scope = m_timers.scope("momentum");
  const ImexSubstep& s = kRk3CrankNicolson[k];
  if (!m_patterns.empty())
    update_target(); // at the substep's end, where u* is
  require(s.zeta == 0.0 || w_previous != nullptr,
          "imex_right_hand_side: substep needs the previous substep's velocity");
  const int dim = m_domain.dim();
  for (int c = 0; c < dim; ++c) {
    require(rhs[c].view().data() != w[c].view().data() &&
                (!w_previous || rhs[c].view().data() != (*w_previous)[c].view().data()),
            "imex_right_hand_side: rhs must not be w or w_previous");
    if (reuse_tendency && m_previous_tendency[c].view().data() == nullptr)
      m_previous_tendency[c] = Field(m_domain, kFaces[c], 1, "ns::imex_previous_tendency");
    const ImexRhs m{velocity_views(w),
                    w_previous ? velocity_views(*w_previous) : velocity_views(w),
                    rhs[c].view(),
                    reuse_tendency ? m_previous_tendency[c].view() : FieldView(),
                    dt,
                    s.gamma,
                    s.zeta,
                    s.alpha * m_params.nu,
                    2.0 * s.alpha * body_force(c),
                    m_spacing};
    imex_rhs(c, dim, m, m_free[c]);
    for (const ConvectiveFace& f : convective_faces(c))
      convective_rhs(f, c, m.w.u[c], m.w_previous.u[c], dt, s.gamma, s.zeta, m.out);
    // The pressure so far: the projection then adds only its increment, of order dt^2, so that
    // viscous terms and projection nearly commute at the walls too.
    subtract_gradient(m_free[c], p.view(), c, 2.0 * s.alpha * dt, m_spacing, m.out);
    // The penalty's drive towards the actuators' target: (2 alpha dt / eta) chi U.
    if (!m_patterns.empty())
      add_product(m_free[c], 2.0 * s.alpha * dt / m_params.obstacles.eta, m_total_mask[c].view(),
                  m_target[c].view(), m.out);
  }
}

void NavierStokes::apply_helmholtz(int k, double dt, const std::array<Field, 3>& x,
                                   std::array<Field, 3>& y) {
  const ImexSubstep& s = kRk3CrankNicolson[k];
  const int dim = m_domain.dim();
  const double penalty = m_penalised_flow ? 2.0 * s.alpha * dt / m_params.obstacles.eta : 0.0;
  for (int c = 0; c < dim; ++c)
    require(y[c].view().data() != x[c].view().data(), "apply_helmholtz: y must not be x");
  for (int c = 0; c < dim; ++c) {
    const FieldView chi = m_penalised_flow ? m_total_mask[c].view() : FieldView();
    const Helmholtz h{velocity_views(x),          y[c].view(), chi, penalty,
                      s.alpha * dt * m_params.nu, m_spacing};
    helmholtz(c, dim, h, m_free[c]);
    for (const ConvectiveFace& f : convective_faces(c))
      helmholtz_convective(f, h.x.u[c], chi, penalty, h.y);
  }
}

const std::array<Field, 3>& NavierStokes::helmholtz_inverse_diagonal(int k, double dt) {
  const ImexSubstep& s = kRk3CrankNicolson[k];
  const int dim = m_domain.dim();
  const double penalty = m_penalised_flow ? 2.0 * s.alpha * dt / m_params.obstacles.eta : 0.0;
  double laplace_diagonal = 0;
  for (int d = 0; d < dim; ++d)
    laplace_diagonal += 2.0 / (m_domain.spacing(d) * m_domain.spacing(d));
  for (int c = 0; c < dim; ++c) {
    if (m_inverse_diagonal[c].view().data() == nullptr)
      m_inverse_diagonal[c] = Field(m_domain, kFaces[c], 1, "ns::helmholtz_inverse_diagonal");
    const FieldView chi = m_penalised_flow ? m_total_mask[c].view() : FieldView();
    const FieldView d = m_inverse_diagonal[c].view();
    if (m_spacing.all_uniform())
      inverse_diagonal(m_free[c], chi, penalty, s.alpha * dt * m_params.nu, laplace_diagonal, d);
    else
      inverse_diagonal(m_free[c], chi, penalty, s.alpha * dt * m_params.nu, c, dim, m_spacing, d);
    for (const ConvectiveFace& f : convective_faces(c))
      inverse_diagonal(f.layer, chi, penalty, 0.0, 0.0, d);
  }
  return m_inverse_diagonal;
}

linear::FieldBiCGStab& NavierStokes::krylov() {
  if (!m_krylov)
    m_krylov = std::make_unique<linear::FieldBiCGStab>(m_domain.comm(), m_u, m_free);
  return *m_krylov;
}

int NavierStokes::viscous_solve(int k, double dt, const std::array<Field, 3>& rhs,
                                const std::array<Field, 3>& guess, std::array<Field, 3>& out) {
  auto scope = m_timers.scope("viscous");
  const int dim = m_domain.dim();
  for (int c = 0; c < dim; ++c) {
    if (m_viscous_residual[c].view().data() == nullptr) {
      m_viscous_residual[c] = Field(m_domain, kFaces[c], 1, "ns::viscous_residual");
      m_viscous_delta[c] = Field(m_domain, kFaces[c], 1, "ns::viscous_delta");
    }
    copy(guess[c], out[c]);
    fill_value(m_viscous_delta[c], m_viscous_delta[c].ghosted(), 0.0);
  }
  // H is affine in the boundary values: with out = the guess and its boundary values, H u* = rhs
  // becomes H0 delta = rhs - H out for the correction delta, H0 the homogeneous part.
  prepare(out);
  apply_helmholtz(k, dt, out, m_viscous_residual);
  linear::FieldBiCGStab& solver = krylov();
  // The residual, and ||rhs|| (the tolerance's reference) in the same pass.
  double rhs_squared = 0;
  for (int c = 0; c < dim; ++c) {
    const FieldView r = m_viscous_residual[c].view(), b = rhs[c].view();
    rhs_squared += local_sum(
        "ns::viscous_residual", m_free[c], KOKKOS_LAMBDA(long i, long j, long kk, double& acc) {
          r(i, j, kk) = b(i, j, kk) - r(i, j, kk);
          acc += b(i, j, kk) * b(i, j, kk);
        });
  }
  const double reference = std::sqrt(m_domain.comm().sum(rhs_squared));
  const auto homogeneous = [&](std::array<Field, 3>& x, std::array<Field, 3>& y) {
    prepare_homogeneous(x);
    apply_helmholtz(k, dt, x, y);
  };
  const auto preconditioner = [&]() -> const linear::FieldTriple& {
    return helmholtz_inverse_diagonal(k, dt);
  };
  const linear::KrylovResult result =
      solver.solve(homogeneous, preconditioner, m_viscous_residual, m_viscous_delta,
                   m_params.viscous_rtol, m_params.viscous_max_iterations, reference, true);
  if (!result.converged)
    throw CollectiveError(format("the implicit viscous solve (BiCGStab, substep %.0f) did not "
                                 "converge: residual %.3e after %.0f iterations against the "
                                 "target ",
                                 double(k + 1), result.residual, double(result.iterations)) +
                          format("%.3e. Loosen viscous.rtol, raise viscous.max_iterations, or "
                                 "reduce time.cfl (or time.dt)",
                                 m_params.viscous_rtol * result.reference));
  for (int c = 0; c < dim; ++c)
    add_into(m_free[c], m_viscous_delta[c].view(), out[c].view());
  return result.iterations;
}

void NavierStokes::step_rk3_crank_nicolson(double dt, StepTape* tape) {
  const int dim = m_domain.dim();
  for (int c = 0; c < dim; ++c)
    if (m_rhs[c].view().data() == nullptr)
      m_rhs[c] = Field(m_domain, kFaces[c], 1, "ns::imex_rhs");
  const double t0 = m_time;
  m_boundary_time = t0;
  prepare(m_u);
  update_feedback();
  if (tape) {
    tape->time = m_time;
    tape->dt = dt;
    keep_copy(m_domain, m_u, tape->u0);
  }
  // w_0 = u_n, w_1, w_2 in the stage fields; u* of the last substep overwrites u_n.
  std::array<Field, 3>* w[3] = {&m_u, &m_stage1, &m_stage2};
  std::array<Field, 3>* out[3] = {&m_stage1, &m_stage2, &m_u};
  std::array<Field, 3>* taped[2] = {tape ? &tape->stage1 : nullptr, tape ? &tape->stage2 : nullptr};
  const ImexProjection projection = m_params.imex_projection;
  for (int k = 0; k < 3; ++k) {
    const ImexSubstep& s = kRk3CrankNicolson[k];
    if (tape && imex_pressure_entry(projection, k) == k)
      keep_copy(m_p, tape->pressure[k]);
    m_force_time = t0 + imex_substep_middle(k) * dt;
    m_boundary_time = t0 + imex_substep_end(k) * dt; // u*'s boundary values and target
    imex_right_hand_side(k, *w[k], k > 0 ? w[k - 1] : nullptr, m_p, dt, m_rhs, true);
    m_viscous_iterations += viscous_solve(k, dt, m_rhs, *w[k], *out[k]);
    // Force on each body: the momentum the penalty removes in this substep, 2 alpha_k of the
    // step's, sum of (chi_k / eta) u* dV.
    for (std::size_t b = 0; b < m_masks.size() && m_penalised_flow; ++b)
      for (int c = 0; c < dim; ++c)
        m_forces[b][c] +=
            2.0 * s.alpha * masked_sum_weight(m_domain) / m_params.obstacles.eta *
            m_domain.comm().sum(
                masked_sum(m_free[c], m_masks[b][c], (*out[k])[c].view(), dim, m_target[c].view()));
    // p^(k+1) = p^(k) + psi / (2 alpha dt), psi the projection's potential; projected only at
    // the last substep, p_{n+1} = p_n + psi / dt (the substeps applied dt G p_n in all).
    if (const double fraction = imex_projection_weight(projection, k); fraction > 0.0) {
      const double weight = fraction * dt;
      project(*out[k], weight);
      add_scaled(m_psi, 1.0 / weight, m_p);
    }
    if (k == 2)
      break;
    prepare(*out[k]);
    if (tape)
      keep_copy(m_domain, *out[k], *taped[k]);
  }
}

} // namespace navier_stokes
} // namespace undertow
