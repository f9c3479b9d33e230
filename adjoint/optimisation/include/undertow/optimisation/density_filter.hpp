#pragma once
/// \file
/// The density filter of topology optimisation (Bruns & Tortorelli 2001; Bourdin 2001), in
/// parallel: x̃_e = Σ_i H_ei V_i x_i / Σ_i H_ei V_i with H_ei = max(0, r_min - |c_e - c_i|) over
/// the elements i of the domain (cell centres c, volumes V: all 1 on a uniform grid, the cells'
/// volumes on a stretched one, so that a fine region does not weigh more than a coarse one of
/// the same size). Neighbours on other ranks arrive through a halo of ceil(r_min / h_min) - 1
/// cells (h_min: the narrowest cell), so the result does not depend on the decomposition.
/// `apply_transpose` is the exact transpose, which carries sensitivities with respect to x̃
/// back to x: (∂f/∂x)_i = V_i Σ_e H_ei (∂f/∂x̃_e) / Σ_j H_ej V_j.

#include "undertow/core/halo.hpp"

#include <memory>

namespace undertow {
namespace optimisation {

class DensityFilter {
 public:
  /// `radius` r_min [m] > 0; below one cell width the filter is the identity. Collective (builds
  /// the halo plan).
  DensityFilter(const Domain& domain, double radius);
  ~DensityFilter();

  /// out := H V x / (H V 1) on the owned cells. `x` and `out` are cell fields of any ghost width.
  /// Collective.
  void apply(const Field& x, Field& out);
  /// out := V Hᵀ (g / (H V 1)). Collective.
  void apply_transpose(const Field& g, Field& out);
  /// Ghost layers the filter reads.
  int reach() const { return m_reach; }

 private:
  const Domain& m_domain;
  double m_radius;
  int m_reach;
  std::unique_ptr<HaloPlan> m_halo;
  Field m_work, m_weight_sum;
};

} // namespace optimisation
} // namespace undertow
