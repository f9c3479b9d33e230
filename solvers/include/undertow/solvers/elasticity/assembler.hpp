#pragma once
/// \file
/// The element-level operators of Q1 elasticity on the structured grid: the unit-modulus
/// stiffness and unit-density mass of each element (one pair for every element of a uniform
/// grid; on a stretched grid formed per element from its size, element.hpp), the COO pattern and
/// values of a K(rho) + b M for PETSc, and the same operators matrix-free (apply, element
/// energies, strain and stress). Kokkos kernels over the owned elements; nothing here knows
/// PETSc's objects or the supports.

#include "undertow/solvers/elasticity/element.hpp"
#include "undertow/solvers/elasticity/node_numbering.hpp"
#include "undertow/solvers/elasticity/node_vector.hpp"

#include <petscsys.h>

namespace undertow {
namespace elasticity {

class Assembler {
 public:
  using Values = Kokkos::View<PetscScalar*, MemorySpace>;
  using Indices = Kokkos::View<PetscInt*, MemorySpace>;

  /// The element matrices of `domain`'s cells (uniform or stretched) for the unit Lamé
  /// parameters `lame`. Not collective.
  Assembler(const Domain& domain, const Lame& lame);

  int dim() const { return m_dim; }
  /// Entries of one element matrix, (dim 2^dim)^2.
  int entries_per_element() const { return m_nd * m_nd; }

  /// COO rows and columns (global degrees of freedom) of every entry of every owned element of
  /// `density`'s layout, element by element, row-major within one. Not collective.
  void coo_pattern(const Field& density, const GlobalNodeNumbers& numbers, const Indices& rows,
                   const Indices& cols) const;
  /// COO values of a E(rho_e) k_e + b m_e in the pattern's order (k_e, m_e: element e's
  /// unit-modulus stiffness and unit-density mass). Not collective.
  void coo_values(const Field& density, const Simp& simp, double a, double b,
                  const Values& values) const;
  /// y := K(rho) x_stiffness + mass_density M x_mass (an absent input is left out), summed
  /// element by element into y's local nodes, ghosts included; y is zeroed first and its
  /// ghosts still hold partial sums (the caller scatter-adds them). Not collective.
  void apply(const Field& density, const Simp& simp, double mass_density,
             const NodeVector* x_stiffness, const NodeVector* x_mass, NodeVector& y) const;
  /// out_e = a_e^T k_e b_e per owned element: the derivative of b^T K a with respect to E_e.
  /// Not collective.
  void element_energy(const Field& density, const NodeVector& a, const NodeVector& b,
                      Field& out) const;
  /// Element-centre strain, stress [Pa] and von Mises stress of the displacement u (ghosts
  /// filled); see LinearElasticity::strain_and_stress. Not collective.
  void strain_and_stress(const Field& density, const Simp& simp, bool plane_stress,
                         const NodeVector& u, std::array<Field, 6>& strain,
                         std::array<Field, 6>& stress, Field& von_mises) const;

 private:
  /// Calls f with the device-copyable element matrices of `density`'s cells: a uniform grid's
  /// one pair, or a stretched grid's per-element forms.
  template <class F>
  void with_elements(const Field& density, F&& f) const;

  int m_dim = 2, m_nd = 8;
  bool m_uniform = true;
  double m_h[3] = {1, 1, 1}; ///< a uniform grid's element size; the unit box on a stretched one
  Lame m_lame;
  /// k0 and m0 of an element of size m_h; on a stretched grid also the parts S_ab of k0, part
  /// p = a dim + b at [p nd^2, (p + 1) nd^2).
  Kokkos::View<double*, MemorySpace> m_k0, m_m0, m_parts;
};

} // namespace elasticity
} // namespace undertow
