// Gradients of whole runs: Taylor remainder tests (rate 2) for every parameter group over at
// least 100 steps, finite differences for the scalar parameters, and the same gradient on 1, 2
// and 4 ranks. Small grids, so that they run in CI.

#include "gradient_cases.hpp"
#include "undertow/core/reductions.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>

namespace {

using namespace undertow;
using namespace undertow::navier_stokes;
using namespace undertow::adjoint;
using namespace undertow::testing;

constexpr double kDt = kChannelDt;
constexpr int kSteps = kChannelSteps;

void print_taylor(const std::string& group, const TaylorResult& r) {
  if (!world().is_root())
    return;
  std::printf("Taylor %-10s dJ.h = % .6e  remainders", group.c_str(), r.dJ_h);
  for (double x : r.remainder)
    std::printf(" %.3e", x);
  std::printf("  rates");
  for (double x : r.rate)
    std::printf(" %.3f", x);
  std::printf("\n");
}

class ChannelGradient : public ::testing::TestWithParam<bool> {};

TEST_P(ChannelGradient, TaylorTestOfEveryParameterGroup) {
  const bool average = GetParam();
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back()));
  const Log log(world());
  GradientDriver driver(d, channel_objective(kDt * kSteps, average), log, 0);
  const Control m = channel_control(d);
  const std::vector<double> dts(kSteps, kDt);
  const Gradient g = driver.gradient(m, dts);
  const auto list = scalar_parameters(m, 2);
  for (const std::string group : {"nu", "body_force", "boundary", "shape", "initial", "all"}) {
    const Direction h = random_direction(m, list, group, 0.05, 7, d);
    // The mask is C^1 in the shape parameters, its second derivative jumping where a face
    // leaves the smoothed band: rates reach 2 once the perturbation crosses few such faces,
    // so shape directions start smaller (1% of a cell), the others at 5% of each parameter.
    const double eps0 = group == "shape" ? 0.05 : group == "all" ? 0.01 : 0.5;
    const TaylorResult r = taylor_test(driver, m, dts, g, h, eps0, 4, list);
    print_taylor(group, r);
    EXPECT_FALSE(r.linear) << group;
    EXPECT_GE(r.min_rate, 1.9) << group;
  }
}

TEST(ChannelGradient, FiniteDifferencesOfEveryScalarParameter) {
  const auto grids = undertow::testing::process_grids(2, world().size());
  const Domain d(world(), channel_domain(grids.back()));
  const Log log(world());
  GradientDriver driver(d, channel_objective(kDt * kSteps, true), log, 0);
  const Control m = channel_control(d);
  const std::vector<double> dts(kSteps, kDt);
  const Gradient g = driver.gradient(m, dts);
  for (const auto& p : scalar_parameters(m, 2)) {
    const auto result =
        finite_difference(driver, m, dts, p, (p.group == "shape" ? 1e-4 : 1e-2) * p.scale);
    const double fd = result.value, adjoint = derivative_of(g, p);
    const double rel = std::abs(fd - adjoint) / std::max(std::abs(fd), 1e-300);
    if (world().is_root())
      std::printf("FD %-32s adjoint % .12e  fd % .12e  relative difference %.2e\n", p.name.c_str(),
                  adjoint, fd, rel);
    EXPECT_LT(rel, 1e-6) << p.name;
  }
}

INSTANTIATE_TEST_SUITE_P(FinalAndAveraged, ChannelGradient, ::testing::Values(false, true));

} // namespace
