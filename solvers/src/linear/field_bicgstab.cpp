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

/// r := r0 := b - A x (ax: A x; empty: x = 0, r = b) on the spaces; returns this rank's sum of
/// r^2, which is also r0 . r.
double first_residual(const Spaces& spaces, int count, const FieldTriple& b, const FieldTriple* ax,
                      FieldTriple& r, FieldTriple& r0) {
  double local = 0;
  for (int c = 0; c < count; ++c) {
    const FieldView bv = b[c].view(), rv = r[c].view(), r0v = r0[c].view();
    const FieldView av = ax ? (*ax)[c].view() : FieldView();
    local += local_sum(
        "bicgstab::first_residual", spaces[c], KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          const double value = av.data() ? bv(i, j, k) - av(i, j, k) : bv(i, j, k);
          rv(i, j, k) = value;
          r0v(i, j, k) = value;
          acc += value * value;
        });
  }
  return local;
}

/// p := r + beta (p - omega v) (first: p := r, the same for p = v = 0), then the preconditioned
/// direction phat := d p, on the spaces.
void update_direction(const Spaces& spaces, int count, bool first, double beta, double omega,
                      const FieldTriple& r, const FieldTriple& v, const FieldTriple& d,
                      FieldTriple& p, FieldTriple& phat) {
  for (int c = 0; c < count; ++c) {
    const FieldView pv = p[c].view(), rv = r[c].view(), vv = v[c].view(), dv = d[c].view(),
                    hv = phat[c].view();
    for_each_rows(
        "bicgstab::direction", spaces[c], KOKKOS_LAMBDA(long i, long j, long k) {
          const double value =
              first ? rv(i, j, k) : rv(i, j, k) + beta * (pv(i, j, k) - omega * vv(i, j, k));
          pv(i, j, k) = value;
          hv(i, j, k) = dv(i, j, k) * value;
        });
  }
}

/// s := r - alpha v and shat := d s on the spaces; returns this rank's sum of s^2.
double half_step(const Spaces& spaces, int count, double alpha, const FieldTriple& r,
                 const FieldTriple& v, const FieldTriple& d, FieldTriple& s, FieldTriple& shat) {
  double local = 0;
  for (int c = 0; c < count; ++c) {
    const FieldView rv = r[c].view(), vv = v[c].view(), dv = d[c].view(), sv = s[c].view(),
                    hv = shat[c].view();
    local += local_sum(
        "bicgstab::half_step", spaces[c], KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
          const double value = rv(i, j, k) - alpha * vv(i, j, k);
          sv(i, j, k) = value;
          hv(i, j, k) = dv(i, j, k) * value;
          acc += value * value;
        });
  }
  return local;
}

/// x += alpha phat on the spaces (the solve ending at its half step).
void add_scaled(const Spaces& spaces, int count, double alpha, const FieldTriple& phat,
                FieldTriple& x) {
  for (int c = 0; c < count; ++c) {
    const FieldView xv = x[c].view(), hv = phat[c].view();
    for_each_rows(
        "bicgstab::solution_half", spaces[c],
        KOKKOS_LAMBDA(long i, long j, long k) { xv(i, j, k) += alpha * hv(i, j, k); });
  }
}

/// This rank's t . t and t . s.
SumPair stabiliser_sums(const Spaces& spaces, int count, const FieldTriple& t,
                        const FieldTriple& s) {
  SumPair local;
  for (int c = 0; c < count; ++c) {
    const FieldView tv = t[c].view(), sv = s[c].view();
    const SumPair part = local_sums(
        "bicgstab::stabiliser", spaces[c], KOKKOS_LAMBDA(long i, long j, long k, SumPair& acc) {
          acc.first += tv(i, j, k) * tv(i, j, k);
          acc.second += tv(i, j, k) * sv(i, j, k);
        });
    local.first += part.first;
    local.second += part.second;
  }
  return local;
}

