#pragma once
/// \file
/// Point functions of the incompressible Navier-Stokes equations on the staggered (MAC) grid:
/// u_c lives on the faces normal to axis c, the pressure at cell centres. With equal ghost widths
/// the face with local index x is the lower face of the cell with index x, so
///
///   cell-centre value of u_c below/above face x:  (u_c(x - e_c) + u_c(x)) / 2,  (u_c(x) + u_c(x +
///   e_c)) / 2 edge between faces x and x + e_d (d != c):     u_c at (u_c(x) + u_c(x + e_d)) / 2,
///                                                  u_d at (u_d(x + e_d - e_c) + u_d(x + e_d)) / 2
///
/// Advection is in divergence form with central interpolation (second order, and kinetic-energy
/// conserving for a divergence-free field); diffusion is the central 2(dim)+1-point Laplacian.
/// Every function is linear or quadratic in the velocity, with fixed stencils: its derivative and
/// transpose can be written down point by point, as the adjoint will need.
///
/// The spacing S is UniformSpacing or GridSpacing (grid_spacing.hpp). On a stretched axis the
/// operators are finite volumes: differences divided by the distance between the values, fluxes
/// by the control volume's width, and the interpolations stay plain means (conservative, and
/// second order where neighbouring widths differ by O(h)). On a uniform axis the arithmetic is
/// the uniform grid's, bit for bit. The overloads taking `const double inv_h[3]` are the uniform
/// grid's.

#include "undertow/core/field.hpp"
#include "undertow/core/grid_spacing.hpp"

#include <array>

