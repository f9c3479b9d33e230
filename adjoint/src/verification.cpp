#include "undertow/adjoint/verification.hpp"

#include <algorithm>
#include <cmath>

namespace undertow {
namespace adjoint {

std::vector<TaylorResult> taylor_test(const std::function<std::vector<double>(double)>& values_at,
                                      const std::vector<double>& f0,
                                      const std::vector<double>& slopes, double eps0,
                                      int halvings) {
  std::vector<TaylorResult> out(f0.size());
  for (std::size_t q = 0; q < out.size(); ++q)
    out[q].dJ_h = slopes[q];
  double eps = eps0;
  for (int i = 0; i <= halvings; ++i, eps *= 0.5) {
    const std::vector<double> values = values_at(eps);
    for (std::size_t q = 0; q < out.size(); ++q) {
      out[q].eps.push_back(eps);
      out[q].remainder.push_back(std::abs(values[q] - f0[q] - eps * slopes[q]));
    }
  }
  for (std::size_t q = 0; q < out.size(); ++q) {
    TaylorResult& r = out[q];
    r.min_rate = HUGE_VAL;
    for (int i = 0; i < halvings; ++i) {
      const double rate = std::log2(r.remainder[i] / r.remainder[i + 1]);
      r.rate.push_back(rate);
      r.min_rate = std::min(r.min_rate, rate);
    }
    r.linear = r.remainder[0] < 1e-12 * std::max(std::abs(f0[q]), std::abs(eps0 * r.dJ_h));
  }
  return out;
}

TaylorResult taylor_test(const std::function<double(double)>& J_at, double J0, double slope,
                         double eps0, int halvings) {
  return taylor_test([&](double eps) { return std::vector<double>{J_at(eps)}; }, {J0}, {slope},
                     eps0, halvings)
      .front();
}

FiniteDifference finite_difference(const std::function<double(double)>& J_at, double step) {
  const auto central = [&](double s) {
    return (J_at(s) - J_at(-s)) / (2 * s);
  };
  FiniteDifference fd;
  fd.step = step;
  const double coarse = central(step);
  fd.central = central(0.5 * step);
  fd.value = (4 * fd.central - coarse) / 3;
  return fd;
}

} // namespace adjoint
} // namespace undertow
