#include "undertow/solvers/linear/field_cg.hpp"

#include <algorithm>
#include <cmath>

namespace undertow {
namespace linear {

namespace {

/// out := a x + b y over the owned cells.
void combine(double a, const Field& x, double b, const Field& y, Field& out) {
  const FieldView xv = x.view(), yv = y.view(), ov = out.view();
  for_each_rows(
      "cg::combine", out.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { ov(i, j, k) = a * xv(i, j, k) + b * yv(i, j, k); });
}

} // namespace

FieldCG::FieldCG(const Communicator& comm, const Field& like, double cells)
    : m_comm(comm), m_cells(cells), m_r(like.layout(), "cg::r"), m_z(like.layout(), "cg::z"),
      m_p(like.layout(), "cg::p"), m_w(like.layout(), "cg::w") {}

double FieldCG::dot(const Field& a, const Field& b) const {
  const FieldView av = a.view(), bv = b.view();
  return m_comm.sum(local_sum(
      "cg::dot", a.owned(),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += av(i, j, k) * bv(i, j, k); }));
}

void FieldCG::remove_mean(Field& f) const {
  const FieldView v = f.view();
  const double mean =
      m_comm.sum(local_sum(
          "cg::mean", f.owned(),
          KOKKOS_LAMBDA(long i, long j, long k, double& acc) { acc += v(i, j, k); })) /
      m_cells;
  for_each_rows(
      "cg::remove_mean", f.owned(), KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) -= mean; });
}

FieldCGResult FieldCG::solve(const Apply& A, const Apply& B, const Field& b, Field& x,
                             const FieldCGSettings& s) {
  FieldCGResult result;
  const auto precondition = [&](Field& in, Field& out) {
    B(in, out);
    if (s.singular)
      remove_mean(out);
  };
  // r = b - A x, z = B r.
  A(x, m_w);
  combine(1.0, b, -1.0, m_w, m_r);
  precondition(m_r, m_z);
  result.residual = std::sqrt(dot(m_z, m_z));
  // A first residual within the absolute tolerance ends the solve whatever the reference: a
  // steady state's projection then costs one V-cycle, not two.
  if (result.residual <= s.atol) {
    result.reason = FieldCGReason::Converged;
    return result;
  }
  // The reference norm ||B b|| (m_w, m_p are scratch until the first iteration).
  copy(b, m_w);
  precondition(m_w, m_p);
  double reference = std::sqrt(dot(m_p, m_p));
  if (reference == 0.0)
    reference = result.residual;
  const double tolerance = std::max(s.rtol * reference, s.atol);
  // PETSc's order of tests, at the start and after each iteration: true if the solve ends.
  const auto ends = [&](double z_dot_r) {
    if (!std::isfinite(result.residual))
      result.reason = FieldCGReason::NotFinite;
    else if (result.residual <= tolerance)
      result.reason = FieldCGReason::Converged;
    else if (result.residual >= s.dtol * reference)
      result.reason = FieldCGReason::Diverged;
    else if (z_dot_r < 0.0)
      result.reason = FieldCGReason::Indefinite;
    else
      return false;
    return true;
  };
  double beta = dot(m_z, m_r), beta_old = 0.0;
  if (ends(beta))
    return result;
  while (result.iterations < s.max_iterations) {
    ++result.iterations;
    if (beta == 0.0) { // r is B-orthogonal to itself: converged (PETSc: atol)
      result.reason = FieldCGReason::Converged;
      return result;
    }
    if (result.iterations == 1)
      copy(m_z, m_p);
    else
      combine(1.0, m_z, beta / beta_old, m_p, m_p); // p = z + (beta / beta_old) p
    beta_old = beta;
    A(m_p, m_w);
    const double pw = dot(m_p, m_w);
    if (!(pw > 0.0)) {
      result.reason = std::isfinite(pw) ? FieldCGReason::Indefinite : FieldCGReason::NotFinite;
      return result;
    }
    const double alpha = beta / pw;
    combine(1.0, x, alpha, m_p, x);      // x += alpha p
    combine(1.0, m_r, -alpha, m_w, m_r); // r -= alpha A p
    precondition(m_r, m_z);
    result.residual = std::sqrt(dot(m_z, m_z));
    beta = dot(m_z, m_r);
    if (ends(beta))
      return result;
  }
  result.reason = FieldCGReason::MaxIterations;
  return result;
}

const char* describe(FieldCGReason reason) {
  switch (reason) {
  case FieldCGReason::Converged:
    return "converged";
  case FieldCGReason::MaxIterations:
    return "the iteration limit was reached";
  case FieldCGReason::Diverged:
    return "the initial residual exceeds dtol times the reference";
  case FieldCGReason::Indefinite:
    return "the operator or preconditioner is not positive definite";
  case FieldCGReason::NotFinite:
    return "a residual became NaN or infinite";
  }
  return "?";
}

} // namespace linear
} // namespace undertow
