#include "undertow/solvers/elasticity/assembler.hpp"

#include "node_kernels.hpp"

namespace undertow {
namespace elasticity {

using namespace detail;

namespace {

// Kernels live in free functions: CUDA's extended lambdas may not sit in constructors or in
// private member functions.

void compute_unit_matrices(int dim, const double h_in[3], const Lame& lame,
                           const Kokkos::View<double*, MemorySpace>& k0,
                           const Kokkos::View<double*, MemorySpace>& m0) {
  const int nd = dim * nodes_per_element(dim);
  const double h[3] = {h_in[0], h_in[1], h_in[2]};
  Kokkos::parallel_for(
      "elasticity::unit_element_matrices", Kokkos::RangePolicy<ExecutionSpace>(0, nd * nd),
      KOKKOS_LAMBDA(int t) {
        k0(t) = unit_stiffness(dim, h, lame, t / nd, t % nd);
        m0(t) = unit_mass(dim, h, t / nd, t % nd);
      });
}

/// The parts S_ab of the unit box's stiffness, part p = a dim + b at [p nd^2 + r nd + s].
void compute_stiffness_parts(int dim, const Lame& lame,
                             const Kokkos::View<double*, MemorySpace>& parts) {
  const int nd = dim * nodes_per_element(dim), nd2 = nd * nd;
  Kokkos::parallel_for(
      "elasticity::stiffness_parts", Kokkos::RangePolicy<ExecutionSpace>(0, dim * dim * nd2),
      KOKKOS_LAMBDA(int t) {
        const int p = t / nd2, e = t % nd2;
        parts(t) = stiffness_part(dim, lame, p / dim, p % dim, e / nd, e % nd);
      });
}

/// The element matrices of a uniform grid: every element has k0 and m0, and the size h.
struct UniformElements {
  Kokkos::View<const double*, MemorySpace> k0, m0;
  double h[3];
  struct Shape {};
  KOKKOS_INLINE_FUNCTION Shape shape(long, long, long) const { return {}; }
  KOKKOS_INLINE_FUNCTION double stiffness(const Shape&, int t) const { return k0(t); }
  KOKKOS_INLINE_FUNCTION double mass(const Shape&, int t) const { return m0(t); }
  KOKKOS_INLINE_FUNCTION void size(long, long, long, double out[3]) const {
    for (int a = 0; a < 3; ++a)
      out[a] = h[a];
  }
};

/// The element matrices of a stretched grid, formed per element from its size (the cell widths
/// of the density's geometry): k0(h) = V sum_ab S_ab / (h_a h_b), m0(h) = V m0(1).
struct StretchedElements {
  Kokkos::View<const double*, MemorySpace> parts, unit_mass;
  GridGeometry cells;
  int dim, nd2;
  struct Shape {
    double weight[9]; ///< V / (h_a h_b) at a dim + b
    double volume;
  };
  KOKKOS_INLINE_FUNCTION void size(long i, long j, long k, double out[3]) const {
    const long local[3] = {i, j, k};
    for (int a = 0; a < 3; ++a)
      out[a] = a < dim ? cells.control_width(a, local[a]) : 1.0;
  }
  KOKKOS_INLINE_FUNCTION Shape shape(long i, long j, long k) const {
    double h[3];
    size(i, j, k, h);
    Shape e;
    e.volume = h[0] * h[1] * h[2];
    for (int a = 0; a < dim; ++a)
      for (int b = 0; b < dim; ++b)
        e.weight[a * dim + b] = e.volume / (h[a] * h[b]);
    return e;
  }
  KOKKOS_INLINE_FUNCTION double stiffness(const Shape& e, int t) const {
    double k = 0.0;
    for (int p = 0; p < dim * dim; ++p)
      k += e.weight[p] * parts(p * nd2 + t);
    return k;
  }
  KOKKOS_INLINE_FUNCTION double mass(const Shape& e, int t) const {
    return e.volume * unit_mass(t);
  }
};

/// COO row and column indices of every entry of every owned element, element by element: row
/// dim N + c for component c of the element node whose global number is N.
void element_pattern(const Field& density, const GlobalNodeNumbers& id, int dim,
                     const Assembler::Indices& rows, const Assembler::Indices& cols) {
  const KernelBox cells(density.owned());
  const long o[3] = {density.layout().global_offset[0], density.layout().global_offset[1],
                     density.layout().global_offset[2]};
  const int nd = dim * nodes_per_element(dim);
  for_each(
      "elasticity::coo_pattern", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long e = cells.packed(i, j, k);
        long dof[kMaxElementDofs];
        for (int r = 0; r < nd; ++r) {
          const int n = r / dim;
          dof[r] = dim * id.at_global(i + o[0] + node_offset(n, 0), j + o[1] + node_offset(n, 1),
                                      k + o[2] + node_offset(n, 2)) +
                   r % dim;
        }
        for (int r = 0; r < nd; ++r)
          for (int s = 0; s < nd; ++s) {
            rows(e * nd * nd + r * nd + s) = static_cast<PetscInt>(dof[r]);
            cols(e * nd * nd + r * nd + s) = static_cast<PetscInt>(dof[s]);
          }
      });
}

/// COO values: a E(rho_e) k_e + b m_e for every owned element (b: mass weight times density).
template <class Elements>
void element_values(const Field& density, const Simp& simp, int dim, double a, double b,
                    const Elements& el, const Kokkos::View<PetscScalar*, MemorySpace>& values) {
  const FieldView rho = density.view();
  const KernelBox cells(density.owned());
  const int nd2 = dim * nodes_per_element(dim) * dim * nodes_per_element(dim);
  for_each(
      "elasticity::coo_values", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        const long e = cells.packed(i, j, k);
        const double aE = a * simp.modulus(rho(i, j, k));
        const typename Elements::Shape shape = el.shape(i, j, k);
        for (int t = 0; t < nd2; ++t)
          values(e * nd2 + t) = aE * el.stiffness(shape, t) + b * el.mass(shape, t);
      });
}

/// Row r of the stiffness (mass: `mass` true) of one element times an element vector.
template <class Elements>
KOKKOS_INLINE_FUNCTION double matrix_row(const Elements& el, const typename Elements::Shape& shape,
                                         bool mass, int nd, int r, const double* x) {
  double row = 0.0;
  for (int s = 0; s < nd; ++s)
    row += (mass ? el.mass(shape, r * nd + s) : el.stiffness(shape, r * nd + s)) * x[s];
  return row;
}

/// out_e = a_e^T k_e b_e over the owned elements.
template <class Elements>
void element_products(const Field& density, const NodeViews& a, const NodeViews& b,
                      const IndexShift t, int dim, const Elements& el, Field& out_field) {
  const FieldView out = out_field.view();
  const int nd = dim * nodes_per_element(dim);
  for_each(
      "elasticity::element_energy", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double ae[kMaxElementDofs], be[kMaxElementDofs];
        gather_element(a, dim, i + t.s[0], j + t.s[1], k + t.s[2], ae);
        gather_element(b, dim, i + t.s[0], j + t.s[1], k + t.s[2], be);
        const typename Elements::Shape shape = el.shape(i, j, k);
        double sum = 0.0;
        for (int r = 0; r < nd; ++r)
          sum += ae[r] * matrix_row(el, shape, false, nd, r, be);
        out(i, j, k) = sum;
      });
}

