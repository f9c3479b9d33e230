#pragma once
/// \file
/// What a linear-elasticity case asks for: the material, the supports, the loads and the linear
/// solver (the [material], [elasticity], [supportK] and [loadK] keys, elasticity_config.cpp).
///
/// Units: lengths [m], E and tractions [Pa], point loads [N], body forces [N/m^3]; in 2D every
/// quantity is per unit thickness.

#include "undertow/core/config.hpp"
#include "undertow/solvers/elasticity/element.hpp"

#include <array>
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

} // namespace elasticity
} // namespace undertow
