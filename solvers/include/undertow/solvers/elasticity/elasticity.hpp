#pragma once
/// \file
/// Linear elasticity with Q1 finite elements on the shared decomposition
/// (docs/elasticity.md): displacements at the nodes (Location::Node fields), one element per
/// cell with a per-element Young's modulus from SIMP, E(rho) = E_min + rho^p (E0 - E_min).
/// The stiffness is assembled in Kokkos kernels as COO values (E_e times the unit element
/// matrix) into a PETSc matrix and solved with CG preconditioned by GAMG, whose near null space
/// is the rigid-body modes; supports are imposed by zeroing rows and columns (the operator stays
/// symmetric). Loads are summed on each rank's local nodes, ghosts included, and added into their
/// owners with the halo plan's scatter_add.
///
/// Units: lengths [m], E and tractions [Pa], point loads [N], body forces [N/m^3]; in 2D every
/// quantity is per unit thickness.

#include "undertow/core/config.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/halo.hpp"
#include "undertow/core/log.hpp"
#include "undertow/solvers/elasticity/element.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace elasticity {

/// Nodes (or element centres, or boundary-face centres) inside an axis-aligned box, bounds
/// included with a tolerance of a quarter cell. A degenerate box selects a point, an edge or a
/// face. Lengths [m].
struct Box {
  std::array<double, 3> lo{0, 0, 0};
  std::array<double, 3> hi{0, 0, 0};
};

/// Displacement prescribed on the nodes of a box, component by component.
struct Support {
  Box box;
  std::array<bool, 3> fixed{true, true, true}; ///< which components are prescribed
  std::array<double, 3> value{0, 0, 0};        ///< their values [m]
};

enum class LoadKind {
  Point,    ///< total force [N] shared equally by the nodes of the box
  Traction, ///< [Pa] on the boundary faces of the domain inside the (flat) box
  Body      ///< [N/m^3] on the elements whose centres lie in the box (gravity: rho g)
};

struct Load {
  LoadKind kind = LoadKind::Point;
  Box box;
  std::array<double, 3> value{0, 0, 0};
};

enum class LinearSolver {
  CgGamg, ///< CG + smoothed-aggregation AMG with the rigid-body near null space
  Direct  ///< LU through MUMPS: for small problems and exact comparisons
};

/// Most [supportK] and [loadK] sections a case may have (K = 1, 2, ...).
constexpr int kMaxSupports = 8;
constexpr int kMaxLoads = 8;

struct ElasticitySpec {
  Simp simp;                ///< E0, E_min [Pa] and the SIMP exponent
  double poisson = 0.3;     ///< Poisson ratio, in (-1, 0.5)
  bool plane_stress = true; ///< 2D only: plane stress (true) or plane strain (false)
  double mass_density = 1;  ///< [kg/m^3], for dynamics
  std::vector<Support> supports;
  std::vector<Load> loads;
  LinearSolver solver = LinearSolver::CgGamg;
  double rtol = 1e-10; ///< relative residual reduction of the CG solve
  long max_iterations = 5000;

  /// The case-file keys: [material], [elasticity] (the linear solver), [support1..8] and
  /// [load1..8]. Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// The spec of a validated configuration. Throws ConfigError naming the key for a box with the
  /// wrong number of corners, lo above hi, a support that fixes nothing, or no support at all.
  /// Not collective.
  static ElasticitySpec from_config(const Config& config, int dim);
};

/// Node fields of the displacement-like quantities: component c in [c], dim of them used.
using NodeVector = std::array<Field, 3>;

/// out := a x + b y over every local value (ghosts included) of components 0 to dim - 1; y may
/// be null (then b is not used). `out` may be x or y. Not collective.
void combine(int dim, double a, const NodeVector& x, double b, const NodeVector* y,
             NodeVector& out);

/// What one linear solve did.
struct SolveInfo {
  long iterations = 0;
  double residual = 0;         ///< final preconditioned residual norm
  double seconds_assembly = 0; ///< K(rho) into PETSc and the supports imposed (this rank)
  double seconds_solve = 0;    ///< KSP set-up (GAMG hierarchy or LU factors) and solve
};

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
  long global_dofs() const { return m_global_dofs; }

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
  /// out_e = a_e^T k0 b_e per element (owned cells): the derivative of b^T K a with respect to
  /// E_e. `a` and `b` need filled ghosts (as displacement() and solve_adjoint() give). Not
  /// collective.
  void element_energy(const NodeVector& a, const NodeVector& b, Field& out) const;
  /// y := K(rho) x matrix-free from the element point functions (no supports), ghosts of x
  /// filled by the caller; y's owned values are complete. Collective (scatter_add).
  void apply_stiffness(const NodeVector& x, NodeVector& y) { apply_operator(&x, nullptr, y); }
  /// 1 on supported components of owned and ghost nodes, 0 elsewhere.
  const NodeVector& supported() const { return m_fixed; }

  /// Fresh zeroed node fields with the displacement's layout.
  NodeVector make_node_vector(const std::string& name) const;
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
  /// Unit-modulus element matrix k0, row-major (dim 2^dim)^2 entries, on the device.
  const Kokkos::View<double*, MemorySpace>& unit_element_matrix() const { return m_k0; }
  /// Unit-density consistent element mass m0, laid out as k0, on the device.
  const Kokkos::View<double*, MemorySpace>& unit_element_mass() const { return m_m0; }
  /// Iterations of every solve so far (forward and adjoint).
  long total_iterations() const { return m_total_iterations; }

 private:
  struct Petsc; ///< PETSc objects, supports and solve buffers, kept out of this header

  void build_numbering();
  void build_pattern();
  void build_supports();
  void build_loads();
  using HostNodeView = Kokkos::View<double***, FieldLayoutTag, Kokkos::HostSpace>;
  /// Throws ConfigError if the supported components leave a rigid-body motion free.
  void check_rigid_body_motions(const std::array<HostNodeView, 3>& fixed) const;
  /// COO values of stiffness_weight K(rho) + mass_weight M into the PETSc matrix.
  void assemble(double stiffness_weight, double mass_weight);
  SolveInfo run_ksp(const char* what);

  const Domain& m_domain;
  ElasticitySpec m_spec;
  Lame m_lame;
  std::unique_ptr<HaloPlan> m_node_halo;
  Field m_density;
  Field m_node_id; ///< global node number (as a double), ghosts filled
  NodeVector m_u, m_f, m_fixed;
  Kokkos::View<double*, MemorySpace> m_k0, m_m0;
  /// The weights of the operator assemble_operator() last assembled ({-1, -1}: none).
  std::array<double, 2> m_operator_weights{-1.0, -1.0};
  long m_owned_nodes = 0, m_first_node = 0, m_global_dofs = 0;
  long m_total_iterations = 0;
  std::unique_ptr<Petsc> m_petsc;
};

} // namespace elasticity
} // namespace undertow
