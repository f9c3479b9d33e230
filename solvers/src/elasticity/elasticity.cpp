#include "undertow/solvers/elasticity/elasticity.hpp"

#include "undertow/core/error.hpp"
#include "undertow/solvers/elasticity/linear_system.hpp"
#include "undertow/solvers/elasticity/loads.hpp"
#include "undertow/solvers/elasticity/supports.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace undertow {
namespace elasticity {

namespace {

/// Throws ConfigError for what no part can work with: a periodic domain, a material outside its
/// range, no support.
const ElasticitySpec& checked(const Domain& domain, const ElasticitySpec& spec) {
  for (int a = 0; a < domain.dim(); ++a)
    if (domain.periodic(a))
      throw ConfigError("elasticity: the domain is periodic along axis " + std::to_string(a) +
                        "; elasticity needs a bounded box (set domain.periodic to false)");
  if (!(spec.poisson > -1.0 && spec.poisson < 0.5))
    throw ConfigError(format("elasticity: Poisson ratio %g is outside (-1, 0.5)", spec.poisson));
  if (!(spec.simp.E0 > 0) || !(spec.simp.E_min >= 0) || spec.simp.E_min >= spec.simp.E0)
    throw ConfigError(format("elasticity: need E0 > E_min >= 0, got E0 = %g, E_min = %g",
                             spec.simp.E0, spec.simp.E_min));
  if (!(spec.mass_density > 0))
    throw ConfigError(format("elasticity: material.mass_density must be > 0 [kg/m^3], got %g",
                             spec.mass_density));
  if (spec.supports.empty())
    throw ConfigError("elasticity: no support is given, so the structure can move as a rigid "
                      "body; add a [support1] section");
  return spec;
}

} // namespace

LinearElasticity::LinearElasticity(const Domain& domain, const ElasticitySpec& spec)
    : m_domain(domain), m_spec(checked(domain, spec)),
      m_node_halo(std::make_unique<HaloPlan>(domain, Location::Node, 1)), m_numbering(domain),
      m_assembler(domain, unit_lame(spec.poisson, domain.dim(), spec.plane_stress)),
      m_density(domain, Location::Cell, 0, "elasticity::density"),
      m_u(make_node_vector("elasticity::u")), m_f(make_node_vector("elasticity::f")) {
  fill_value(m_density, m_density.owned(), 1.0);
  m_system = std::make_unique<LinearSystem>(domain, m_numbering, m_assembler, m_density, m_spec);
  m_supports = std::make_unique<Supports>(domain, m_spec.supports, m_numbering, *m_node_halo);
  add_loads(domain, m_spec.loads, m_density, *m_node_halo, m_f);
}

LinearElasticity::~LinearElasticity() = default;

const NodeVector& LinearElasticity::supported() const {
  return m_supports->mask();
}

void LinearElasticity::assemble(double stiffness_weight, double mass_weight) {
  m_assembler.coo_values(m_density, m_spec.simp, stiffness_weight,
                         mass_weight * m_spec.mass_density, m_system->coo_values());
  m_system->set_matrix();
}

SolveInfo LinearElasticity::solve() {
  const auto start = std::chrono::steady_clock::now();
  assemble(1.0, 0.0);
  forget_operator();
  m_system->set_rhs(m_f);
  // Start from the last displacement, with the prescribed values on the supports.
  m_system->set_solution(m_u);
  m_system->set_solution_entries(m_supports->rows(), m_supports->values());
  m_system->impose_supports(*m_supports, true);
  const auto assembled = std::chrono::steady_clock::now();
  // An iterative solve starts from the last displacement (a direct one needs no guess).
  SolveInfo info = m_system->solve("displacement", m_spec.solver != LinearSolver::Direct);
  m_total_iterations += info.iterations;
  m_system->get_solution(m_u);
  for (int c = 0; c < dim(); ++c)
    m_node_halo->fill(m_u[c]);
  const auto end = std::chrono::steady_clock::now();
  info.seconds_assembly = std::chrono::duration<double>(assembled - start).count();
  info.seconds_solve = std::chrono::duration<double>(end - assembled).count();
  return info;
}

void LinearElasticity::restore(const NodeVector& u, long total_iterations) {
  for (int c = 0; c < dim(); ++c) {
    copy_owned(u[c], m_u[c]);
    m_node_halo->fill(m_u[c]);
  }
  m_total_iterations = total_iterations;
}

void LinearElasticity::set_up_preconditioner_at_current_densities() {
  if (m_spec.solver == LinearSolver::Direct)
    return;
  assemble(1.0, 0.0);
  forget_operator();
  m_system->impose_supports(*m_supports, false);
  m_system->set_up();
}

SolveInfo LinearElasticity::solve_adjoint(const NodeVector& g, NodeVector& lambda) {
  return solve_operator(g, lambda, "adjoint");
}

void LinearElasticity::assemble_operator(double stiffness_weight, double mass_weight) {
  if (m_operator_weights[0] == stiffness_weight && m_operator_weights[1] == mass_weight)
    return;
  assemble(stiffness_weight, mass_weight);
  m_system->impose_supports(*m_supports, false);
  m_operator_weights = {stiffness_weight, mass_weight};
}

SolveInfo LinearElasticity::solve_operator(const NodeVector& g, NodeVector& x, const char* what) {
  m_system->set_rhs(g);
  m_system->set_rhs_entries(m_supports->rows(), m_supports->zeros());
  m_system->zero_solution();
  const SolveInfo info = m_system->solve(what, false);
  m_total_iterations += info.iterations;
  m_system->get_solution(x);
  for (int c = 0; c < dim(); ++c)
    m_node_halo->fill(x[c]);
  return info;
}

double LinearElasticity::dot(const NodeVector& a, const NodeVector& b) const {
  return elasticity::dot(m_domain.comm(), dim(), a, b);
}

LinearElasticity::NodeLocation
LinearElasticity::locate_node(const std::array<double, 3>& point) const {
  const GridGeometry g = m_u[0].geometry();
  const IndexSpace o = m_u[0].owned();
  NodeLocation at;
  bool here = true;
  for (int a = 0; a < dim(); ++a) {
    if (m_domain.uniform(a)) {
      const double t = (point[a] - g.coordinate(a, 0)) / g.h[a];
      at.index[a] = std::lround(t);
      here = here && std::abs(t - double(at.index[a])) < 0.25;
    } else {
      // The nearest face of the stretched axis, within a quarter of the cells beside it.
      const std::vector<double>& faces = m_domain.spec().faces[std::size_t(a)];
      const long n = long(faces.size()) - 1;
      const long below = std::clamp(m_domain.cell_containing(a, point[a]), 0L, n - 1);
      const long node = point[a] - faces[below] < faces[below + 1] - point[a] ? below : below + 1;
      const double width =
          node == below ? faces[below + 1] - faces[below] : faces[node] - faces[node - 1];
      at.index[a] = node - g.global_offset[a];
      here = here && std::abs(point[a] - faces[node]) < 0.25 * width;
    }
    here = here && at.index[a] >= o.begin[a] && at.index[a] < o.end[a];
  }
  at.owned = here;
  if (m_domain.comm().sum(here ? 1.0 : 0.0) < 0.5)
    throw ConfigError(format("the point (%g, %g, %g) m is not a node of the grid: give a node's "
                             "coordinates (a multiple of the spacing from the origin, or a face "
                             "coordinate of a stretched axis, printed at start)",
                             point[0], point[1], point[2]));
  return at;
}

std::array<double, 3> LinearElasticity::node_value_at(const NodeVector& v,
                                                      const std::array<double, 3>& point) const {
  const NodeLocation at = locate_node(point);
  std::vector<double> mine(3, 0.0);
  if (at.owned)
    for (int c = 0; c < dim(); ++c) {
      auto one = Kokkos::subview(v[c].view(), at.index[0], at.index[1], at.index[2]);
      mine[c] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one)();
    }
  const std::vector<double> all = m_domain.comm().sum(mine); // one rank owns the node
  return {all[0], all[1], all[2]};
}

double LinearElasticity::compliance() const {
  return dot(m_f, m_u);
}

void LinearElasticity::element_energy(const NodeVector& a, const NodeVector& b, Field& out) const {
  m_assembler.element_energy(m_density, a, b, out);
}

void LinearElasticity::apply_operator(const NodeVector* x_stiffness, const NodeVector* x_mass,
                                      NodeVector& y) {
  m_assembler.apply(m_density, m_spec.simp, m_spec.mass_density, x_stiffness, x_mass, y);
  if (!x_stiffness && !x_mass)
    return;
  for (int c = 0; c < dim(); ++c)
    m_node_halo->scatter_add(y[c]);
}

void LinearElasticity::strain_and_stress(const NodeVector& u, std::array<Field, 6>& strain,
                                         std::array<Field, 6>& stress, Field& vm) const {
  m_assembler.strain_and_stress(m_density, m_spec.simp, m_spec.plane_stress, u, strain, stress, vm);
}

} // namespace elasticity
} // namespace undertow