namespace undertow {
namespace navier_stokes {

/// The velocity components as views (component c on faces normal to axis c; unused ones empty).
struct Velocity {
  FieldView u[3];
};

/// The views of a velocity triple (sharing its storage). Not collective.
inline Velocity velocity_views(const std::array<Field, 3>& u) {
  Velocity v;
  for (int c = 0; c < 3; ++c)
    v.u[c] = u[c].view();
  return v;
}

/// Value of `f` at (i, j, k) moved by `s` cells along `axis`.
KOKKOS_INLINE_FUNCTION double at(const FieldView& f, long i, long j, long k, int axis, long s) {
  return f(i + (axis == 0 ? s : 0), j + (axis == 1 ? s : 0), k + (axis == 2 ? s : 0));
}

/// Value of `f` at (i, j, k) moved by `s` along `a` and `t` along `b`.
KOKKOS_INLINE_FUNCTION double at2(const FieldView& f, long i, long j, long k, int a, long s, int b,
                                  long t) {
  return f(i + (a == 0 ? s : 0) + (b == 0 ? t : 0), j + (a == 1 ? s : 0) + (b == 1 ? t : 0),
           k + (a == 2 ? s : 0) + (b == 2 ? t : 0));
}

/// Local index of (i, j, k) along axis a.
KOKKOS_INLINE_FUNCTION long along(int a, long i, long j, long k) {
  return a == 0 ? i : (a == 1 ? j : k);
}

/// Advective flux of momentum c through direction d: the divergence d(u_d u_c)/dx_d at face
/// (i, j, k) of component c, central differences on the MAC grid.
template <class S>
KOKKOS_INLINE_FUNCTION double advection_term(const Velocity& v, int c, int d, const S& sp, long i,
                                             long j, long k) {
  // The control volume of u_c: between the two cell centres along c, the cell along d != c.
  const double inv_h = c == d ? sp.link(c, along(c, i, j, k)) : sp.cell(d, along(d, i, j, k));
  const FieldView& uc = v.u[c];
  if (c == d) {
    const double above = 0.5 * (uc(i, j, k) + at(uc, i, j, k, c, 1));
    const double below = 0.5 * (at(uc, i, j, k, c, -1) + uc(i, j, k));
    return (above * above - below * below) * inv_h;
  }
  const FieldView& ud = v.u[d];
  const double upper = 0.5 * (uc(i, j, k) + at(uc, i, j, k, d, 1)) * 0.5 *
                       (at(ud, i, j, k, d, 1) + at2(ud, i, j, k, d, 1, c, -1));
  const double lower =
      0.5 * (at(uc, i, j, k, d, -1) + uc(i, j, k)) * 0.5 * (ud(i, j, k) + at(ud, i, j, k, c, -1));
  return (upper - lower) * inv_h;
}

/// Second difference of u_c (component c) along d at (i, j, k): (u(+e_d) - 2u + u(-e_d)) / h_d^2
/// on a uniform axis; on a stretched one the difference of the two one-sided derivatives, each
/// the difference over the distance between its values, over half the distance between the
/// outer two: exact for quadratics (a channel's parabola), where dividing by the cell's width
/// instead (the finite-volume form) is not.
template <class S>
KOKKOS_INLINE_FUNCTION double diffusion_term(const FieldView& uc, int c, int d, const S& sp, long i,
                                             long j, long k) {
  const double up = at(uc, i, j, k, d, 1), here = uc(i, j, k), down = at(uc, i, j, k, d, -1);
  const long g = along(d, i, j, k);
  if (sp.uniform(d)) {
    const double inv_h = sp.cell(d, g);
    return (up - 2.0 * here + down) * (inv_h * inv_h);
  }
  if (c == d) // u_c on the faces along c: values a cell width apart
    return ((up - here) * sp.cell(d, g) - (here - down) * sp.cell(d, g - 1)) * sp.link(d, g);
  return ((up - here) * sp.link(d, g + 1) - (here - down) * sp.link(d, g)) * sp.span(d, g);
}

/// Momentum tendency of component c at face (i, j, k), pressure excluded:
/// -div(u u_c) + nu lap u_c + force_c.
template <class S>
KOKKOS_INLINE_FUNCTION double momentum_tendency(const Velocity& v, int c, int dim, const S& sp,
                                                double nu, double force, long i, long j, long k) {
  double r = force;
  // Unrolled, so that each direction's offsets and spacing are constants: in 3D GCC otherwise
  // keeps the loop and its branches on d, and cannot vectorise the kernel.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#pragma GCC unroll 3
#endif
  for (int d = 0; d < dim; ++d)
    r += -advection_term(v, c, d, sp, i, j, k) + nu * diffusion_term(v.u[c], c, d, sp, i, j, k);
  return r;
}
KOKKOS_INLINE_FUNCTION double momentum_tendency(const Velocity& v, int c, int dim,
                                                const double inv_h[3], double nu, double force,
                                                long i, long j, long k) {
  return momentum_tendency(v, c, dim, UniformSpacing(inv_h), nu, force, i, j, k);
}

/// The viscous part of the tendency, sum_d lap_d u_c: its product with the adjoint is dJ/dnu.
template <class S>
KOKKOS_INLINE_FUNCTION double laplacian(const Velocity& v, int c, int dim, const S& sp, long i,
                                        long j, long k) {
  double r = 0;
  for (int d = 0; d < dim; ++d)
    r += diffusion_term(v.u[c], c, d, sp, i, j, k);
  return r;
}
KOKKOS_INLINE_FUNCTION double laplacian(const Velocity& v, int c, int dim, const double inv_h[3],
                                        long i, long j, long k) {
  return laplacian(v, c, dim, UniformSpacing(inv_h), i, j, k);
}

/// The advective part of the momentum tendency of component c at face (i, j, k): -div(u u_c).
template <class S>
KOKKOS_INLINE_FUNCTION double advective_tendency(const Velocity& v, int c, int dim, const S& sp,
                                                 long i, long j, long k) {
  double r = 0;
  for (int d = 0; d < dim; ++d)
    r -= advection_term(v, c, d, sp, i, j, k);
  return r;
}
KOKKOS_INLINE_FUNCTION double advective_tendency(const Velocity& v, int c, int dim,
                                                 const double inv_h[3], long i, long j, long k) {
  return advective_tendency(v, c, dim, UniformSpacing(inv_h), i, j, k);
}

/// Discrete divergence of the velocity in cell (i, j, k).
template <class S>
KOKKOS_INLINE_FUNCTION double divergence(const Velocity& v, int dim, const S& sp, long i, long j,
                                         long k) {
  double div = 0;
  for (int d = 0; d < dim; ++d)
    div += (at(v.u[d], i, j, k, d, 1) - v.u[d](i, j, k)) * sp.cell(d, along(d, i, j, k));
  return div;
}
KOKKOS_INLINE_FUNCTION double divergence(const Velocity& v, int dim, const double inv_h[3], long i,
                                         long j, long k) {
  return divergence(v, dim, UniformSpacing(inv_h), i, j, k);
}

/// Vorticity component a on the edge along axis a at the lower corner of cell (i, j, k):
/// d u_c / d x_b - d u_b / d x_c with (a, b, c) cyclic. In 2D only a = 2 (omega_z) exists.
template <class S>
KOKKOS_INLINE_FUNCTION double edge_vorticity(const Velocity& v, int a, const S& sp, long i, long j,
                                             long k) {
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  return (v.u[c](i, j, k) - at(v.u[c], i, j, k, b, -1)) * sp.link(b, along(b, i, j, k)) -
         (v.u[b](i, j, k) - at(v.u[b], i, j, k, c, -1)) * sp.link(c, along(c, i, j, k));
}
KOKKOS_INLINE_FUNCTION double edge_vorticity(const Velocity& v, int a, const double inv_h[3],
                                             long i, long j, long k) {
  return edge_vorticity(v, a, UniformSpacing(inv_h), i, j, k);
}

/// Vorticity component a at the centre of cell (i, j, k): the mean of the four edge values
/// around the cell (edges at the cell's lower and upper sides along b and c).
template <class S>
KOKKOS_INLINE_FUNCTION double cell_centre_vorticity(const Velocity& v, int a, const S& sp, long i,
                                                    long j, long k) {
  const int b = (a + 1) % 3, c = (a + 2) % 3;
  double sum = 0.0;
  for (int sb = 0; sb < 2; ++sb)
    for (int sc = 0; sc < 2; ++sc) {
      const long ii = i + (b == 0 ? sb : 0) + (c == 0 ? sc : 0);
      const long jj = j + (b == 1 ? sb : 0) + (c == 1 ? sc : 0);
      const long kk = k + (b == 2 ? sb : 0) + (c == 2 ? sc : 0);
      sum += edge_vorticity(v, a, sp, ii, jj, kk);
    }
  return 0.25 * sum;
}
KOKKOS_INLINE_FUNCTION double cell_centre_vorticity(const Velocity& v, int a, const double inv_h[3],
                                                    long i, long j, long k) {
  return cell_centre_vorticity(v, a, UniformSpacing(inv_h), i, j, k);
}

/// Velocity gradient d u_c / d x_b at the centre of cell (i, j, k): along its own axis the
/// difference of the cell's two faces; across, the mean of the four edge differences around the
/// cell (the stencil of cell_centre_vorticity).
template <class S>
KOKKOS_INLINE_FUNCTION double cell_centre_gradient(const Velocity& v, int c, int b, const S& sp,
                                                   long i, long j, long k) {
  if (b == c)
    return (at(v.u[c], i, j, k, c, 1) - v.u[c](i, j, k)) * sp.cell(c, along(c, i, j, k));
  double sum = 0.0;
  for (int sb = 0; sb < 2; ++sb)
    for (int sc = 0; sc < 2; ++sc) {
      const long ii = i + (b == 0 ? sb : 0) + (c == 0 ? sc : 0);
      const long jj = j + (b == 1 ? sb : 0) + (c == 1 ? sc : 0);
      const long kk = k + (b == 2 ? sb : 0) + (c == 2 ? sc : 0);
      sum +=
          (v.u[c](ii, jj, kk) - at(v.u[c], ii, jj, kk, b, -1)) * sp.link(b, along(b, ii, jj, kk));
    }
  return 0.25 * sum;
}
KOKKOS_INLINE_FUNCTION double cell_centre_gradient(const Velocity& v, int c, int b,
                                                   const double inv_h[3], long i, long j, long k) {
  return cell_centre_gradient(v, c, b, UniformSpacing(inv_h), i, j, k);
}

/// The Q-criterion (|Omega|^2 - |S|^2) / 2 = -(d u_c/d x_b)(d u_b/d x_c) / 2 at the centre of
/// cell (i, j, k) of a 3D flow [1/s^2]: positive where rotation dominates strain (vortex cores).
template <class S>
KOKKOS_INLINE_FUNCTION double cell_centre_q_criterion(const Velocity& v, const S& sp, long i,
                                                      long j, long k) {
  double g[3][3];
  for (int c = 0; c < 3; ++c)
    for (int b = 0; b < 3; ++b)
      g[c][b] = cell_centre_gradient(v, c, b, sp, i, j, k);
  double q = 0.0;
  for (int c = 0; c < 3; ++c)
    for (int b = 0; b < 3; ++b)
      q -= 0.5 * g[c][b] * g[b][c];
  return q;
}
KOKKOS_INLINE_FUNCTION double cell_centre_q_criterion(const Velocity& v, const double inv_h[3],
                                                      long i, long j, long k) {
  return cell_centre_q_criterion(v, UniformSpacing(inv_h), i, j, k);
}

/// Gradient of a cell-centred field along c at face (i, j, k): (p(x) - p(x - e_c)) / h_c, h_c the
/// distance between the two cell centres.
KOKKOS_INLINE_FUNCTION double face_gradient(const FieldView& p, int c, double inv_h, long i, long j,
                                            long k) {
  return (p(i, j, k) - at(p, i, j, k, c, -1)) * inv_h;
}
template <class S>
KOKKOS_INLINE_FUNCTION double face_gradient(const FieldView& p, int c, const S& sp, long i, long j,
                                            long k) {
  return face_gradient(p, c, sp.link(c, along(c, i, j, k)), i, j, k);
}

/// A cell field on face (i, j, k) of component c: the mean of the cells below and above it
/// (cell x - e_c and cell x).
KOKKOS_INLINE_FUNCTION double design_on_face(const FieldView& rho, int c, long i, long j, long k) {
  return 0.5 * (at(rho, i, j, k, c, -1) + rho(i, j, k));
}

/// Tangential ghost for a no-slip wall moving at `wall`: quadratic extrapolation through the wall
/// value and the first two interior values, exact for the parabolic profiles of channel flows.
KOKKOS_INLINE_FUNCTION double no_slip_ghost(double wall, double first, double second) {
  return (8.0 * wall - 6.0 * first + second) / 3.0;
}

} // namespace navier_stokes
} // namespace undertow
