#pragma once
/// \file
/// Point functions of isotropic linear elasticity on bilinear (2D) and trilinear (3D) Q1
/// elements of the structured grid: one element per cell, degrees of freedom at its 2^dim
/// vertices (Location::Node). Local node n sits at offset ((n >> a) & 1) along axis a, and local
/// degree of freedom r = dim * n + c is displacement component c of node n.
///
/// The stiffness of an element of Young's modulus E is E k0, where k0 is the stiffness of unit
/// modulus: every element of the grid has the same shape, so k0 is computed once (2 x 2 (x 2)
/// Gauss points, exact for Q1 on a box) and scaled per element, which is SIMP's E(rho) too:
///
///   k0[(n,c),(m,d)] = sum_q w_q det J [ lambda dN_n/dx_c dN_m/dx_d
///                                       + mu (delta_cd grad N_n . grad N_m + dN_n/dx_d dN_m/dx_c)
///                                       ]
///
/// with the Lamé parameters of E = 1. Plane stress replaces lambda by 2 lambda mu / (lambda + 2
/// mu).
///
/// The consistent mass of an element of mass density rho_m is rho_m m0 (unit_mass), also the same
/// for every element.
///
/// On a stretched (rectilinear) grid each element is a box of its own size h, and k0 depends on
/// it only through the factors 1/h_c of the shape gradients and the volume in det J:
///
///   k0(h) = V(h) sum_{a,b} S_ab / (h_a h_b),     m0(h) = V(h) m0(1),     V(h) = prod_a h_a,
///
/// where the parts S_ab (stiffness_part) are computed once for the unit box. An element's matrix
/// is then dim^2 weights times tables, as cheap to form in a kernel as to read.

#include <Kokkos_Core.hpp>
#include <cmath>

