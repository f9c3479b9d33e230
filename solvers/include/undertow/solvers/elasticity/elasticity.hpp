#pragma once
/// \file
/// Linear elasticity with Q1 finite elements on the shared decomposition
/// (docs/elasticity.md): displacements at the nodes (Location::Node fields), one element per
/// cell with a per-element Young's modulus from SIMP, E(rho) = E_min + rho^p (E0 - E_min).
///
/// LinearElasticity joins named parts, each in its own file:
/// - NodeNumbering (node_numbering.hpp): the global numbers of the nodes, the matrix's rows;
/// - Assembler (assembler.hpp): element matrices, COO values, the matrix-free operators;
/// - Supports (supports.hpp): prescribed components, their rows and mask;
/// - add_loads (loads.hpp): the load vector;
/// - LinearSystem (linear_system.hpp): the PETSc matrix and KSP (CG + GAMG with the rigid-body
///   near null space, or MUMPS), with its own options database.
/// The stiffness is assembled in Kokkos kernels as COO values (E_e times the unit element
/// matrix); supports are imposed by zeroing rows and columns (the operator stays symmetric).
/// Loads are summed on each rank's local nodes, ghosts included, and added into their owners
/// with the halo plan's scatter_add.
///
/// Units: lengths [m], E and tractions [Pa], point loads [N], body forces [N/m^3]; in 2D every
/// quantity is per unit thickness.

#include "undertow/core/config.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/halo.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/elasticity/assembler.hpp"
#include "undertow/solvers/elasticity/element.hpp"
#include "undertow/solvers/elasticity/node_numbering.hpp"
#include "undertow/solvers/elasticity/node_vector.hpp"
#include "undertow/solvers/elasticity/spec.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace elasticity {

class Supports;
class LinearSystem;

class LinearElasticity {
 public:
  /// Numbers the nodes, builds the COO pattern, the near null space and the load vector from
  /// `spec`. Throws ConfigError for a periodic domain, an empty support or load box, a traction
  /// box that is not on a boundary face, or supports that leave a rigid-body motion free.
  /// Collective.
  LinearElasticity(const Domain& domain, const ElasticitySpec& spec);
  ~LinearElasticity();
  LinearElasticity(const LinearElasticity&) = delete;
  LinearElasticity& operator=(const LinearElasticity&) = delete;

  const Domain& domain() const { return m_domain; }
  const ElasticitySpec& spec() const { return m_spec; }
  int dim() const { return m_domain.dim(); }
  /// Number of displacement unknowns over all ranks, supported ones included.
  long global_dofs() const { return dim() * m_numbering.global_nodes(); }

  /// Element densities rho in [0, 1] (cell field, owned values used); 1 initially. E0 of the
  /// spec may be changed through simp().
  Field& density() { return m_density; }
  const Field& density() const { return m_density; }
  Simp& simp() { return m_spec.simp; }
  /// Sets the mass density [kg/m^3] (> 0) that M uses; forgets the assembled operator.
  void set_mass_density(double rho) {
    m_spec.mass_density = rho;
    forget_operator();
  }

  /// The load vector f [N] on the nodes (owned values are the assembled ones). Built from the
  /// spec's loads; callers may add to the owned values (e.g. a consistent non-uniform traction).
  NodeVector& load() { return m_f; }
  const NodeVector& load() const { return m_f; }

  /// Assembles K(rho) and solves K u = f with the supports. Throws CollectiveError if the solve
  /// does not converge, naming the reason. Collective.
  SolveInfo solve();
  /// The displacement [m], ghosts filled.
  const NodeVector& displacement() const { return m_u; }

  /// Solves K lambda = g with the operator of the last solve() (no assemble_operator() since),
  /// homogeneous supports (g on supported components is ignored, lambda is 0 there).
  /// Collective.
  SolveInfo solve_adjoint(const NodeVector& g, NodeVector& lambda);

  /// Assembles A = stiffness_weight K(rho) + mass_weight M (M the consistent mass of density
  /// spec().mass_density) with homogeneous supports: the rows and columns of supported
  /// components are those of the identity. Nothing is done if A already holds these weights;
  /// after a change of density() or simp(), or after solve(), it is assembled again (see
  /// forget_operator). For time integration. Collective.
  void assemble_operator(double stiffness_weight, double mass_weight);
  /// Makes the next assemble_operator() assemble (call after changing density() or simp()).
  void forget_operator() { m_operator_weights = {-1.0, -1.0}; }
  /// Solves A x = g with the operator of the last assemble_operator() or solve(), homogeneous
  /// supports (g on supported components is ignored, x is 0 there); ghosts of x filled. `what`
  /// names the solve in errors. Throws CollectiveError if it does not converge. Collective.
  SolveInfo solve_operator(const NodeVector& g, NodeVector& x, const char* what);
  /// y := K(rho) x_stiffness + M x_mass matrix-free (either input may be null; no supports),
  /// ghosts of the inputs filled by the caller; y's owned values complete [N]. Collective
  /// (scatter_add).
  void apply_operator(const NodeVector* x_stiffness, const NodeVector* x_mass, NodeVector& y);

