#include "undertow/solvers/navier_stokes/actuators.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <cmath>

namespace undertow {
namespace navier_stokes {

std::string Actuator::name() const {
  return obstacle_section(body) + (kind == ActuatorKind::Rotation ? ".rotation" : ".jet");
}

Actuator rotation_actuator(int body, const Shape& shape, double rate) {
  Actuator a;
  a.kind = ActuatorKind::Rotation;
  a.body = body;
  a.scale = rate;
  a.pattern.rotation = 1;
  a.pattern.centre[0] = shape.centre[0];
  a.pattern.centre[1] = shape.centre[1];
  a.pattern.reach = 1.5 * shape.radius;
  return a;
}

Actuator jet_pair(int body, const Shape& shape, double first_angle, double second_angle,
                  double width, double velocity) {
  Actuator a = rotation_actuator(body, shape, velocity);
  a.kind = ActuatorKind::Jets;
  a.pattern = jet_pair_pattern(shape.centre, shape.radius, a.pattern.reach, first_angle,
                               second_angle, width);
  return a;
}

void declare_actuator_keys(ConfigSchema& s) {
  for (int k = 0; k < kMaxObstacles; ++k) {
    const std::string o = obstacle_section(k);
    s.add(o + ".rotation_rate", ValueType::Real, "0",
          "rigid rotation of the body (a circle) at this angular velocity, counter-clockwise "
          "about its centre (the z axis in 3D), times " +
              o +
              ".rotation_signal: the penalty drives the flow inside it to that motion "
              "[rad/s]");
    control::TimeSignal::declare_keys(s, o + ".rotation_signal", o + ".rotation_rate");
    s.add(o + ".jet_angles", ValueType::RealList, "",
          "a pair of synthetic jets on the body (a circle): the directions of their centres, "
          "counter-clockwise from +x (e.g. 90 270); the first blows with " +
              o + ".jet_velocity, the second sucks as much (zero net mass flux) [deg]")
        .items(0, 2);
    s.add(o + ".jet_width", ValueType::Real, "10",
          "the angular width of each jet; its radial velocity follows cos(pi s / width) across "
          "it [deg]")
        .range(0, 180);
    s.add(o + ".jet_velocity", ValueType::Real, "0",
          "the peak radial velocity of the first jet (the second has minus it), times " + o +
              ".jet_signal [m/s]");
    control::TimeSignal::declare_keys(s, o + ".jet_signal", o + ".jet_velocity");
  }
}

std::vector<Actuator> actuators_from_config(const Config& c, const ObstacleSet& obstacles) {
  std::vector<Actuator> out;
  int body = -1; // index among the obstacles read (those whose shape is not none)
  for (int k = 0; k < kMaxObstacles; ++k) {
    const std::string o = obstacle_section(k);
    if (c.get_string(o + ".shape") == "none") {
      for (const char* key : {".rotation_rate", ".jet_angles", ".jet_velocity"})
        if (c.is_given(o + key))
          throw ConfigError(o + key + " is given but " + o +
                            ".shape = none: give the body's shape, or remove the key");
      continue;
    }
    ++body;
    const Shape& shape = obstacles.shapes.at(body);
    const bool rotates = c.get_real(o + ".rotation_rate") != 0.0;
    const auto angles = c.get_real_list(o + ".jet_angles");
    const bool jets = !angles.empty();
    std::vector<Actuator> mine;
    if (rotates) {
      Actuator a = rotation_actuator(body, shape, c.get_real(o + ".rotation_rate"));
      a.signal = control::TimeSignal::from_config(c, o + ".rotation_signal");
      mine.push_back(a);
    } else {
      for (const char* key : {".rotation_signal", ".rotation_signal_values",
                              ".rotation_signal_interval", ".rotation_signal_period"})
        if (c.is_given(o + key))
          throw ConfigError(o + key + " is given but " + o +
                            ".rotation_rate is 0, which the signal multiplies: set the rate, or "
                            "remove the key");
    }
    if (jets) {
      if (angles.size() != 2)
        throw ConfigError(o + ".jet_angles gives one angle: jets come in pairs (one blows what "
                              "the other sucks); give two, e.g. 90 270");
      const double width = c.get_real(o + ".jet_width") * math::pi / 180.0;
      if (!(width > 0))
        throw ConfigError(o + ".jet_width must be > 0 degrees");
      const double gap = std::abs(std::remainder(angles[0] - angles[1], 360.0));
      if (gap * math::pi / 180.0 < width)
        throw ConfigError(o + ".jet_angles: the jets overlap (their centres are closer than " + o +
                          ".jet_width); move them apart or narrow them");
      if (c.get_real(o + ".jet_velocity") == 0.0)
        throw ConfigError(o + ".jet_angles are given but " + o +
                          ".jet_velocity = 0: set the jets' peak velocity [m/s]");
      Actuator a = jet_pair(body, shape, angles[0] * math::pi / 180.0, angles[1] * math::pi / 180.0,
                            width, c.get_real(o + ".jet_velocity"));
      a.signal = control::TimeSignal::from_config(c, o + ".jet_signal");
      mine.push_back(a);
    } else {
      for (const char* key : {".jet_velocity", ".jet_width", ".jet_signal", ".jet_signal_values",
                              ".jet_signal_interval", ".jet_signal_period"})
        if (c.is_given(o + key))
          throw ConfigError(o + key + " is given but " + o +
                            ".jet_angles is not: give the pair's angles, or remove the key");
    }
    if (mine.empty())
      continue;
    if (shape.kind != ShapeKind::Circle)
      throw ConfigError(o + ": rotation and jets act on bodies of shape circle; " + o +
                        ".shape is not one");
    for (Actuator& a : mine) {
      // Another body within the reach would be driven too.
      for (std::size_t other = 0; other < obstacles.shapes.size(); ++other) {
        if (static_cast<int>(other) == body)
          continue;
        const Shape& s = obstacles.shapes[other];
        const double d = std::hypot(s.centre[0] - shape.centre[0], s.centre[1] - shape.centre[1]);
        const double extent = s.kind == ShapeKind::Circle ? s.radius : HUGE_VAL;
        if (d < 1.5 * shape.radius + extent)
          throw ConfigError(a.name() +
                            format(" acts within 1.5 radii (%g m) of ", 1.5 * shape.radius) + o +
                            "'s centre, where obstacle" + std::to_string(other + 1) +
                            " lies (or is not a circle, whose extent is unknown): move the "
                            "bodies apart, or actuate neither");
      }
      out.push_back(a);
    }
  }
  return out;
}

} // namespace navier_stokes
} // namespace undertow
