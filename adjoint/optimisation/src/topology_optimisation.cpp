#include "undertow/optimisation/topology_optimisation.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/solvers/elasticity/static_adjoint.hpp"

#include <chrono>
#include <cmath>

namespace undertow {
namespace optimisation {

namespace {

/// The optimality-criteria candidate for volume multiplier `lmid`:
/// x_new = clamp(x sqrt(-dc / (dv lmid)), max(0, x - move), min(1, x + move)).
KOKKOS_INLINE_FUNCTION double oc_update(double x, double dc, double dv, double lmid, double move) {
  const double ratio = dc < 0.0 ? -dc / (dv * lmid) : 0.0;
  const double candidate = x * std::sqrt(ratio);
  const double lo = x - move > 0.0 ? x - move : 0.0;
  const double hi = x + move < 1.0 ? x + move : 1.0;
  return candidate < lo ? lo : (candidate > hi ? hi : candidate);
}

void oc_candidate(const Field& x_field, const Field& dc_field, const Field& dv_field, double lmid,
                  double move, Field& out_field) {
  const FieldView x = x_field.view(), dc = dc_field.view(), dv = dv_field.view(),
                  out = out_field.view();
  for_each(
      "topology::oc_update", x_field.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        out(i, j, k) = oc_update(x(i, j, k), dc(i, j, k), dv(i, j, k), lmid, move);
      });
}

/// v := the volume (area in 2D) of each owned cell [m^dim].
void fill_cell_volumes(int dim, Field& v_field) {
  const FieldView v = v_field.view();
  const GridGeometry g = v_field.geometry();
  for_each(
      "topology::cell_volumes", v_field.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { v(i, j, k) = g.control_volume(dim, i, j, k); });
}

double max_change(const Communicator& comm, const Field& a_field, const Field& b_field) {
  const FieldView a = a_field.view(), b = b_field.view();
  return comm.max(local_max(
      "topology::change", a_field.owned(), KOKKOS_LAMBDA(long i, long j, long k, double& m) {
        const double d = std::abs(a(i, j, k) - b(i, j, k));
        m = d > m ? d : m;
      }));
}

} // namespace

void TopologySettings::declare_keys(ConfigSchema& s) {
  s.add("topology.enabled", ValueType::Boolean, "false",
        "minimise the compliance at a fixed volume fraction (true) or solve once (false)");
  s.add("topology.volume_fraction", ValueType::Real, "0.5",
        "allowed mean physical density; also the uniform starting design")
      .range(1e-6, 1 - 1e-6);
  s.add("topology.filter_radius", ValueType::Real, "1.5",
        "density filter radius r_min [m] (the 88-line code's rmin times the element size)")
      .above(0);
  s.add("topology.move", ValueType::Real, "0.2",
        "largest change of a design variable per optimality-criteria update")
      .range(1e-6, 1);
  s.add("topology.change_tolerance", ValueType::Real, "0.01",
        "converged when no design variable changes by more than this")
      .above(0);
  s.add("topology.max_iterations", ValueType::Integer, "200",
        "most design iterations (a run that reaches it says so)")
      .at_least(1);
}

TopologySettings TopologySettings::from_config(const Config& c) {
  TopologySettings t;
  t.volume_fraction = c.get_real("topology.volume_fraction");
  t.filter_radius = c.get_real("topology.filter_radius");
  t.move = c.get_real("topology.move");
  t.change_tolerance = c.get_real("topology.change_tolerance");
  t.max_iterations = c.get_int("topology.max_iterations");
  return t;
}

TopologyOptimisation::TopologyOptimisation(elasticity::LinearElasticity& solver,
                                           const TopologySettings& settings)
    : m_solver(solver), m_settings(settings), m_filter(solver.domain(), settings.filter_radius) {
  if (!(settings.volume_fraction > 0 && settings.volume_fraction < 1))
    throw ConfigError(
        format("topology: volume_fraction %g must lie in (0, 1)", settings.volume_fraction));
  if (!(settings.move > 0 && settings.move <= 1))
    throw ConfigError(format("topology: move %g must lie in (0, 1]", settings.move));
  const Domain& d = solver.domain();
  m_x = Field(d, Location::Cell, 0, "topology::x");
  m_x_new = Field(d, Location::Cell, 0, "topology::x_new");
  m_dc = Field(d, Location::Cell, 0, "topology::dc");
  m_dv = Field(d, Location::Cell, 0, "topology::dv");
  fill_value(m_x, m_x.owned(), settings.volume_fraction);
  // The material volume is sum_e V_e x̃_e: V_e = 1 (a cell count) on a uniform grid, the cells'
  // volumes on a stretched one. dv: its sensitivities through the filter (it is linear in x̃).
  m_cell_volume = Field(d, Location::Cell, 0, "topology::cell_volume");
  fill_value(m_cell_volume, m_cell_volume.owned(), 1.0);
  if (!d.all_uniform())
    fill_cell_volumes(d.dim(), m_cell_volume);
  m_filter.apply_transpose(m_cell_volume, m_dv);
  m_filter.apply(m_x, m_solver.density());
}

void TopologyOptimisation::restore(const Field& x, long iteration, double last_change) {
  copy_owned(x, m_x);
  m_iteration = iteration;
  m_last_change = last_change;
  m_filter.apply(m_x, m_solver.density());
}

TopologyIteration TopologyOptimisation::step() {
  const Communicator& comm = m_solver.domain().comm();
  const bool uniform = m_solver.domain().all_uniform();
  const double whole =
      uniform ? double(m_x.layout().global.size()) : m_solver.domain().box_volume();
  TopologyIteration out;
  out.iteration = ++m_iteration;
  const long before = m_solver.total_iterations();

  auto start = std::chrono::steady_clock::now();
  m_solver.solve();
  out.seconds_solve = seconds_since(start);

  start = std::chrono::steady_clock::now();
  elasticity::StaticObjective compliance;
  const elasticity::StaticGradient g = elasticity::static_gradient(m_solver, compliance);
  out.compliance = g.value;
  m_filter.apply_transpose(g.density, m_dc);
  out.seconds_sensitivity = seconds_since(start);
  out.solver_iterations = m_solver.total_iterations() - before;

  // Bisection on the volume multiplier, as the reference code does it. The volume of the
  // filtered candidate, sum_i V_i (H x / Hs)_i, is the dot product of x with dv = H^T (V / Hs): no
  // filter application per bisection step (the reference code filters each time; the two agree
  // to round-off).
  start = std::chrono::steady_clock::now();
  double l1 = 0.0, l2 = 1e9;
  const double target = m_settings.volume_fraction * whole;
  while ((l2 - l1) / (l1 + l2) > 1e-3) {
    const double lmid = 0.5 * (l2 + l1);
    oc_candidate(m_x, m_dc, m_dv, lmid, m_settings.move, m_x_new);
    if (global_dot(comm, m_x_new, m_dv) > target)
      l1 = lmid;
    else
      l2 = lmid;
  }
  m_last_change = max_change(comm, m_x_new, m_x);
  copy(m_x_new, m_x);
  m_filter.apply(m_x, m_solver.density());
  out.change = m_last_change;
  out.volume = (uniform ? global_sum(comm, m_solver.density())
                        : global_dot(comm, m_cell_volume, m_solver.density())) /
               whole;
  out.seconds_update = seconds_since(start);
  if (!std::isfinite(out.compliance))
    throw CollectiveError(
        "topology: the compliance is not finite at iteration " + std::to_string(out.iteration) +
        "; raise material.youngs_modulus_min so that void elements keep some stiffness");
  return out;
}

} // namespace optimisation
} // namespace undertow
