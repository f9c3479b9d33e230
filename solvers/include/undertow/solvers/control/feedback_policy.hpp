#pragma once
/// \file
/// A feedback policy a = pi_theta(s): the actuators' amplitudes as a function of sensor
/// readings, with its exact vector-Jacobian product for the adjoint (docs/control.md).
///
/// Kinds, with z the output before the optional saturation a = tanh(z):
/// - linear:  z = W s + b;                           theta = [W (rows: outputs), b]
/// - network: z = W2 tanh(W1 s + b1) + b2 (one hidden layer of `hidden` tanh units);
///            theta = [W1 (rows: hidden), b1, W2 (rows: outputs), b2]
/// Matrices are stored row by row. The policy is small (tens to thousands of weights) and is
/// evaluated on the host once per time step; every rank holds the same theta and the same
/// readings, so every rank computes the same a.

#include "undertow/core/config.hpp"

#include <string>
#include <vector>

namespace undertow {
namespace control {

enum class PolicyKind { None, Linear, Network };

class FeedbackPolicy {
 public:
  PolicyKind kind = PolicyKind::None;
  int inputs = 0;        ///< sensor readings
  int outputs = 0;       ///< amplitudes (one per actuator)
  int hidden = 0;        ///< network: tanh units of the hidden layer
  bool saturate = false; ///< a = tanh(z): every amplitude in (-1, 1)
  std::vector<double> theta;

  /// A linear policy with zero weights (no actuation until trained). Not collective.
  static FeedbackPolicy linear(int inputs, int outputs, bool saturate);
  /// A network whose first layer is drawn uniformly in +-1/sqrt(inputs) from `seed` (the same on
  /// every rank and machine) and whose second layer is zero: it starts with no actuation, and
  /// its gradient with respect to the second layer is not zero (as it would be from all zeros).
  /// Not collective.
  static FeedbackPolicy network(int inputs, int hidden, int outputs, bool saturate, unsigned seed);

  bool active() const { return kind != PolicyKind::None; }
  /// The number of weights that `kind`, `inputs`, `outputs` and `hidden` call for.
  std::size_t parameter_count() const;
  /// a = pi_theta(s); s has `inputs` values. Not collective.
  std::vector<double> evaluate(const std::vector<double>& s) const;
  /// The transpose of the policy's derivative at s: adds (da/dtheta)^T g_a to g_theta and
  /// returns (da/ds)^T g_a. Not collective.
  std::vector<double> transpose(const std::vector<double>& s, const std::vector<double>& g_a,
                                std::vector<double>& g_theta) const;
  /// "network 8 -> 16 tanh -> 2, saturated (194 weights)", for logs.
  std::string describe() const;

  /// Declares policy.kind, policy.sensors, policy.hidden, policy.saturate, policy.weights and
  /// policy.seed. Not collective.
  static void declare_keys(ConfigSchema& schema);
  /// The policy the keys ask for, with `inputs` readings and `outputs` amplitudes. Throws
  /// ConfigError for weights of the wrong count (naming the count the layout needs). Not
  /// collective.
  static FeedbackPolicy from_config(const Config& config, int inputs, int outputs);
};

} // namespace control
} // namespace undertow