  /// The node at `point` [m] (within a quarter cell along every axis): its local index, and
  /// whether this rank owns it (exactly one rank does). Throws ConfigError if no node is there
  /// (the point is outside the domain or between nodes). Collective.
  struct NodeLocation {
    bool owned = false;
    std::array<long, 3> index{0, 0, 0};
  };
  NodeLocation locate_node(const std::array<double, 3>& point) const;
  /// The node value of `v` nearest to `point` [m] (within a quarter cell along every axis),
  /// component by component, on every rank. Throws ConfigError if no node is there (the point is
  /// outside the domain or between nodes). Collective.
  std::array<double, 3> node_value_at(const NodeVector& v,
                                      const std::array<double, 3>& point) const;

  /// Compliance f . u [J] of the last solve. Collective.
  double compliance() const;
  /// out_e = a_e^T k_e b_e per element (owned cells): the derivative of b^T K a with respect to
  /// E_e. `a` and `b` need filled ghosts (as displacement() and solve_adjoint() give). Not
  /// collective.
  void element_energy(const NodeVector& a, const NodeVector& b, Field& out) const;
  /// y := K(rho) x matrix-free from the element point functions (no supports), ghosts of x
  /// filled by the caller; y's owned values are complete. Collective (scatter_add).
  void apply_stiffness(const NodeVector& x, NodeVector& y) { apply_operator(&x, nullptr, y); }
  /// 1 on supported components of owned and ghost nodes, 0 elsewhere.
  const NodeVector& supported() const;

  /// Fresh zeroed node fields with the displacement's layout.
  NodeVector make_node_vector(const std::string& name) const {
    return elasticity::make_node_vector(m_domain, name);
  }
  /// Sum over owned nodes and components of a . b. Collective.
  double dot(const NodeVector& a, const NodeVector& b) const;
  /// Cell fields (owned values) of the element-centre strain and stress [Pa], components xx,
  /// yy, zz, xy, yz, zx (tensor, not engineering, shear strain), and the von Mises stress [Pa]
  /// of the current displacement. In 2D plane stress the zz stress is 0 and the zz strain is the
  /// thickness change it implies; in plane strain the zz strain is 0.
  /// Not collective.
  void strain_and_stress(std::array<Field, 6>& strain, std::array<Field, 6>& stress,
                         Field& von_mises) const {
    strain_and_stress(m_u, strain, stress, von_mises);
  }
  /// The same for the displacement `u` (ghosts filled), e.g. a dynamic state.
  void strain_and_stress(const NodeVector& u, std::array<Field, 6>& strain,
                         std::array<Field, 6>& stress, Field& von_mises) const;
  /// The halo plan of the node fields.
  HaloPlan& node_halo() { return *m_node_halo; }
  /// Iterations of every solve so far (forward and adjoint).
  long total_iterations() const { return m_total_iterations; }
  /// Sets back a saved state: the displacement `u` (owned values; ghosts filled here), which the
  /// next iterative solve starts from, and the iteration count. Collective.
  void restore(const NodeVector& u, long total_iterations);
  /// With CG + GAMG: sets the preconditioner up for the stiffness at the current densities,
  /// without solving. PETSc's GAMG keeps the interpolation of its first set-up for later
  /// operators, so a run continued from a restart file calls this at the densities the run
  /// started from to go on with the preconditioners of the uninterrupted run, bitwise. Nothing
  /// with the direct solver. Collective.
  void set_up_preconditioner_at_current_densities();

 private:
  /// Stiffness-weighted K(rho) + mass-weighted M into the linear system's matrix.
  void assemble(double stiffness_weight, double mass_weight);

  const Domain& m_domain;
  ElasticitySpec m_spec;
  std::unique_ptr<HaloPlan> m_node_halo;
  NodeNumbering m_numbering;
  Assembler m_assembler;
  Field m_density;
  NodeVector m_u, m_f;
  std::unique_ptr<Supports> m_supports;
  std::unique_ptr<LinearSystem> m_system;
  /// The weights of the operator assemble_operator() last assembled ({-1, -1}: none).
  std::array<double, 2> m_operator_weights{-1.0, -1.0};
  long m_total_iterations = 0;
};

} // namespace elasticity
} // namespace undertow
