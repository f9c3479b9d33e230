#include "problem.hpp"

#include "checkpoint_plan.hpp"
#include "navier_stokes_setup.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/files.hpp"

namespace undertow {
namespace python {

namespace {

const jobs::LoadedCase& with_adjoint(const jobs::LoadedCase& loaded) {
  if (loaded.model->name != "navier_stokes")
    throw ConfigError("case.model = " + loaded.model->name +
                      " has no adjoint: a Problem works on navier_stokes cases");
  return loaded;
}

} // namespace

Problem::Problem(const Communicator& comm, jobs::LoadedCase loaded, std::string case_file,
                 std::vector<Sensor> sensors, const std::string& restart, bool verbose)
    : m_loaded(std::move(loaded)), m_case_file(std::move(case_file)), m_sensors(std::move(sensors)),
      m_log(comm) {
  with_adjoint(m_loaded);
  m_log.set_echo(verbose);
  const Config& cfg = m_loaded.config;
  m_domain = std::make_unique<Domain>(comm, DomainSpec::from_config(cfg));
  for (const Sensor& s : m_sensors)
    require_inside(*m_domain, s.point, "sensor point");
  m_log.info(std::string("undertow ") + UNDERTOW_VERSION_STRING + " Problem: case '" +
             m_loaded.name + "', " + parallel_layout(comm));
  m_driver = std::make_unique<adjoint::GradientDriver>(
      *m_domain, [this](navier_stokes::NavierStokes& ns) { return objective(ns); }, m_log,
      verbose ? cfg.get_int("output.progress_every") : 0);
  m_m0 = jobs::control_from_case(cfg, *m_domain, restart, m_log);
  m_parameters = adjoint::scalar_parameters(m_m0, m_domain->dim());
  m_steps = m_driver->choose_steps(m_m0, cfg.get_real("time.t_end"), cfg.get_real("time.dt"),
                                   cfg.get_real("time.cfl"));
  navier_stokes::NavierStokes ns(*m_domain, m_m0.flow);
  m_description = objective(ns).describe();
  const adjoint::Checkpointing c =
      jobs::checkpointing_from(cfg, ns, static_cast<long>(m_steps.size()), m_loaded.output_dir, "");
  if (c.disk_slots > 0)
    run_on_root(comm, [&] { io::make_directories(m_loaded.output_dir); });
  m_driver->set_checkpointing(c);
  jobs::print_plan(m_log, c, ns, static_cast<long>(m_steps.size()));
}

adjoint::ObjectiveSum Problem::objective(navier_stokes::NavierStokes& ns) const {
  if (m_sensors.empty())
    return adjoint::make_objective({m_loaded.config, m_case_file, ns});
  adjoint::ObjectiveSum sensors(adjoint::objective_window(m_loaded.config));
  for (const Sensor& s : m_sensors)
    sensors.add(1.0, adjoint::probe_value(ns, s.point, s.component));
  return sensors;
}

adjoint::Control Problem::copy_of_case_control() const {
  return adjoint::perturbed(m_m0, adjoint::Direction(), 0.0, m_domain->dim());
}

std::vector<double> Problem::outputs(const adjoint::Control& m) {
  std::vector<double> terms;
  const double J = m_driver->objective(m, m_steps, m_sensors.empty() ? nullptr : &terms);
  if (m_sensors.empty())
    return {J};
  terms.resize(m_sensors.size(), 0.0);
  return terms;
}

adjoint::Gradient Problem::gradient(const adjoint::Control& m, const std::vector<double>& ybar) {
  if (ybar.size() != output_count())
    throw ConfigError("the cotangent has " + std::to_string(ybar.size()) +
                      " entries; the outputs are " + std::to_string(output_count()));
  return m_driver->gradient(m, m_steps, m_sensors.empty() ? nullptr : &ybar);
}

} // namespace python
} // namespace undertow