/// x += alpha phat + omega shat and r := s - omega t on the spaces; returns this rank's r . r
/// and r0 . r.
SumPair full_step(const Spaces& spaces, int count, double alpha, double omega,
                  const FieldTriple& phat, const FieldTriple& shat, const FieldTriple& s,
                  const FieldTriple& t, const FieldTriple& r0, FieldTriple& x, FieldTriple& r) {
  SumPair local;
  for (int c = 0; c < count; ++c) {
    const FieldView xv = x[c].view(), pv = phat[c].view(), hv = shat[c].view(), sv = s[c].view(),
                    tv = t[c].view(), r0v = r0[c].view(), rv = r[c].view();
    const SumPair part = local_sums(
        "bicgstab::full_step", spaces[c], KOKKOS_LAMBDA(long i, long j, long k, SumPair& acc) {
          xv(i, j, k) += alpha * pv(i, j, k) + omega * hv(i, j, k);
          const double value = sv(i, j, k) - omega * tv(i, j, k);
          rv(i, j, k) = value;
          acc.first += value * value;
          acc.second += r0v(i, j, k) * value;
        });
    local.first += part.first;
    local.second += part.second;
  }
  return local;
}

/// The sums of every rank, in one reduction. Collective.
SumPair global_sums(const Communicator& comm, const SumPair& local) {
  const std::vector<double> sums = comm.sum(std::vector<double>{local.first, local.second});
  return SumPair{sums[0], sums[1]};
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
  // r = b - A x; the shadow residual r0 = r, so that r0 . r = r . r to begin with.
  if (!zero_guess)
    A(x, m_t);
  double rr = m_comm.sum(first_residual(sp, n, b, zero_guess ? nullptr : &m_t, m_r, m_r0));
  double r0r = rr;
  result.reference = reference > 0.0 ? reference : std::sqrt(dot(b, b));
  result.residual = std::sqrt(rr);
  const double target = rtol * result.reference;
  if (result.residual <= target) {
    result.converged = true;
    return result;
  }
  // Each iteration is seven passes over the unknowns (two of them the operator) and four
  // reductions; the scratch vectors need no clearing, as the first direction is r itself and
  // the operator sets what it reads off the spaces.
  const FieldTriple& d = inverse_diagonal_of();
  double rho = 1.0, alpha = 1.0, omega = 1.0;
  while (result.iterations < max_iterations) {
    const double rho_next = r0r;
    if (rho_next == 0.0 || !std::isfinite(rho_next))
      return result; // breakdown: the shadow residual is orthogonal to the residual
    const double beta = (rho_next / rho) * (alpha / omega);
    rho = rho_next;
    // p = r + beta (p - omega v), phat = M^-1 p
    update_direction(sp, n, result.iterations == 0, beta, omega, m_r, m_v, d, m_p, m_phat);
    A(m_phat, m_v);
    const double r0v = dot(m_r0, m_v);
    if (r0v == 0.0 || !std::isfinite(r0v))
      return result;
    alpha = rho / r0v;
    // s = r - alpha v, shat = M^-1 s
    const double ss = m_comm.sum(half_step(sp, n, alpha, m_r, m_v, d, m_s, m_shat));
    ++result.iterations;
    if (std::sqrt(ss) <= target) {
      add_scaled(sp, n, alpha, m_phat, x);
      result.residual = std::sqrt(ss);
      result.converged = true;
      return result;
    }
    A(m_shat, m_t);
    const SumPair stabiliser = global_sums(m_comm, stabiliser_sums(sp, n, m_t, m_s));
    const double tt = stabiliser.first;
    if (tt == 0.0 || !std::isfinite(tt))
      return result;
    omega = stabiliser.second / tt;
    // x += alpha phat + omega shat, r = s - omega t
    const SumPair residual =
        global_sums(m_comm, full_step(sp, n, alpha, omega, m_phat, m_shat, m_s, m_t, m_r0, x, m_r));
    rr = residual.first;
    r0r = residual.second;
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