/// y_e += E_e k_e xk_e + rho_m m_e xm_e, added into the (ghosted) node fields of y; a term whose
/// input is absent (has_stiffness or has_mass false) is left out.
template <class Elements>
void element_apply(const Field& density, const Simp& simp, double mass_density, bool has_stiffness,
                   const NodeViews& xk, bool has_mass, const NodeViews& xm, const NodeViews& y,
                   const IndexShift t, int dim, const Elements& el) {
  const FieldView rho = density.view();
  const int nd = dim * nodes_per_element(dim);
  for_each(
      "elasticity::apply_operator", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double ke[kMaxElementDofs], me[kMaxElementDofs], ye[kMaxElementDofs];
        if (has_stiffness)
          gather_element(xk, dim, i + t.s[0], j + t.s[1], k + t.s[2], ke);
        if (has_mass)
          gather_element(xm, dim, i + t.s[0], j + t.s[1], k + t.s[2], me);
        const double E = has_stiffness ? simp.modulus(rho(i, j, k)) : 0.0;
        const typename Elements::Shape shape = el.shape(i, j, k);
        for (int r = 0; r < nd; ++r)
          ye[r] = (has_stiffness ? E * matrix_row(el, shape, false, nd, r, ke) : 0.0) +
                  (has_mass ? mass_density * matrix_row(el, shape, true, nd, r, me) : 0.0);
        scatter_element(y, dim, i + t.s[0], j + t.s[1], k + t.s[2], ye);
      });
}

