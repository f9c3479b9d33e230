#pragma once
/// \file
/// Minimum-compliance topology optimisation at a fixed volume fraction (docs/elasticity.md):
/// design variables x per element, physical densities x̃ = filter(x) (DensityFilter), SIMP
/// stiffness, compliance sensitivities from the adjoint (adjoint/elasticity_gradient.hpp)
/// carried back through the filter's transpose, and the optimality-criteria update with a move
/// limit and a bisection on the volume multiplier, as in the 88-line reference code
/// (Andreassen et al. 2011).

#include "undertow/optimisation/density_filter.hpp"
#include "undertow/solvers/elasticity/elasticity.hpp"

namespace undertow {
namespace optimisation {

struct TopologySettings {
  double volume_fraction = 0.5;   ///< allowed mean physical density (volume-weighted), in (0, 1)
  double filter_radius = 1.5;     ///< r_min [m]
  double move = 0.2;              ///< largest change of a design variable per iteration
  double change_tolerance = 0.01; ///< stop when no design variable changes by more
  long max_iterations = 200;

  /// The case-file keys of [topology] (topology.enabled switches the optimisation on).
  /// Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// The settings of a validated configuration. Not collective.
  static TopologySettings from_config(const Config& config);
};

/// What one iteration measured (at the densities it started from).
struct TopologyIteration {
  long iteration = 0;
  double compliance = 0;      ///< [J]
  double volume = 0;          ///< mean physical density after the update (volume-weighted)
  double change = 0;          ///< max |x_new - x|
  long solver_iterations = 0; ///< CG iterations of the forward and adjoint solves
  double seconds_solve = 0, seconds_sensitivity = 0, seconds_update = 0;
};

class TopologyOptimisation {
 public:
  /// Starts from x = volume_fraction everywhere. Throws ConfigError for settings out of range.
  /// Collective.
  TopologyOptimisation(elasticity::LinearElasticity& solver, const TopologySettings& settings);

  /// One iteration: solve at the physical densities, compliance sensitivities, filter
  /// transpose, OC update, new physical densities. Collective.
  TopologyIteration step();
  /// True once the last change is at most change_tolerance.
  bool converged() const { return m_last_change <= m_settings.change_tolerance; }
  /// Design variables x and physical densities x̃ (owned cells).
  const Field& design() const { return m_x; }
  const Field& physical() const { return m_solver.density(); }
  const TopologySettings& settings() const { return m_settings; }
  /// Iterations taken, and the largest design change of the last one (1 before the first).
  long iteration() const { return m_iteration; }
  double last_change() const { return m_last_change; }
  /// Sets back a saved state: the design `x` (owned values) after `iteration` iterations, the
  /// last of which changed it by `last_change`; the physical densities follow from x. The
  /// solver's displacement (the next solve's initial guess) is restored with the solver.
  /// Collective.
  void restore(const Field& x, long iteration, double last_change);

 private:
  elasticity::LinearElasticity& m_solver;
  TopologySettings m_settings;
  DensityFilter m_filter;
  Field m_x, m_x_new, m_dc, m_dv;
  Field m_cell_volume; ///< each cell's weight in the material volume: 1, or its volume if stretched
  double m_last_change = 1.0;
  long m_iteration = 0;
};

} // namespace optimisation
} // namespace undertow
