#include "undertow/solvers/control/feedback_policy.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <cmath>
#include <random>

namespace undertow {
namespace control {

namespace {

/// y = W x + b for W of rows(y) x size(x) stored row by row at theta[w], b at theta[b].
std::vector<double> affine(const std::vector<double>& theta, std::size_t w, std::size_t b,
                           const std::vector<double>& x, int rows) {
  const std::size_t n = x.size();
  std::vector<double> y(rows);
  for (int r = 0; r < rows; ++r) {
    double sum = theta[b + r];
    for (std::size_t i = 0; i < n; ++i)
      sum += theta[w + r * n + i] * x[i];
    y[r] = sum;
  }
  return y;
}

/// The transpose of y = W x + b: g_W += g_y x^T, g_b += g_y; returns W^T g_y.
std::vector<double> affine_transpose(const std::vector<double>& theta, std::size_t w, std::size_t b,
                                     const std::vector<double>& x, const std::vector<double>& g_y,
                                     std::vector<double>& g_theta) {
  const std::size_t n = x.size();
  std::vector<double> g_x(n, 0.0);
  for (std::size_t r = 0; r < g_y.size(); ++r) {
    g_theta[b + r] += g_y[r];
    for (std::size_t i = 0; i < n; ++i) {
      g_theta[w + r * n + i] += g_y[r] * x[i];
      g_x[i] += theta[w + r * n + i] * g_y[r];
    }
  }
  return g_x;
}

/// A double uniform in [0, 1) from the generator's bits alone (std:: distributions differ
/// between standard libraries).
double uniform(std::mt19937_64& g) {
  return double(g() >> 11) * 0x1.0p-53;
}

} // namespace

FeedbackPolicy FeedbackPolicy::linear(int inputs, int outputs, bool saturate) {
  FeedbackPolicy p;
  p.kind = PolicyKind::Linear;
  p.inputs = inputs;
  p.outputs = outputs;
  p.saturate = saturate;
  p.theta.assign(p.parameter_count(), 0.0);
  return p;
}

FeedbackPolicy FeedbackPolicy::network(int inputs, int hidden, int outputs, bool saturate,
                                       unsigned seed) {
  FeedbackPolicy p;
  p.kind = PolicyKind::Network;
  p.inputs = inputs;
  p.hidden = hidden;
  p.outputs = outputs;
  p.saturate = saturate;
  p.theta.assign(p.parameter_count(), 0.0);
  std::mt19937_64 g(seed);
  const double bound = 1.0 / std::sqrt(double(inputs));
  for (std::size_t i = 0; i < std::size_t(hidden) * inputs; ++i)
    p.theta[i] = bound * (2.0 * uniform(g) - 1.0);
  return p;
}

std::size_t FeedbackPolicy::parameter_count() const {
  switch (kind) {
  case PolicyKind::None:
    return 0;
  case PolicyKind::Linear:
    return std::size_t(outputs) * (inputs + 1);
  case PolicyKind::Network:
    return std::size_t(hidden) * (inputs + 1) + std::size_t(outputs) * (hidden + 1);
  }
  return 0;
}

std::vector<double> FeedbackPolicy::evaluate(const std::vector<double>& s) const {
  std::vector<double> z;
  if (kind == PolicyKind::Linear) {
    z = affine(theta, 0, std::size_t(outputs) * inputs, s, outputs);
  } else if (kind == PolicyKind::Network) {
    const std::size_t w2 = std::size_t(hidden) * (inputs + 1);
    std::vector<double> h = affine(theta, 0, std::size_t(hidden) * inputs, s, hidden);
    for (double& v : h)
      v = std::tanh(v);
    z = affine(theta, w2, w2 + std::size_t(outputs) * hidden, h, outputs);
  } else {
    return {};
  }
  if (saturate)
    for (double& v : z)
      v = std::tanh(v);
  return z;
}

std::vector<double> FeedbackPolicy::transpose(const std::vector<double>& s,
                                              const std::vector<double>& g_a,
                                              std::vector<double>& g_theta) const {
  if (!active())
    return {};
  std::vector<double> g_z = g_a;
  if (saturate) {
    const std::vector<double> a = evaluate(s);
    for (int r = 0; r < outputs; ++r)
      g_z[r] *= 1.0 - a[r] * a[r];
  }
  if (kind == PolicyKind::Linear)
    return affine_transpose(theta, 0, std::size_t(outputs) * inputs, s, g_z, g_theta);
  const std::size_t w2 = std::size_t(hidden) * (inputs + 1);
  std::vector<double> h = affine(theta, 0, std::size_t(hidden) * inputs, s, hidden);
  for (double& v : h)
    v = std::tanh(v);
  std::vector<double> g_h =
      affine_transpose(theta, w2, w2 + std::size_t(outputs) * hidden, h, g_z, g_theta);
  for (int r = 0; r < hidden; ++r)
    g_h[r] *= 1.0 - h[r] * h[r];
  return affine_transpose(theta, 0, std::size_t(hidden) * inputs, s, g_h, g_theta);
}

std::string FeedbackPolicy::describe() const {
  if (!active())
    return "none";
  const std::string n = std::to_string(inputs), m = std::to_string(outputs);
  const std::string out = kind == PolicyKind::Linear
                              ? "linear " + n + " -> " + m
                              : "network " + n + " -> " + std::to_string(hidden) + " tanh -> " + m;
  return out + (saturate ? ", saturated" : "") + " (" + std::to_string(theta.size()) + " weights)";
}

void FeedbackPolicy::declare_keys(ConfigSchema& s) {
  s.add("policy.kind", ValueType::Choice, "none",
        "a feedback policy driving every actuator (obstacleK.rotation_rate, .jet_velocity): "
        "A_k = scale_k pi_theta(s), s the sensor readings of the step's start; none: the "
        "actuators follow their signals in time")
      .one_of({"none", "linear", "network"});
  s.add("policy.sensors", ValueType::RealList, "",
        "the sensors' positions, x y (z in 3D) per sensor; each reads every velocity component "
        "at the centre of the cell containing it [m]")
      .items(0, 3 * 256);
  s.add("policy.hidden", ValueType::Integer, "8",
        "policy.kind = network: tanh units of the hidden layer")
      .range(1, 256);
  s.add("policy.saturate", ValueType::Boolean, "false",
        "pass the policy's output through tanh, so that |A_k| < scale_k (the actuator's rate "
        "or jet velocity bounds it)");
  s.add("policy.weights", ValueType::RealList, "",
        "theta, the policy's weights (docs/control.md gives their order); empty: linear zero, "
        "network's first layer drawn from policy.seed and its second zero")
      .items(0, 1 << 20);
  s.add("policy.seed", ValueType::Integer, "1",
        "the seed of a network's first layer when policy.weights is empty")
      .range(0, 1e9);
}

FeedbackPolicy FeedbackPolicy::from_config(const Config& c, int inputs, int outputs) {
  const std::string kind = c.get_string("policy.kind");
  if (kind == "none")
    return FeedbackPolicy{};
  const bool saturate = c.get_bool("policy.saturate");
  FeedbackPolicy p = kind == "linear"
                         ? linear(inputs, outputs, saturate)
                         : network(inputs, static_cast<int>(c.get_int("policy.hidden")), outputs,
                                   saturate, static_cast<unsigned>(c.get_int("policy.seed")));
  const std::vector<double> weights = c.get_real_list("policy.weights");
  if (!weights.empty()) {
    if (weights.size() != p.theta.size())
      throw ConfigError("policy.weights has " + std::to_string(weights.size()) + " values, but a " +
                        p.describe() + " needs " + std::to_string(p.theta.size()) +
                        ": give that many (docs/control.md gives their order), or none");
    p.theta = weights;
  }
  return p;
}

} // namespace control
} // namespace undertow
