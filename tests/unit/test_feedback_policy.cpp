// The feedback policy a = pi_theta(s) (control/feedback_policy.hpp): its transpose against
// central differences in the weights and in the readings, for the linear policy and the
// network, saturated or not; the weights' layout and count; the network's reproducible start.

#include "undertow/core/error.hpp"
#include "undertow/solvers/control/feedback_policy.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <random>

namespace {

using undertow::control::FeedbackPolicy;
using undertow::control::PolicyKind;

std::vector<double> random_vector(std::size_t n, unsigned seed, double scale) {
  std::mt19937_64 g(seed);
  std::vector<double> v(n);
  for (double& x : v)
    x = scale * (double(g() >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  return v;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    s += a[i] * b[i];
  return s;
}

/// <g_a, (pi(x + eps h) - pi(x - eps h)) / (2 eps)> for x the weights (`in_theta`) or the
/// readings.
double central_difference(FeedbackPolicy p, std::vector<double> s, const std::vector<double>& h,
                          const std::vector<double>& g_a, bool in_theta, double eps) {
  std::vector<double>& x = in_theta ? p.theta : s;
  const std::vector<double> x0 = x;
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = x0[i] + eps * h[i];
  const std::vector<double> plus = p.evaluate(s);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = x0[i] - eps * h[i];
  const std::vector<double> minus = p.evaluate(s);
  double sum = 0;
  for (std::size_t r = 0; r < plus.size(); ++r)
    sum += g_a[r] * (plus[r] - minus[r]) / (2 * eps);
  return sum;
}

void expect_transpose_matches_differences(FeedbackPolicy p, const char* what) {
  const std::vector<double> s = random_vector(p.inputs, 3, 1.5);
  const std::vector<double> g_a = random_vector(p.outputs, 4, 1.0);
  std::vector<double> g_theta(p.theta.size(), 0.0);
  const std::vector<double> g_s = p.transpose(s, g_a, g_theta);
  ASSERT_EQ(g_s.size(), std::size_t(p.inputs));
  const std::vector<double> h_theta = random_vector(p.theta.size(), 5, 1.0);
  const std::vector<double> h_s = random_vector(p.inputs, 6, 1.0);
  const double fd_theta = central_difference(p, s, h_theta, g_a, true, 1e-5);
  const double fd_s = central_difference(p, s, h_s, g_a, false, 1e-5);
  // Central differences err by O(eps^2) ~ 1e-10 here.
  EXPECT_NEAR(dot(g_theta, h_theta), fd_theta, 1e-8 * std::abs(fd_theta)) << what;
  EXPECT_NEAR(dot(g_s, h_s), fd_s, 1e-8 * std::abs(fd_s)) << what;
  EXPECT_GT(std::abs(fd_theta), 1e-3) << what;
  EXPECT_GT(std::abs(fd_s), 1e-3) << what;
  // The transpose accumulates: a second call doubles dJ/dtheta.
  std::vector<double> twice = g_theta;
  p.transpose(s, g_a, twice);
  for (std::size_t j = 0; j < twice.size(); ++j)
    EXPECT_EQ(twice[j], 2.0 * g_theta[j]) << what;
}

TEST(FeedbackPolicy, LinearTransposeMatchesDifferences) {
  for (bool saturate : {false, true}) {
    FeedbackPolicy p = FeedbackPolicy::linear(6, 2, saturate);
    ASSERT_EQ(p.theta.size(), 2u * 7u);
    p.theta = random_vector(p.theta.size(), 7, 0.4);
    expect_transpose_matches_differences(p, saturate ? "linear, saturated" : "linear");
  }
}

TEST(FeedbackPolicy, NetworkTransposeMatchesDifferences) {
  for (bool saturate : {false, true}) {
    FeedbackPolicy p = FeedbackPolicy::network(6, 5, 2, saturate, 9);
    ASSERT_EQ(p.theta.size(), 5u * 7u + 2u * 6u);
    p.theta = random_vector(p.theta.size(), 8, 0.5);
    expect_transpose_matches_differences(p, saturate ? "network, saturated" : "network");
  }
}

// The linear policy reads W s + b with W stored row by row.
TEST(FeedbackPolicy, LinearLayout) {
  FeedbackPolicy p = FeedbackPolicy::linear(3, 2, false);
  p.theta = {1, 2, 3, 4, 5, 6, 0.5, -0.5};
  const std::vector<double> a = p.evaluate({1, 0, -1});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], 1 - 3 + 0.5);
  EXPECT_EQ(a[1], 4 - 6 - 0.5);
  p.saturate = true;
  EXPECT_EQ(p.evaluate({1, 0, -1})[0], std::tanh(-1.5));
}

// A new network gives no actuation, the same first layer from the same seed (within
// +-1/sqrt(inputs)), and a non-zero derivative with respect to its second layer.
TEST(FeedbackPolicy, NetworkStartsQuietAndReproducibly) {
  const FeedbackPolicy p = FeedbackPolicy::network(4, 3, 2, true, 17);
  const FeedbackPolicy q = FeedbackPolicy::network(4, 3, 2, true, 17);
  EXPECT_EQ(p.theta, q.theta);
  EXPECT_NE(p.theta, FeedbackPolicy::network(4, 3, 2, true, 18).theta);
  for (std::size_t i = 0; i < 12; ++i) {
    EXPECT_NE(p.theta[i], 0.0);
    EXPECT_LE(std::abs(p.theta[i]), 0.5);
  }
  for (double a : p.evaluate({0.3, -1.0, 0.7, 1.2}))
    EXPECT_EQ(a, 0.0);
  std::vector<double> g(p.theta.size(), 0.0);
  p.transpose({0.3, -1.0, 0.7, 1.2}, {1.0, -1.0}, g);
  double second = 0;
  for (std::size_t j = 15; j < g.size(); ++j)
    second += std::abs(g[j]);
  EXPECT_GT(second, 0.1);
}

TEST(FeedbackPolicy, WeightsOfTheWrongCountAreRefused) {
  undertow::ConfigSchema schema;
  FeedbackPolicy::declare_keys(schema);
  const undertow::Config c(
      schema,
      undertow::RawConfig::parse("[policy]\nkind = linear\nweights = 1 2 3\n", "case.ini", {}));
  try {
    FeedbackPolicy::from_config(c, 4, 2);
    FAIL() << "three weights for a linear 4 -> 2 policy were accepted";
  } catch (const undertow::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 10"), std::string::npos) << e.what();
  }
}

} // namespace
