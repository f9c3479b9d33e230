#pragma once
/// \file
/// Transposes of the Navier-Stokes point functions (solvers/navier_stokes/operators.hpp), in
/// scatter form: a point function f reads a few values x_s of its stencil; its transpose, given
/// the adjoint weight w of its output, adds w * df/dx_s into the adjoint array at every stencil
/// point s. Neighbouring outputs share stencil points, so the adds are atomic wherever kernels
/// run concurrently: the same code is correct with threads on CPUs and GPUs. The nonlinear
/// advection term is linearised at the velocity `v` of the forward state.

#include "undertow/solvers/navier_stokes/operators.hpp"

#include <type_traits>

namespace undertow {
namespace navier_stokes {

/// True where kernels run concurrently (threads, GPUs): scatter adds must then be atomic. The
/// Serial backend runs one iteration at a time, and a plain add gives the same sums without the
/// cost of an atomic (a compare-and-swap loop for doubles on x86).
#if defined(KOKKOS_ENABLE_SERIAL)
constexpr bool kConcurrentKernels = !std::is_same<ExecutionSpace, Kokkos::Serial>::value;
#else
constexpr bool kConcurrentKernels = true;
#endif

/// *p += value, atomically where kernels run concurrently.
KOKKOS_INLINE_FUNCTION void scatter_add(double* p, double value) {
  if constexpr (kConcurrentKernels)
    Kokkos::atomic_add(p, value);
  else
    *p += value;
}

/// f(i + s e_axis, j, k) += value (scatter_add).
KOKKOS_INLINE_FUNCTION void add_at(const FieldView& f, long i, long j, long k, int axis, long s,
                                   double value) {
  scatter_add(&f(i + (axis == 0 ? s : 0), j + (axis == 1 ? s : 0), k + (axis == 2 ? s : 0)), value);
}

/// f(i + s e_a + t e_b, j, k) += value (scatter_add).
KOKKOS_INLINE_FUNCTION void add_at2(const FieldView& f, long i, long j, long k, int a, long s,
                                    int b, long t, double value) {
  scatter_add(&f(i + (a == 0 ? s : 0) + (b == 0 ? t : 0), j + (a == 1 ? s : 0) + (b == 1 ? t : 0),
                 k + (a == 2 ? s : 0) + (b == 2 ? t : 0)),
              value);
}

/// Transpose of advection_term linearised at `v`: adds w times the derivative of
/// d(u_d u_c)/dx_d at face (i, j, k) with respect to each velocity value it reads into `lam`.
///   c = d:  T = (A^2 - B^2)/h, A = (u(x) + u(x+e_c))/2, B = (u(x-e_c) + u(x))/2
///   c != d: T = (U V - L M)/h, U, L: u_c averaged across the upper and lower edge, V, M: u_d
///           averaged along c at the same edges.
KOKKOS_INLINE_FUNCTION void advection_term_transpose(const Velocity& v, const Velocity& lam, int c,
                                                     int d, double inv_h, double w, long i, long j,
                                                     long k) {
  const FieldView& uc = v.u[c];
  const FieldView& lc = lam.u[c];
  const double s = w * inv_h;
  if (c == d) {
    const double above = 0.5 * (uc(i, j, k) + at(uc, i, j, k, c, 1));
    const double below = 0.5 * (at(uc, i, j, k, c, -1) + uc(i, j, k));
    add_at(lc, i, j, k, c, 0, s * (above - below));
    add_at(lc, i, j, k, c, 1, s * above);
    add_at(lc, i, j, k, c, -1, -s * below);
    return;
  }
  const FieldView& ud = v.u[d];
  const FieldView& ld = lam.u[d];
  const double U = 0.5 * (uc(i, j, k) + at(uc, i, j, k, d, 1));
  const double V = 0.5 * (at(ud, i, j, k, d, 1) + at2(ud, i, j, k, d, 1, c, -1));
  const double L = 0.5 * (at(uc, i, j, k, d, -1) + uc(i, j, k));
  const double M = 0.5 * (ud(i, j, k) + at(ud, i, j, k, c, -1));
  add_at(lc, i, j, k, d, 0, 0.5 * s * (V - M));
  add_at(lc, i, j, k, d, 1, 0.5 * s * V);
  add_at(lc, i, j, k, d, -1, -0.5 * s * M);
  add_at(ld, i, j, k, d, 1, 0.5 * s * U);
  add_at2(ld, i, j, k, d, 1, c, -1, 0.5 * s * U);
  add_at(ld, i, j, k, d, 0, -0.5 * s * L);
  add_at(ld, i, j, k, c, -1, -0.5 * s * L);
}

/// Transpose of diffusion_term: the 3-point stencil along d, symmetric on a uniform axis.
template <class S>
KOKKOS_INLINE_FUNCTION void diffusion_term_transpose(const FieldView& lc, int c, int d, const S& sp,
                                                     double w, long i, long j, long k) {
  const long g = along(d, i, j, k);
  if (sp.uniform(d)) {
    const double inv_h = sp.cell(d, g), inv_h2 = inv_h * inv_h;
    add_at(lc, i, j, k, d, 1, w * inv_h2);
    add_at(lc, i, j, k, d, 0, -2.0 * w * inv_h2);
    add_at(lc, i, j, k, d, -1, w * inv_h2);
    return;
  }
  // The weights of (up, down) in diffusion_term; `here` takes minus their sum.
  const double up = c == d ? sp.cell(d, g) * sp.link(d, g) : sp.link(d, g + 1) * sp.span(d, g);
  const double down = c == d ? sp.cell(d, g - 1) * sp.link(d, g) : sp.link(d, g) * sp.span(d, g);
  add_at(lc, i, j, k, d, 1, w * up);
  add_at(lc, i, j, k, d, 0, -w * (up + down));
  add_at(lc, i, j, k, d, -1, w * down);
}

/// The inverse width that advection_term divides by at face (i, j, k) of component c along d:
/// the control volume's, between the two cell centres along c, the cell's along d != c.
template <class S>
KOKKOS_INLINE_FUNCTION double advection_inv_width(int c, int d, const S& sp, long i, long j,
                                                  long k) {
  return c == d ? sp.link(c, along(c, i, j, k)) : sp.cell(d, along(d, i, j, k));
}

/// Transpose of momentum_tendency (pressure excluded) linearised at `v`, with
/// adjoint weight w at face (i, j, k) of component c.
template <class S>
KOKKOS_INLINE_FUNCTION void momentum_tendency_transpose(const Velocity& v, const Velocity& lam,
                                                        int c, int dim, const S& sp, double nu,
                                                        double w, long i, long j, long k) {
  for (int d = 0; d < dim; ++d) {
    advection_term_transpose(v, lam, c, d, advection_inv_width(c, d, sp, i, j, k), -w, i, j, k);
    diffusion_term_transpose(lam.u[c], c, d, sp, nu * w, i, j, k);
  }
}
KOKKOS_INLINE_FUNCTION void momentum_tendency_transpose(const Velocity& v, const Velocity& lam,
                                                        int c, int dim, const double inv_h[3],
                                                        double nu, double w, long i, long j,
                                                        long k) {
  momentum_tendency_transpose(v, lam, c, dim, UniformSpacing(inv_h), nu, w, i, j, k);
}

/// f at (i, j, k) moved by s along a and t along b; with `Guarded`, 0 outside the array (the
/// gather below reads one point beyond the ghost layer at its outermost targets, where the
/// adjoint is zero anyway).
template <bool Guarded>
KOKKOS_INLINE_FUNCTION double fetch(const FieldView& f, long i, long j, long k, int a, long s,
                                    int b, long t) {
  const long ii = i + (a == 0 ? s : 0) + (b == 0 ? t : 0);
  const long jj = j + (a == 1 ? s : 0) + (b == 1 ? t : 0);
  const long kk = k + (a == 2 ? s : 0) + (b == 2 ? t : 0);
  if (Guarded && (ii < 0 || jj < 0 || kk < 0 || ii >= static_cast<long>(f.extent(0)) ||
                  jj >= static_cast<long>(f.extent(1)) || kk >= static_cast<long>(f.extent(2))))
    return 0.0;
  return f(ii, jj, kk);
}

/// What the transposed stencil of diffusion_term along d on a stretched axis gathers at point
/// (i, j, k) of component c from the weights l: each neighbour's row weight of this point.
template <bool G, class S>
KOKKOS_INLINE_FUNCTION double stretched_diffusion_gather(const FieldView& l, int c, int d,
                                                         const S& sp, long i, long j, long k) {
  const long y = along(d, i, j, k);
  const double below = fetch<G>(l, i, j, k, d, -1, d, 0), here = fetch<G>(l, i, j, k, d, 0, d, 0),
               above = fetch<G>(l, i, j, k, d, 1, d, 0);
  if (c == d)
    return below * sp.cell(d, y - 1) * sp.link(d, y - 1) -
           here * (sp.cell(d, y) + sp.cell(d, y - 1)) * sp.link(d, y) +
           above * sp.cell(d, y) * sp.link(d, y + 1);
  return below * sp.link(d, y) * sp.span(d, y - 1) -
         here * (sp.link(d, y + 1) + sp.link(d, y)) * sp.span(d, y) +
         above * sp.link(d, y + 1) * sp.span(d, y + 1);
}

/// Gather form of momentum_tendency_transpose: the value that the scatter, run over every face
/// of every component with weights w_c = dt lambda_e_c (zero off the free faces), adds at face
/// (i, j, k) of component T. Each target sums what its neighbours' stencils give it, so no two
/// threads write the same point: no atomics, and one write per point instead of about 16 adds.
/// Derived term by term from advection_term_transpose and diffusion_term_transpose (see
/// docs/adjoint.md); the dot-product tests hold it to the scatter form. Each source's stencil
/// carries the inverse width of its own control volume (advection_inv_width), the same number
/// at every source on a uniform grid.
template <int T, int Dim, bool G, class S>
KOKKOS_INLINE_FUNCTION double momentum_tendency_gather(const Velocity& v, const Velocity& lambda_e,
                                                       const S& spacing, double nu, double dt,
                                                       long i, long j, long k) {
  double sum = 0;
  const FieldView& ut = v.u[T];
  const FieldView& lt = lambda_e.u[T];
  for (int d = 0; d < Dim; ++d) {
    // Advection of u_T along d (source component T): s = -dt lambda_e_T / h_d, h_d the source
    // face's control width along d.
    const long y = along(d, i, j, k);
    const double q = -dt * (d == T ? spacing.link(d, y) : spacing.cell(d, y));
    const double qp = -dt * (d == T ? spacing.link(d, y + 1) : spacing.cell(d, y + 1));
    const double qm = -dt * (d == T ? spacing.link(d, y - 1) : spacing.cell(d, y - 1));
    const double s0 = q * fetch<G>(lt, i, j, k, d, 0, d, 0);
    const double sp = qp * fetch<G>(lt, i, j, k, d, 1, d, 0);
    const double sm = qm * fetch<G>(lt, i, j, k, d, -1, d, 0);
    if (d == T) {
      const double A =
          0.5 * (fetch<G>(ut, i, j, k, T, 0, T, 0) + fetch<G>(ut, i, j, k, T, 1, T, 0));
      const double B =
          0.5 * (fetch<G>(ut, i, j, k, T, -1, T, 0) + fetch<G>(ut, i, j, k, T, 0, T, 0));
      sum += A * (s0 - sp) + B * (sm - s0);
    } else {
      const FieldView& ud = v.u[d];
      const double V =
          0.5 * (fetch<G>(ud, i, j, k, d, 1, T, 0) + fetch<G>(ud, i, j, k, d, 1, T, -1));
      const double M =
          0.5 * (fetch<G>(ud, i, j, k, d, 0, T, 0) + fetch<G>(ud, i, j, k, T, -1, d, 0));
      sum += 0.5 * (V * (s0 - sp) + M * (sm - s0));
      // u_T as the advecting velocity of component c = d along T: s = -dt lambda_e_d / h_T,
      // h_T the width of the source's cell along T.
      const FieldView& ld = lambda_e.u[d];
      const long t = along(T, i, j, k);
      const double r0 = -dt * spacing.cell(T, t - 1), r1 = -dt * spacing.cell(T, t);
      const double a0 = r0 * fetch<G>(ld, i, j, k, T, -1, T, 0); // s(y - e_T)
      const double a1 = r1 * fetch<G>(ld, i, j, k, T, 0, T, 0);  // s(y)
      const double b0 = r0 * fetch<G>(ld, i, j, k, T, -1, d, 1); // s(y - e_T + e_d)
      const double b1 = r1 * fetch<G>(ld, i, j, k, d, 1, d, 0);  // s(y + e_d)
      const double U0 =
          0.5 * (fetch<G>(ud, i, j, k, T, -1, T, 0) + fetch<G>(ud, i, j, k, T, 0, T, 0));
      const double U1 =
          0.5 * (fetch<G>(ud, i, j, k, T, -1, d, 1) + fetch<G>(ud, i, j, k, d, 1, T, 0));
      sum += 0.5 * ((a0 - a1) * U0 + (b0 - b1) * U1);
    }
    // Diffusion: the symmetric stencil on a uniform axis.
    if (spacing.uniform(d)) {
      const double inv_h = spacing.cell(d, y);
      sum += nu * dt * inv_h * inv_h * (sp + sm - 2.0 * s0) / q;
    } else {
      sum += nu * dt * stretched_diffusion_gather<G>(lt, T, d, spacing, i, j, k);
    }
  }
  return sum;
}
template <int T, int Dim, bool G>
KOKKOS_INLINE_FUNCTION double momentum_tendency_gather(const Velocity& v, const Velocity& lambda_e,
                                                       const double inv_h[3], double nu, double dt,
                                                       long i, long j, long k) {
  return momentum_tendency_gather<T, Dim, G>(v, lambda_e, UniformSpacing(inv_h), nu, dt, i, j, k);
}

/// Transpose of edge_vorticity (component a at the lower corner of (i, j, k)).
template <class S>
KOKKOS_INLINE_FUNCTION void edge_vorticity_transpose(const Velocity& lam, int a, const S& sp,
                                                     double w, long i, long j, long k) {
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  const double ib = sp.link(b, along(b, i, j, k)), ic = sp.link(c, along(c, i, j, k));
  add_at(lam.u[c], i, j, k, b, 0, w * ib);
  add_at(lam.u[c], i, j, k, b, -1, -w * ib);
  add_at(lam.u[b], i, j, k, c, 0, -w * ic);
  add_at(lam.u[b], i, j, k, c, -1, w * ic);
}
KOKKOS_INLINE_FUNCTION void edge_vorticity_transpose(const Velocity& lam, int a,
                                                     const double inv_h[3], double w, long i,
                                                     long j, long k) {
  edge_vorticity_transpose(lam, a, UniformSpacing(inv_h), w, i, j, k);
}

/// Gather form of edge_vorticity_transpose run over cells with weights w.u[a] (the adjoint of
/// omega_a at each cell's lower corner, zero where not summed; components a that are not
/// summed have empty views): what it adds at face (i, j, k) of component T. u_T enters
/// omega_a as the c of a = T + 1 and as the b of a = T + 2 (cyclic), each through the edge at
/// the face and the edge one cell above it across. No two targets share a write: deterministic
/// on every backend.
template <class S>
KOKKOS_INLINE_FUNCTION double edge_vorticity_gather(const Velocity& w, int T, const S& sp, long i,
                                                    long j, long k) {
  double sum = 0;
  const int a1 = (T + 1) % 3, b1 = (T + 2) % 3; // u_T is the c of omega_a1, differenced along b1
  if (w.u[a1].data()) {
    const long y = along(b1, i, j, k);
    sum += fetch<true>(w.u[a1], i, j, k, b1, 0, b1, 0) * sp.link(b1, y) -
           fetch<true>(w.u[a1], i, j, k, b1, 1, b1, 0) * sp.link(b1, y + 1);
  }
  const int a2 = (T + 2) % 3, c2 = (T + 1) % 3; // u_T is the b of omega_a2, differenced along c2
  if (w.u[a2].data()) {
    const long y = along(c2, i, j, k);
    sum += fetch<true>(w.u[a2], i, j, k, c2, 1, c2, 0) * sp.link(c2, y + 1) -
           fetch<true>(w.u[a2], i, j, k, c2, 0, c2, 0) * sp.link(c2, y);
  }
  return sum;
}

/// Transpose of design_on_face: w / 2 to each of the face's two cells.
KOKKOS_INLINE_FUNCTION void design_on_face_transpose(const FieldView& lrho, int c, double w, long i,
                                                     long j, long k) {
  add_at(lrho, i, j, k, c, 0, 0.5 * w);
  add_at(lrho, i, j, k, c, -1, 0.5 * w);
}

/// Gather form of design_on_face_transpose run over the faces [lo, hi) along c (all of the other
/// axes' range) with w = a b: what it adds at cell (i, j, k), in the Serial scatter's order
/// (face q, then face q + e_c). Bitwise the scatter's on Serial, with no atomics.
KOKKOS_INLINE_FUNCTION void design_on_face_gather(const FieldView& lrho, const FieldView& a,
                                                  const FieldView& b, int c, long lo, long hi,
                                                  long i, long j, long k) {
  const long q = c == 0 ? i : c == 1 ? j : k;
  if (q >= lo && q < hi)
    lrho(i, j, k) += 0.5 * (a(i, j, k) * b(i, j, k));
  if (q + 1 >= lo && q + 1 < hi) {
    const long ii = i + (c == 0), jj = j + (c == 1), kk = k + (c == 2);
    lrho(i, j, k) += 0.5 * (a(ii, jj, kk) * b(ii, jj, kk));
  }
}

} // namespace navier_stokes
} // namespace undertow
