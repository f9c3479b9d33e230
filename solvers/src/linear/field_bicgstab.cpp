#include "undertow/solvers/linear/field_bicgstab.hpp"

#include <cmath>

namespace undertow {
namespace linear {

namespace {

using Spaces = std::array<IndexSpace, 3>;

FieldTriple like_fields(const FieldTriple& like, int count, const std::string& name) {
  FieldTriple out;
  for (int c = 0; c < count; ++c)
    out[c] = Field(like[c].layout(), "bicgstab::" + name);
  return out;
}

/// Sum over the components of a . b over the spaces, this rank's part.
double local_dot(const Spaces& spaces, int count, const FieldTriple& a, const FieldTriple& b) {
  double local = 0;
  for (int c = 0; c < count; ++c) {
    const FieldView av = a[c].view(), bv = b[c].view();
    local += local_sum(
        "bicgstab::dot", spaces[c],
        KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += av(i, j, k) * bv(i, j, k); });
  }
  return local;
}

/// out := a x + b y on the spaces; returns this rank's sum of out^2 (for a norm).
double combine(const Spaces& spaces, int count, double a, const FieldTriple& x, double b,
               const FieldTriple& y, FieldTriple& out) {
  double local = 0;
  for (int c = 0; c < count; ++c) {
    const FieldView xv = x[c].view(), yv = y[c].view(), ov = out[c].view();
    local += local_sum(
        "bicgstab::combine", spaces[c], KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          const double value = a * xv(i, j, k) + b * yv(i, j, k);
          ov(i, j, k) = value;
          acc += value * value;
        });
  }
  return local;
}

/// out := x on the spaces; returns this rank's sum of out^2 (combine(1, x, -1, zero), bitwise).
double copy_with_norm(const Spaces& spaces, int count, const FieldTriple& x, FieldTriple& out) {
  double local = 0;
  for (int c = 0; c < count; ++c) {
    const FieldView xv = x[c].view(), ov = out[c].view();
    local += local_sum(
        "bicgstab::copy", spaces[c], KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          const double value = xv(i, j, k);
          ov(i, j, k) = value;
          acc += value * value;
        });
  }
  return local;
}

/// out := d * x on the spaces (the Jacobi preconditioner).
void precondition(const Spaces& spaces, int count, const FieldTriple& d, const FieldTriple& x,
                  FieldTriple& out) {
  for (int c = 0; c < count; ++c) {
    const FieldView dv = d[c].view(), xv = x[c].view(), ov = out[c].view();
    for_each(
        "bicgstab::precondition", spaces[c],
        KOKKOS_LAMBDA(long i, long j, long k) { ov(i, j, k) = dv(i, j, k) * xv(i, j, k); });
  }
}

/// p := r + beta (p - omega v) on the spaces.
void update_direction(const Spaces& spaces, int count, double beta, double omega,
                      const FieldTriple& r, const FieldTriple& v, FieldTriple& p) {
  for (int c = 0; c < count; ++c) {
    const FieldView pv = p[c].view(), rv = r[c].view(), vv = v[c].view();
    for_each(
        "bicgstab::direction", spaces[c], KOKKOS_LAMBDA(long i, long j, long k) {
          pv(i, j, k) = rv(i, j, k) + beta * (pv(i, j, k) - omega * vv(i, j, k));
        });
  }
}

/// x += alpha p + omega s on the spaces.
void update_solution(const Spaces& spaces, int count, double alpha, const FieldTriple& p,
                     double omega, const FieldTriple& s, FieldTriple& x) {
  for (int c = 0; c < count; ++c) {
    const FieldView xv = x[c].view(), pv = p[c].view(), sv = s[c].view();
    for_each(
        "bicgstab::solution", spaces[c], KOKKOS_LAMBDA(long i, long j, long k) {
          xv(i, j, k) += alpha * pv(i, j, k) + omega * sv(i, j, k);
        });
  }
}

} // namespace

