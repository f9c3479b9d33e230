#include "undertow/adjoint/parameters.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/hash.hpp"
#include "undertow/core/reductions.hpp"

#include <cmath>

namespace undertow {
namespace adjoint {

namespace {

const char* kFaceNames[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
const char* kAxes[3] = {"x", "y", "z"};

/// A field like `like`, uniform in [-amplitude, amplitude] (or [0, amplitude]) on the owned
/// points from a hash of the global index: the same on any number of ranks.
Field random_field(const Field& like, double amplitude, std::uint64_t seed, bool signed_values) {
  Field f(like.layout(), "direction");
  auto host = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(host, 0.0);
  const IndexSpace& o = like.owned();
  const auto& off = like.layout().global_offset;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i) {
        const std::uint64_t index =
            (std::uint64_t(k + off[2]) * 100003ull + std::uint64_t(j + off[1])) * 100003ull +
            std::uint64_t(i + off[0]);
        const double r = hash_uniform(index ^ (seed * 0x5851f42d4c957f2dull));
        host(i, j, k) = amplitude * (signed_values ? 2.0 * r - 1.0 : r);
      }
  Kokkos::deep_copy(f.view(), host);
  return f;
}

} // namespace

std::vector<ScalarParameter> scalar_parameters(const Control& m, int dim) {
  using Kind = ScalarParameter::Kind;
  std::vector<ScalarParameter> out;
  const auto& f = m.flow;
  double speed = 0;
  for (const auto& face : f.boundaries.face)
    for (double v : face.velocity)
      speed = std::max(speed, std::abs(v));
  if (speed == 0)
    speed = 1.0;
  // Scales: 10% of each value (of a tenth of the largest boundary speed where the value is 0).
  out.push_back({"fluid.nu", "nu", 0.1 * f.nu, Kind::Nu});
  for (int a = 0; a < dim; ++a)
    out.push_back({std::string("fluid.body_force_") + kAxes[a], "body_force",
                   0.1 * std::max(std::abs(f.body_force[a]), 0.1 * speed), Kind::BodyForce, a});
  for (std::size_t j = 0; j < f.body_force_signal.coefficients.size(); ++j)
    out.push_back({"fluid.body_force_signal_" + std::to_string(j), "control", 0.1,
                   Kind::BodyForceSignal, 0, static_cast<int>(j)});
  using navier_stokes::BoundaryKind;
  for (int face = 0; face < 2 * dim; ++face) {
    const auto kind = f.boundaries.face[face].kind;
    for (int c = 0; c < dim; ++c) {
      const bool normal = c == face / 2;
      if (!(kind == BoundaryKind::Inflow || (kind == BoundaryKind::Wall && !normal)))
        continue;
      out.push_back({std::string("boundary.") + kFaceNames[face] + ".velocity_" + kAxes[c],
                     "boundary",
                     0.1 * std::max(std::abs(f.boundaries.face[face].velocity[c]), 0.1 * speed),
                     Kind::BoundaryVelocity, face, c});
    }
    // The coefficients of the face's control signal a(t), by 0.1 (a is dimensionless).
    const auto& signal = f.boundaries.face[face].signal;
    for (std::size_t j = 0; j < signal.coefficients.size(); ++j)
      out.push_back({std::string("boundary.") + kFaceNames[face] + ".signal_" + std::to_string(j),
                     "control", 0.1, Kind::BoundarySignal, face, static_cast<int>(j)});
  }
  // Actuators: the rate or velocity by 10% (of 0.1 where 0), the signal's coefficients by 0.1.
  for (std::size_t k = 0; k < f.actuators.size(); ++k) {
    const auto& a = f.actuators[k];
    const bool rotation = a.kind == navier_stokes::ActuatorKind::Rotation;
    out.push_back({a.name() + (rotation ? "_rate" : "_velocity"), "control",
                   0.1 * std::max(std::abs(a.scale), 0.1), Kind::ActuatorScale,
                   static_cast<int>(k)});
    for (std::size_t j = 0; j < a.signal.coefficients.size(); ++j)
      out.push_back({a.name() + "_signal_" + std::to_string(j), "control", 0.1,
                     Kind::ActuatorSignal, static_cast<int>(k), static_cast<int>(j)});
  }
  // The feedback policy's weights by 0.1 (its inputs are velocities of order 1 m/s, its outputs
  // dimensionless).
  for (std::size_t j = 0; j < f.policy.theta.size(); ++j)
    out.push_back({"policy.weight_" + std::to_string(j), "control", 0.1, Kind::PolicyWeight, 0,
                   static_cast<int>(j)});
  for (std::size_t k = 0; k < f.obstacles.shapes.size(); ++k) {
    navier_stokes::Shape shape = f.obstacles.shapes[k];
    const auto params = navier_stokes::shape_parameters(shape, dim);
    for (std::size_t p = 0; p < params.size(); ++p) {
      const double value = navier_stokes::shape_parameter(shape, params[p].index);
      // Angles change by radians, lengths relative to the body's size, NACA fractions by 0.05.
      // Airfoils: the leading edge and chord relative to the chord, the NACA fractions and the
      // CST weights (indices 9 and up) by 0.05.
      const bool naca = shape.kind == navier_stokes::ShapeKind::Naca ||
                        shape.kind == navier_stokes::ShapeKind::Cst;
      const double size = params[p].index == 7 ? 0.1
                          : naca               ? (params[p].index >= 9 ? 0.05 : 0.1 * shape.chord)
                                               : 0.1 * std::max(std::abs(value), shape.radius);
      out.push_back({"obstacle" + std::to_string(k + 1) + "." + params[p].name, "shape", size,
                     Kind::Shape, static_cast<int>(k), params[p].index, static_cast<int>(p)});
    }
  }
  return out;
}

double& value_of(Control& m, const ScalarParameter& p) {
  using Kind = ScalarParameter::Kind;
  switch (p.kind) {
  case Kind::Nu:
    return m.flow.nu;
  case Kind::BodyForce:
    return m.flow.body_force[p.a];
  case Kind::BodyForceSignal:
    return m.flow.body_force_signal.coefficients.at(p.b);
  case Kind::BoundaryVelocity:
    return m.flow.boundaries.face[p.a].velocity[p.b];
  case Kind::BoundarySignal:
    return m.flow.boundaries.face[p.a].signal.coefficients.at(p.b);
  case Kind::ActuatorScale:
    return m.flow.actuators.at(p.a).scale;
  case Kind::ActuatorSignal:
    return m.flow.actuators.at(p.a).signal.coefficients.at(p.b);
  case Kind::PolicyWeight:
    return m.flow.policy.theta.at(p.b);
  case Kind::Shape:
    break;
  }
  return navier_stokes::shape_parameter(m.flow.obstacles.shapes[p.a], p.b);
}

double derivative_of(const Gradient& g, const ScalarParameter& p) {
  using Kind = ScalarParameter::Kind;
  switch (p.kind) {
  case Kind::Nu:
    return g.flow.nu;
  case Kind::BodyForce:
    return g.flow.body_force[p.a];
  case Kind::BodyForceSignal:
    return g.flow.body_force_signal.at(p.b);
  case Kind::BoundaryVelocity:
    return g.flow.boundary_velocity[p.a][p.b];
  case Kind::BoundarySignal:
    return g.flow.boundary_signal[p.a].at(p.b);
  case Kind::ActuatorScale:
    return g.flow.actuator_scale.at(p.a);
  case Kind::ActuatorSignal:
    return g.flow.actuator_signal.at(p.a).at(p.b);
  case Kind::PolicyWeight:
    return g.flow.policy.at(p.b);
  case Kind::Shape:
    break;
  }
  return g.shape.at(p.a).at(p.position);
}

double& parameter_value(Control& m, const std::vector<ScalarParameter>& list,
                        const std::string& name) {
  std::string known;
  for (const auto& p : list) {
    if (p.name == name)
      return value_of(m, p);
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw ConfigError("unknown parameter '" + name + "'; this case has: " + known);
}

Control perturbed(const Control& m, const Direction& h, double eps, int dim) {
  Control out = m;
  // A deep copy of the initial field: the perturbed one must not alias m's.
  for (int c = 0; c < dim; ++c) {
    out.initial[c] = Field(m.initial[c].layout(), m.initial[c].name());
    copy(m.initial[c], out.initial[c]);
    if (h.initial[c].view().data())
      axpy(eps, h.initial[c], out.initial[c]);
  }
  if (m.flow.obstacles.has_design()) {
    Field& rho = out.flow.obstacles.design;
    rho = Field(m.flow.obstacles.design.layout(), "design");
    copy(m.flow.obstacles.design, rho);
    if (h.design.view().data())
      axpy(eps, h.design, rho);
  }
  const auto list = scalar_parameters(m, dim);
  for (const auto& kv : h.scalars)
    parameter_value(out, list, kv.first) += eps * kv.second;
  return out;
}

double directional_derivative(const Gradient& g, const Direction& h, const Domain& d,
                              const std::vector<ScalarParameter>& list) {
  double sum = 0;
  for (const auto& kv : h.scalars) {
    bool found = false;
    for (const auto& p : list)
      if (p.name == kv.first) {
        sum += kv.second * derivative_of(g, p);
        found = true;
      }
    if (!found)
      throw ConfigError("unknown parameter '" + kv.first + "' in the direction");
  }
  for (int c = 0; c < d.dim(); ++c)
    if (h.initial[c].view().data())
      sum += global_dot(d.comm(), g.initial[c], h.initial[c]);
  if (h.design.view().data())
    sum += global_dot(d.comm(), g.design, h.design);
  return sum;
}

Direction random_direction(const Control& m, const std::vector<ScalarParameter>& list,
                           const std::string& group, double amplitude, unsigned seed,
                           const Domain& d, double design_amplitude) {
  Direction h;
  std::uint64_t key = 1000003ull * seed;
  for (const auto& p : list)
    if (group == "all" || group == p.group)
      h.scalars[p.name] = p.scale * (2.0 * hash_uniform(key++) - 1.0);
  if (group == "all" || group == "initial")
    for (int c = 0; c < d.dim(); ++c)
      h.initial[c] = random_field(m.initial[c], amplitude, key * 4 + c, true);
  if ((group == "all" || group == "design") && m.flow.obstacles.has_design())
    // Non-negative: the design field must stay >= 0 (chi < 0 would amplify the flow).
    h.design = random_field(m.flow.obstacles.design, design_amplitude, key * 4 + 3, false);
  if (h.scalars.empty() && !h.initial[0].view().data() && !h.design.view().data())
    throw ConfigError("no parameter in group '" + group +
                      "'; groups: all, nu, body_force, boundary, control, shape, initial, "
                      "design");
  return h;
}

TaylorResult taylor_test(GradientDriver& driver, const Control& m, const StepSizes& dts,
                         const Gradient& g, const Direction& h, double eps0, int halvings,
                         const std::vector<ScalarParameter>& list) {
  const Domain& d = driver.domain();
  return taylor_test(
      [&](double eps) { return driver.objective(perturbed(m, h, eps, d.dim()), dts); }, g.objective,
      directional_derivative(g, h, d, list), eps0, halvings);
}

FiniteDifference finite_difference(GradientDriver& driver, const Control& m, const StepSizes& dts,
                                   const ScalarParameter& p, double step) {
  const int dim = driver.domain().dim();
  Direction h;
  h.scalars[p.name] = 1.0;
  return finite_difference([&](double s) { return driver.objective(perturbed(m, h, s, dim), dts); },
                           step);
}

} // namespace adjoint
} // namespace undertow