/// Element-centre strain components and von Mises stress of the owned elements.
template <class Elements>
void centre_strain_stress(const Field& density, const Simp& simp, const Lame& lame,
                          bool plane_stress, const NodeViews& u, const IndexShift t, int dim,
                          const Elements& el, std::array<Field, 6>& strain,
                          std::array<Field, 6>& stress_out, Field& vm) {
  const FieldView rho = density.view(), out_vm = vm.view();
  const FieldView e0 = strain[0].view(), e1 = strain[1].view(), e2 = strain[2].view(),
                  e3 = strain[3].view(), e4 = strain[4].view(), e5 = strain[5].view();
  const FieldView s0 = stress_out[0].view(), s1 = stress_out[1].view(), s2 = stress_out[2].view(),
                  s3 = stress_out[3].view(), s4 = stress_out[4].view(), s5 = stress_out[5].view();
  for_each(
      "elasticity::strain_stress", density.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        double ue[kMaxElementDofs], h[3];
        gather_element(u, dim, i + t.s[0], j + t.s[1], k + t.s[2], ue);
        el.size(i, j, k, h);
        double eps[3][3], sigma[3][3];
        centre_strain(dim, h, ue, eps);
        stress(dim, plane_stress, lame, simp.modulus(rho(i, j, k)), eps, sigma);
        if (dim == 2 && plane_stress)
          eps[2][2] = plane_stress_zz_strain(lame, eps);
        e0(i, j, k) = eps[0][0];
        e1(i, j, k) = eps[1][1];
        e2(i, j, k) = eps[2][2];
        e3(i, j, k) = eps[0][1];
        e4(i, j, k) = eps[1][2];
        e5(i, j, k) = eps[2][0];
        s0(i, j, k) = sigma[0][0];
        s1(i, j, k) = sigma[1][1];
        s2(i, j, k) = sigma[2][2];
        s3(i, j, k) = sigma[0][1];
        s4(i, j, k) = sigma[1][2];
        s5(i, j, k) = sigma[2][0];
        out_vm(i, j, k) = von_mises(sigma);
      });
}

} // namespace

Assembler::Assembler(const Domain& domain, const Lame& lame)
    : m_dim(domain.dim()), m_nd(domain.dim() * nodes_per_element(domain.dim())),
      m_uniform(domain.all_uniform()), m_lame(lame), m_k0("elasticity::k0", m_nd * m_nd),
      m_m0("elasticity::m0", m_nd * m_nd) {
  for (int a = 0; a < 3; ++a)
    m_h[a] = m_uniform ? domain.spacing(a) : 1.0;
  // On a stretched grid k0 and m0 are those of the unit box, and the stiffness's parts are kept.
  compute_unit_matrices(m_dim, m_h, m_lame, m_k0, m_m0);
  if (!m_uniform) {
    m_parts = Kokkos::View<double*, MemorySpace>("elasticity::stiffness_parts",
                                                 m_dim * m_dim * m_nd * m_nd);
    compute_stiffness_parts(m_dim, m_lame, m_parts);
  }
}

template <class F>
void Assembler::with_elements(const Field& density, F&& f) const {
  if (m_uniform) {
    UniformElements el{m_k0, m_m0, {m_h[0], m_h[1], m_h[2]}};
    f(el);
  } else {
    f(StretchedElements{m_parts, m_m0, density.geometry(), m_dim, m_nd * m_nd});
  }
}

void Assembler::coo_pattern(const Field& density, const GlobalNodeNumbers& numbers,
                            const Indices& rows, const Indices& cols) const {
  element_pattern(density, numbers, m_dim, rows, cols);
}

void Assembler::coo_values(const Field& density, const Simp& simp, double a, double b,
                           const Values& values) const {
  with_elements(density,
                [&](const auto& el) { element_values(density, simp, m_dim, a, b, el, values); });
}

void Assembler::apply(const Field& density, const Simp& simp, double mass_density,
                      const NodeVector* x_stiffness, const NodeVector* x_mass,
                      NodeVector& y) const {
  for (int c = 0; c < m_dim; ++c)
    fill_value(y[c], y[c].ghosted(), 0.0);
  if (!x_stiffness && !x_mass)
    return;
  const NodeViews none{};
  with_elements(density, [&](const auto& el) {
    element_apply(density, simp, mass_density, x_stiffness != nullptr,
                  x_stiffness ? views_of(*x_stiffness) : none, x_mass != nullptr,
                  x_mass ? views_of(*x_mass) : none, views_of(y), index_shift(density, y[0]), m_dim,
                  el);
  });
}

void Assembler::element_energy(const Field& density, const NodeVector& a, const NodeVector& b,
                               Field& out) const {
  with_elements(density, [&](const auto& el) {
    element_products(density, views_of(a), views_of(b), index_shift(density, a[0]), m_dim, el, out);
  });
}

void Assembler::strain_and_stress(const Field& density, const Simp& simp, bool plane_stress,
                                  const NodeVector& u, std::array<Field, 6>& strain,
                                  std::array<Field, 6>& stress, Field& von_mises) const {
  with_elements(density, [&](const auto& el) {
    centre_strain_stress(density, simp, m_lame, plane_stress, views_of(u),
                         index_shift(density, u[0]), m_dim, el, strain, stress, von_mises);
  });
}

} // namespace elasticity
} // namespace undertow
