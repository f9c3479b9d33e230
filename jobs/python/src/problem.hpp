#pragma once
/// \file
/// A Navier-Stokes case as a differentiable function for the Python package: its parameters m
/// (the scalar ones by name, the initial velocity and the design field), outputs y(m) (the
/// case's objective J, or the values of sensors) over time steps frozen when it is made, and
/// the vector-Jacobian product ybar^T dy/dm (gradient) by the discrete adjoint with the case's
/// checkpointing. The same driver as `undertow gradient`, so J and dJ/dm are the CLI's.

#include "models.hpp"

#include "undertow/adjoint/gradient.hpp"
#include "undertow/adjoint/parameters.hpp"
#include "undertow/core/log.hpp"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace python {

/// A velocity sensor: u_component at the centre of the cell containing `point` [m], with the
/// case's objective.time (its value at the final time, or its mean over objective.window). The
/// caller checks the component (velocity_component); Problem checks that the point is inside.
struct Sensor {
  std::array<double, 3> point{0, 0, 0};
  int component = 0;
};

class Problem {
 public:
  /// Refuses a case without an adjoint (ConfigError), reads m from the case (initial.* or
  /// `restart`) and freezes the time steps by a forward run of it (time.dt, or time.cfl chosen
  /// then). Without sensors the output is the case's [objective]; with them, their values.
  /// `verbose`: the header and the sweeps' progress lines on rank 0. Collective.
  Problem(const Communicator& comm, jobs::LoadedCase loaded, std::string case_file,
          std::vector<Sensor> sensors, const std::string& restart, bool verbose);

  const Domain& domain() const { return *m_domain; }
  const Config& config() const { return m_loaded.config; }
  /// The scalar parameters, named as in the case file.
  const std::vector<adjoint::ScalarParameter>& parameters() const { return m_parameters; }
  /// m as the case gives it.
  const adjoint::Control& case_control() const { return m_m0; }
  /// A deep copy of case_control(), to change (its fields are its own). Not collective.
  adjoint::Control copy_of_case_control() const;
  const adjoint::StepSizes& steps() const { return m_steps; }
  /// 1 (J) or the number of sensors.
  std::size_t output_count() const { return m_sensors.empty() ? 1 : m_sensors.size(); }
  bool has_sensors() const { return !m_sensors.empty(); }
  std::string describe_outputs() const { return m_description; }

  /// y(m) by a forward run. Collective.
  std::vector<double> outputs(const adjoint::Control& m);
  /// With sensors, the gradient of ybar^T y (forward run with tapes, then the reverse sweep;
  /// its `objective` is ybar^T y); without, that of J, which the caller scales by ybar[0] (the
  /// terms of J keep the case's weights). `ybar` has output_count() entries. Collective.
  adjoint::Gradient gradient(const adjoint::Control& m, const std::vector<double>& ybar);

 private:
  adjoint::ObjectiveSum objective(navier_stokes::NavierStokes& ns) const;

  jobs::LoadedCase m_loaded;
  std::string m_case_file;
  std::vector<Sensor> m_sensors;
  std::unique_ptr<Domain> m_domain;
  Log m_log;
  std::unique_ptr<adjoint::GradientDriver> m_driver;
  adjoint::Control m_m0;
  std::vector<adjoint::ScalarParameter> m_parameters;
  adjoint::StepSizes m_steps;
  std::string m_description;
};

} // namespace python
} // namespace undertow
