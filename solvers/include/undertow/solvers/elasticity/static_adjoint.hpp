#pragma once
/// \file
/// Gradients of static elasticity objectives by the discrete adjoint (docs/elasticity.md). For
/// J(u) = w fᵀu + gᵀu with K(ρ, E0) u = f under homogeneous or prescribed supports,
///
///   K λ = w f + g   (λ = 0 on supported components: the transposed solve; K is symmetric),
///   dJ/dρ_e = -E'(ρ_e) λ_eᵀ k0 u_e,   dJ/dE0 = -Σ_e ρ_e^p λ_eᵀ k0 u_e,   dJ/df = w u + λ.
///
/// Compliance (g = 0) with zero prescribed displacements is self-adjoint: λ = w u, taken without
/// a solve. Every other case (a displacement functional, prescribed nonzero displacements) does
/// the transposed solve.

#include "undertow/solvers/elasticity/elasticity.hpp"

namespace undertow {
namespace elasticity {

/// J(u) = compliance_weight * fᵀu + Σ (displacement_weights · u) over owned nodes.
struct StaticObjective {
  double compliance_weight = 1.0;
  /// g: weights of a linear displacement functional (e.g. 1 at a tip node's y component); left
  /// default-constructed (no views) for none.
  elasticity::NodeVector displacement_weights;
};

struct StaticGradient {
  double value = 0;            ///< J [J, or m for a displacement functional]
  Field density;               ///< dJ/dρ per element (owned cells)
  elasticity::NodeVector load; ///< dJ/df per node and component [m]
  double youngs_modulus = 0;   ///< dJ/dE0 [J/Pa]
  long adjoint_iterations = 0;
};

/// J and its gradient at the state of the last `solver.solve()`. Collective.
StaticGradient static_gradient(elasticity::LinearElasticity& solver,
                               const StaticObjective& objective);

/// Value of J for the current displacement of `solver` (no solve). Collective.
double static_objective(const elasticity::LinearElasticity& solver,
                        const StaticObjective& objective);

} // namespace elasticity
} // namespace undertow
