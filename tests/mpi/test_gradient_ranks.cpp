// The gradient of a run on all ranks against the same gradient on the first 1 and 2 ranks alone:
// the objective, every scalar derivative and the initial-field gradient agree to 1e-10 relative.

#include "gradient_cases.hpp"

#include "undertow/core/reductions.hpp"

#include <cstdio>
#include <gtest/gtest.h>
#include <utility>

namespace {

using namespace undertow;
using namespace undertow::adjoint;
using namespace undertow::testing;

struct Outcome {
  std::vector<double> scalars; ///< J, then every scalar derivative
  std::vector<double> initial; ///< dJ/du_initial, gathered on rank 0
  std::vector<double> design;  ///< dJ/d(design field), gathered on rank 0
};

Outcome gradient_on(const Communicator& comm, TimeScheme scheme, bool stretched,
                    ImexProjection projection) {
  const Domain d(comm, channel_domain({0, 0, 0}, stretched));
  const Log log(comm);
  GradientDriver driver(d, channel_objective(kChannelDt * kChannelSteps, true), log, 0);
  Control m = channel_control(d, scheme);
  m.flow.imex_projection = projection;
  const Gradient g = driver.gradient(m, std::vector<double>(kChannelSteps, kChannelDt));
  Outcome out;
  out.scalars.push_back(g.objective);
  for (const auto& p : scalar_parameters(m, 2))
    out.scalars.push_back(derivative_of(g, p));
  for (int c = 0; c < 2; ++c) {
    const auto part = gather_to_root(comm, g.initial[c]);
    out.initial.insert(out.initial.end(), part.begin(), part.end());
  }
  out.design = gather_to_root(comm, g.design);
  return out;
}

/// The gradient on every rank of world() against that on its first 1 and 2 ranks alone.
void expect_same_gradient(TimeScheme scheme, bool stretched,
                          ImexProjection projection = ImexProjection::EverySubstep) {
  const Communicator& comm = world();
  const Outcome full = gradient_on(comm, scheme, stretched, projection);
  for (int ranks : {1, 2}) {
    if (ranks >= comm.size())
      continue;
    const Communicator part = comm.split(comm.rank() < ranks ? 0 : 1, comm.rank());
    Outcome ref;
    if (comm.rank() < ranks)
      ref = gradient_on(part, scheme, stretched, projection);
    if (!comm.is_root())
      continue;
    ASSERT_EQ(ref.scalars.size(), full.scalars.size());
    double worst = 0;
    for (std::size_t i = 0; i < ref.scalars.size(); ++i) {
      const double rel =
          std::abs(ref.scalars[i] - full.scalars[i]) / std::max(std::abs(ref.scalars[i]), 1e-300);
      worst = std::max(worst, rel);
      EXPECT_LE(rel, 1e-10) << "entry " << i << ": " << comm.size() << " ranks against " << ranks;
    }
    // The largest value of `a` and the largest difference between `a` and `b`.
    const auto scale_and_diff = [](const std::vector<double>& a, const std::vector<double>& b) {
      std::pair<double, double> out{0, 0};
      for (std::size_t i = 0; i < a.size(); ++i) {
        out.first = std::max(out.first, std::abs(a[i]));
        out.second = std::max(out.second, std::abs(a[i] - b[i]));
      }
      return out;
    };
    ASSERT_EQ(ref.initial.size(), full.initial.size());
    const auto [scale, diff] = scale_and_diff(ref.initial, full.initial);
    EXPECT_LE(diff, 1e-10 * scale);
    ASSERT_EQ(ref.design.size(), full.design.size());
    const auto [design_scale, design_diff] = scale_and_diff(ref.design, full.design);
    EXPECT_LE(design_diff, 1e-10 * design_scale);
    EXPECT_GT(design_scale, 0.0);
    std::printf("%d ranks against %d: scalars differ by %.2e relative, the initial-field "
                "gradient by %.2e and the design gradient by %.2e of their maxima\n",
                comm.size(), ranks, worst, diff / scale, design_diff / design_scale);
  }
}

class GradientRanks : public ::testing::TestWithParam<TimeScheme> {};

TEST_P(GradientRanks, SameGradientOnAnyNumberOfRanks) {
  expect_same_gradient(GetParam(), false);
}

// On a stretched grid, where the pressure solves take BoomerAMG (auto), whose hierarchy depends
// on the split: the same gradient to the solves' tolerance.
TEST(GradientRanksStretched, SameGradientOnAnyNumberOfRanks) {
  expect_same_gradient(TimeScheme::Rk3CrankNicolson, true);
}

// RK3-CN projected at its last substep only (time.imex_projection = last_substep).
TEST(GradientRanksImexLastSubstep, SameGradientOnAnyNumberOfRanks) {
  expect_same_gradient(TimeScheme::Rk3CrankNicolson, false, ImexProjection::LastSubstep);
}

INSTANTIATE_TEST_SUITE_P(Schemes, GradientRanks,
                         ::testing::Values(TimeScheme::SspRk3, TimeScheme::Rk3CrankNicolson),
                         [](const ::testing::TestParamInfo<TimeScheme>& info) {
                           return info.param == TimeScheme::SspRk3 ? "explicit" : "imex";
                         });

} // namespace
