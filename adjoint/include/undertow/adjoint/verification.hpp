#pragma once
/// \file
/// Gradient verification, physics-neutral: the Taylor remainder test and the Richardson-
/// extrapolated central difference, over any function of a step size along a direction. The
/// tests, `undertow gradient --taylor/--fd` and `undertow optimize --taylor` all use these.

#include <functional>
#include <vector>

namespace undertow {
namespace adjoint {

struct TaylorResult {
  std::vector<double> eps, remainder, rate; ///< rate[i] from remainder[i] and [i + 1]
  double dJ_h = 0;                          ///< <dJ/dm, h>
  double min_rate = 0;
  /// The remainders fell to round-off (J(m + eps h) - J(m) - eps dJ h below ~1e-12 J): the
  /// test then shows an objective linear in this direction, and rates are meaningless.
  bool linear = false;
};

/// Taylor tests of several functions that one evaluation gives together (e.g. J and a
/// constraint from one forward run): `values_at(eps)` returns f_q(m + eps h) for every q, `f0`
/// their values at m and `slopes` the adjoint's <df_q/dm, h>. The remainders
/// |f_q(m + eps h) - f_q(m) - eps slope_q| are taken at eps = eps0, eps0/2, ... (`halvings` + 1
/// values), with the observed rates log2(r_i / r_{i+1}), expected 2. Collective where
/// values_at is.
std::vector<TaylorResult> taylor_test(const std::function<std::vector<double>(double)>& values_at,
                                      const std::vector<double>& f0,
                                      const std::vector<double>& slopes, double eps0, int halvings);

/// The same for one function: `J_at(eps)` = J(m + eps h), J0 = J(m), slope = <dJ/dm, h>.
TaylorResult taylor_test(const std::function<double(double)>& J_at, double J0, double slope,
                         double eps0, int halvings);

/// dJ/dp by central differences D(h) = (J(p + h) - J(p - h)) / 2h at h = `step` and h/2,
/// Richardson-extrapolated: (4 D(h/2) - D(h)) / 3, whose error is O(h^4) (plus the solver noise
/// of J divided by h), so that h can be large enough for that noise to stay small. `J_at(s)` is
/// J(p + s). Collective where J_at is.
struct FiniteDifference {
  double value = 0;   ///< the extrapolated derivative
  double central = 0; ///< D(h/2)
  double step = 0;    ///< h
};
FiniteDifference finite_difference(const std::function<double(double)>& J_at, double step);

} // namespace adjoint
} // namespace undertow