FieldBiCGStab::FieldBiCGStab(const Communicator& comm, const FieldTriple& like,
                             const std::array<IndexSpace, 3>& spaces)
    : m_comm(comm), m_spaces(spaces) {
  while (m_count < 3 && like[m_count].view().data() != nullptr)
    ++m_count;
  m_r = like_fields(like, m_count, "r");
  m_r0 = like_fields(like, m_count, "r0");
  m_p = like_fields(like, m_count, "p");
  m_v = like_fields(like, m_count, "v");
  m_s = like_fields(like, m_count, "s");
  m_t = like_fields(like, m_count, "t");
  m_phat = like_fields(like, m_count, "phat");
  m_shat = like_fields(like, m_count, "shat");
}

double FieldBiCGStab::dot(const FieldTriple& a, const FieldTriple& b) const {
  return m_comm.sum(local_dot(m_spaces, m_count, a, b));
}

KrylovResult FieldBiCGStab::solve(const Operator& A, const InverseDiagonal& inverse_diagonal_of,
                                  const FieldTriple& b, FieldTriple& x, double rtol,
                                  int max_iterations, double reference, bool zero_guess) {
  const Spaces& sp = m_spaces;
  const int n = m_count;
  KrylovResult result;
  // r = b - A x; the shadow residual r0 = r.
  double rr = 0;
  if (zero_guess) {
    rr = m_comm.sum(copy_with_norm(sp, n, b, m_r));
  } else {
    A(x, m_t);
    rr = m_comm.sum(combine(sp, n, 1.0, b, -1.0, m_t, m_r));
  }
  for (int c = 0; c < n; ++c)
    copy(m_r[c], m_r0[c]);
  result.reference = reference > 0.0 ? reference : std::sqrt(dot(b, b));
  result.residual = std::sqrt(rr);
  const double target = rtol * result.reference;
  if (result.residual <= target) {
    result.converged = true;
    return result;
  }
  for (int c = 0; c < n; ++c) {
    fill_value(m_p[c], m_p[c].ghosted(), 0.0);
    fill_value(m_v[c], m_v[c].ghosted(), 0.0);
    fill_value(m_phat[c], m_phat[c].ghosted(), 0.0);
    fill_value(m_shat[c], m_shat[c].ghosted(), 0.0);
  }
  const FieldTriple& inverse_diagonal = inverse_diagonal_of();
  double rho = 1.0, alpha = 1.0, omega = 1.0;
  while (result.iterations < max_iterations) {
    const double rho_next = dot(m_r0, m_r);
    if (rho_next == 0.0 || !std::isfinite(rho_next))
      return result; // breakdown: the shadow residual is orthogonal to the residual
    const double beta = (rho_next / rho) * (alpha / omega);
    rho = rho_next;
    update_direction(sp, n, beta, omega, m_r, m_v, m_p); // p = r + beta (p - omega v)
    precondition(sp, n, inverse_diagonal, m_p, m_phat);
    A(m_phat, m_v);
    const double r0v = dot(m_r0, m_v);
    if (r0v == 0.0 || !std::isfinite(r0v))
      return result;
    alpha = rho / r0v;
    const double ss = m_comm.sum(combine(sp, n, 1.0, m_r, -alpha, m_v, m_s)); // s = r - alpha v
    ++result.iterations;
    if (std::sqrt(ss) <= target) {
      combine(sp, n, 1.0, x, alpha, m_phat, x);
      result.residual = std::sqrt(ss);
      result.converged = true;
      return result;
    }
    precondition(sp, n, inverse_diagonal, m_s, m_shat);
    A(m_shat, m_t);
    const double tt = dot(m_t, m_t);
    if (tt == 0.0 || !std::isfinite(tt))
      return result;
    omega = dot(m_t, m_s) / tt;
    update_solution(sp, n, alpha, m_phat, omega, m_shat, x);     // x += alpha phat + omega shat
    rr = m_comm.sum(combine(sp, n, 1.0, m_s, -omega, m_t, m_r)); // r = s - omega t
    result.residual = std::sqrt(rr);
    if (result.residual <= target) {
      result.converged = true;
      return result;
    }
    if (omega == 0.0)
      return result;
  }
  return result;
}

} // namespace linear
} // namespace undertow