namespace undertow {
namespace elasticity {

/// Largest element matrix: 8 nodes x 3 components.
constexpr int kMaxElementDofs = 24;

/// Lamé parameters [Pa] per unit Young's modulus.
struct Lame {
  double lambda = 0;
  double mu = 0;
};

/// The Lamé parameters of E = 1 and Poisson ratio nu: 3D and plane strain use the 3D ones,
/// plane stress the reduced lambda. Not collective.
inline Lame unit_lame(double nu, int dim, bool plane_stress) {
  Lame l;
  l.mu = 1.0 / (2.0 * (1.0 + nu));
  l.lambda = nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  if (dim == 2 && plane_stress)
    l.lambda = 2.0 * l.lambda * l.mu / (l.lambda + 2.0 * l.mu);
  return l;
}

/// Offset (0 or 1) of local node n along `axis`.
KOKKOS_INLINE_FUNCTION int node_offset(int n, int axis) {
  return (n >> axis) & 1;
}

/// Number of nodes of a dim-D element.
KOKKOS_INLINE_FUNCTION int nodes_per_element(int dim) {
  return 1 << dim;
}

/// Q1 shape function of local node n at reference point xi in [-1, 1]^dim.
KOKKOS_INLINE_FUNCTION double shape(int dim, int n, const double xi[3]) {
  double v = 1.0;
  for (int a = 0; a < dim; ++a)
    v *= 0.5 * (1.0 + (node_offset(n, a) ? xi[a] : -xi[a]));
  return v;
}

/// dN_n/dx_axis at reference point xi, for an element of size h [m]: [1/m].
KOKKOS_INLINE_FUNCTION double shape_gradient(int dim, const double h[3], int n, int axis,
                                             const double xi[3]) {
  double g = 1.0;
  for (int a = 0; a < dim; ++a) {
    const double s = node_offset(n, a) ? 1.0 : -1.0;
    g *= (a == axis) ? s / h[a] : 0.5 * (1.0 + s * xi[a]);
  }
  return g;
}

/// The reference coordinates of Gauss point q (of 2^dim), +-1/sqrt(3) per axis.
KOKKOS_INLINE_FUNCTION void gauss_point(int dim, int q, double xi[3]) {
  const double g = 0.57735026918962576451; // 1 / sqrt(3)
  for (int a = 0; a < 3; ++a)
    xi[a] = a < dim ? (node_offset(q, a) ? g : -g) : 0.0;
}

/// Entry (r, s) of the unit-modulus element stiffness k0, r = dim n + c, s = dim m + d [N/m per
/// Pa of E, per unit thickness in 2D].
KOKKOS_INLINE_FUNCTION double unit_stiffness(int dim, const double h[3], const Lame& lame, int r,
                                             int s) {
  const int n = r / dim, c = r % dim, m = s / dim, d = s % dim;
  double det = 1.0; // Jacobian of the map from [-1, 1]^dim, times the Gauss weight 1
  for (int a = 0; a < dim; ++a)
    det *= 0.5 * h[a];
  double k = 0.0;
  for (int q = 0; q < nodes_per_element(dim); ++q) {
    double xi[3];
    gauss_point(dim, q, xi);
    double grad_n[3] = {0, 0, 0}, grad_m[3] = {0, 0, 0};
    for (int a = 0; a < dim; ++a) {
      grad_n[a] = shape_gradient(dim, h, n, a, xi);
      grad_m[a] = shape_gradient(dim, h, m, a, xi);
    }
    double dot = 0.0;
    for (int a = 0; a < dim; ++a)
      dot += grad_n[a] * grad_m[a];
    k += det * (lame.lambda * grad_n[c] * grad_m[d] +
                lame.mu * ((c == d ? dot : 0.0) + grad_n[d] * grad_m[c]));
  }
  return k;
}

/// Entry (r, s) of the part S_ab of the unit-modulus stiffness that scales as V / (h_a h_b) (see
/// the file's comment): unit_stiffness(dim, h, ...) = V(h) sum_{a,b} S_ab(r, s) / (h_a h_b), a and
/// b in [0, dim). Computed on the unit box [1/m^dim per Pa of E].
KOKKOS_INLINE_FUNCTION double stiffness_part(int dim, const Lame& lame, int a, int b, int r,
                                             int s) {
  const int n = r / dim, c = r % dim, m = s / dim, d = s % dim;
  const double unit[3] = {1.0, 1.0, 1.0};
  double k = 0.0;
  for (int q = 0; q < nodes_per_element(dim); ++q) {
    double xi[3];
    gauss_point(dim, q, xi);
    const double gn_a = shape_gradient(dim, unit, n, a, xi),
                 gm_b = shape_gradient(dim, unit, m, b, xi);
    // lambda dN_n/dx_c dN_m/dx_d scales as 1/(h_c h_d); mu dN_n/dx_d dN_m/dx_c as 1/(h_d h_c);
    // mu delta_cd dN_n/dx_a dN_m/dx_a as 1/h_a^2.
    if (a == c && b == d)
      k += lame.lambda * gn_a * gm_b;
    if (a == d && b == c)
      k += lame.mu * gn_a * gm_b;
    if (a == b && c == d)
      k += lame.mu * gn_a * gm_b;
  }
  return k / double(nodes_per_element(dim)); // det J of the unit box: 1 / 2^dim
}

/// Entry (r, s) of the unit-density consistent element mass m0, r = dim n + c, s = dim m + d:
/// delta_cd * integral of N_n N_m over the element [m^3, m^2 per unit thickness in 2D]. The
/// 2^dim Gauss points are exact (N_n N_m is quadratic along each axis).
KOKKOS_INLINE_FUNCTION double unit_mass(int dim, const double h[3], int r, int s) {
  if (r % dim != s % dim)
    return 0.0;
  const int n = r / dim, m = s / dim;
  double det = 1.0;
  for (int a = 0; a < dim; ++a)
    det *= 0.5 * h[a];
  double sum = 0.0;
  for (int q = 0; q < nodes_per_element(dim); ++q) {
    double xi[3];
    gauss_point(dim, q, xi);
    sum += det * shape(dim, n, xi) * shape(dim, m, xi);
  }
  return sum;
}

/// Small strain at the element centre from its nodal displacements u_e (dim * 2^dim values):
/// eps[a][b] = (du_a/dx_b + du_b/dx_a) / 2.
KOKKOS_INLINE_FUNCTION void centre_strain(int dim, const double h[3], const double* u_e,
                                          double eps[3][3]) {
  const double xi[3] = {0, 0, 0};
  double grad[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}; // grad[a][b] = du_a/dx_b
  for (int n = 0; n < nodes_per_element(dim); ++n)
    for (int b = 0; b < dim; ++b) {
      const double g = shape_gradient(dim, h, n, b, xi);
      for (int a = 0; a < dim; ++a)
        grad[a][b] += g * u_e[dim * n + a];
    }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      eps[a][b] = 0.5 * (grad[a][b] + grad[b][a]);
}

/// Cauchy stress [Pa] of strain eps for modulus E: sigma = E (lambda tr(eps) I + 2 mu eps). In
/// plane strain sigma_zz = E lambda tr(eps) follows; in plane stress it is 0 (lame.lambda is
/// already the reduced one).
KOKKOS_INLINE_FUNCTION void stress(int dim, bool plane_stress, const Lame& lame, double E,
                                   const double eps[3][3], double sigma[3][3]) {
  double trace = 0.0;
  for (int a = 0; a < dim; ++a)
    trace += eps[a][a];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      sigma[a][b] = E * ((a == b ? lame.lambda * trace : 0.0) + 2.0 * lame.mu * eps[a][b]);
  if (dim == 2)
    sigma[2][2] = plane_stress ? 0.0 : E * lame.lambda * trace;
}

/// Plane stress: the out-of-plane strain that sigma_zz = 0 implies,
/// eps_zz = -lambda* / (2 mu) (eps_xx + eps_yy), with the plane-stress lambda* of unit_lame.
KOKKOS_INLINE_FUNCTION double plane_stress_zz_strain(const Lame& lame, const double eps[3][3]) {
  return -lame.lambda / (2.0 * lame.mu) * (eps[0][0] + eps[1][1]);
}

/// Von Mises equivalent stress [Pa].
KOKKOS_INLINE_FUNCTION double von_mises(const double s[3][3]) {
  const double d01 = s[0][0] - s[1][1], d12 = s[1][1] - s[2][2], d20 = s[2][2] - s[0][0];
  return std::sqrt(0.5 * (d01 * d01 + d12 * d12 + d20 * d20) +
                   3.0 * (s[0][1] * s[0][1] + s[1][2] * s[1][2] + s[2][0] * s[2][0]));
}

/// SIMP: E(rho) = E_min + rho^p (E0 - E_min) [Pa], and its derivatives.
struct Simp {
  double E0 = 1.0;
  double E_min = 1e-9;
  double penal = 3.0;

  KOKKOS_INLINE_FUNCTION double modulus(double rho) const {
    return E_min + std::pow(rho, penal) * (E0 - E_min);
  }
  /// dE/drho
  KOKKOS_INLINE_FUNCTION double modulus_derivative(double rho) const {
    return penal * std::pow(rho, penal - 1.0) * (E0 - E_min);
  }
  /// dE/dE0
  KOKKOS_INLINE_FUNCTION double modulus_per_E0(double rho) const { return std::pow(rho, penal); }
};

} // namespace elasticity
} // namespace undertow
