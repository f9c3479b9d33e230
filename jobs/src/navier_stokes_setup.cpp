#include "navier_stokes_setup.hpp"
#include "restart.hpp"

#include "checkpoint_plan.hpp"
#include "initial_velocity.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/solvers/navier_stokes/flow_keys.hpp"

#include <cstdlib>

#include <cmath>

namespace undertow {
namespace jobs {

using navier_stokes::NavierStokesParams;
using navier_stokes::VelocityFunction;

void declare_adjoint_keys(ConfigSchema& s) {
  declare_checkpoint_keys(s);
  s.add("adjoint.fields", ValueType::Boolean, "true",
        "undertow gradient: write the sensitivity maps (dJ/du_initial, dJ/dchi) to "
        "<output>/gradient.h5 and gradient.xmf");
  s.add("adjoint.taylor_groups", ValueType::String,
        "nu body_force boundary control shape initial design",
        "undertow gradient --taylor: the parameter groups tested one at a time (nu, body_force, "
        "boundary, control, shape, initial, design, all); groups the case does not have are "
        "skipped");
  s.add("adjoint.taylor_eps", ValueType::Real, "0.5",
        "undertow gradient --taylor (and optimize --taylor of a control design): the first eps, "
        "as a fraction of each parameter's typical change (10% of its value, 0.1 for a control "
        "signal's coefficient: eps = 0.5 changes it by up to 5%; the initial-field direction "
        "has amplitude 0.05 * adjoint.velocity_scale)")
      .above(0);
  s.add("adjoint.taylor_shape_eps", ValueType::Real, "0.002",
        "undertow gradient --taylor: the first eps of the shape group (smaller: with a stiff "
        "penalty J varies on a fraction of a cell, and the mask is C^1 in the shape, so the "
        "remainder is second order once few faces cross the edge of the smoothed band)")
      .above(0);
  s.add("adjoint.taylor_halvings", ValueType::Integer, "4",
        "undertow gradient --taylor: how many times eps is halved")
      .at_least(4);
  s.add("adjoint.taylor_min_rate", ValueType::Real, "1.9",
        "undertow gradient --taylor exits with 1 if a group's smallest observed rate is below "
        "this")
      .above(0);
  s.add("adjoint.fd_step", ValueType::Real, "0.1",
        "undertow gradient --fd: the step h of the central differences (at h and h/2, "
        "Richardson-extrapolated), relative to each parameter's typical change")
      .above(0);
  s.add("adjoint.fd_shape_step", ValueType::Real, "1e-4",
        "undertow gradient --fd: the step of the shape parameters (smaller: with a stiff "
        "penalty, obstacles.eta << dt, J varies on a fraction of a cell)")
      .above(0);
  s.add("adjoint.fd_tolerance", ValueType::Real, "1e-6",
        "undertow gradient --fd exits with 1 if a relative difference exceeds this")
      .above(0);
  s.add("adjoint.velocity_scale", ValueType::Real, "1",
        "velocity scale of the random initial-field direction of --taylor [m/s]")
      .above(0);
  s.add("adjoint.design_scale", ValueType::Real, "0",
        "undertow gradient --taylor: amplitude of the random (non-negative) design-field "
        "direction; 0: 0.1 obstacles.eta / time.t_end, which brakes the flow by about 10% over "
        "the run (larger ones see the penalty's strong nonlinearity, not its derivative)")
      .at_least(0);
  s.add("adjoint.seed", ValueType::Integer, "1", "seed of the random Taylor directions")
      .at_least(0);
}

NavierStokesParams flow_parameters(const Config& cfg, const Domain& domain) {
  NavierStokesParams params = navier_stokes::flow_parameters(cfg, domain);
  const std::string design = cfg.get_string("obstacles.design");
  if (!design.empty()) {
    Field rho(domain, Location::Cell, 1, "design");
    char* end = nullptr;
    const double value = std::strtod(design.c_str(), &end);
    if (end && *end == '\0') {
      fill_value(rho, rho.owned(), value);
    } else {
      try {
        const io::FieldFile file(domain, design, io::FieldFile::Mode::Read);
        file.read("design", rho);
      } catch (const std::exception& e) {
        throw ConfigError("obstacles.design = " + design + ": " + e.what() +
                          " Give a number for a uniform design field, or an HDF5 file with the "
                          "cell dataset 'design' on this grid.");
      }
    }
    params.obstacles.design = rho;
  }
  return params;
}

std::string feedback_summary(const NavierStokesParams& params) {
  if (!params.policy.active())
    return "";
  std::string out = "feedback policy: " + params.policy.describe() + ", " +
                    std::to_string(params.sensors.size()) + " sensors, driving";
  for (const auto& a : params.actuators)
    out += " " + a.name();
  return out;
}

adjoint::Control control_from_case(const Config& cfg, const Domain& domain,
                                   const std::string& restart, const Log& log, double* start_time) {
  adjoint::Control m;
  m.flow = flow_parameters(cfg, domain);
  if (m.flow.policy.active())
    log.info(feedback_summary(m.flow));
  if (cfg.get_real("pressure.atol") > 0.0)
    throw ConfigError(format("pressure.atol = %.3g stops the pressure solves at an absolute "
                             "residual, which the adjoint's transposed solves would share in "
                             "other units: gradients need the relative tolerance alone. Set "
                             "pressure.atol = 0 (pressure.rtol sets their accuracy)",
                             cfg.get_real("pressure.atol")));
  if (m.flow.pressure.rtol > 1e-11)
    log.info(format("note: pressure.rtol = %.1e; gradients are only as accurate as the pressure "
                    "solves: set pressure.rtol = 1e-12 for finite-difference agreement to 6 "
                    "digits",
                    m.flow.pressure.rtol));
  navier_stokes::NavierStokes ns(domain, m.flow);
  if (!restart.empty()) {
    const long step = read_restart(restart, ns, domain, cfg);
    log.info(
        "initial velocity from " + restart +
        format(" (step %.0f, t = %.6e); times below count from there", double(step), ns.time()));
    if (start_time)
      *start_time = ns.time();
    // The pressure and psi of the file too: a run from it then starts as `run --restart` does.
    for (const auto& named : ns.state_fields())
      if (named.first != "u" && named.first != "v" && named.first != "w") {
        m.initial_state.emplace_back(named.first,
                                     Field(named.second->layout(), "initial_" + named.first));
        copy(*named.second, m.initial_state.back().second);
      }
    m.initial_psi_scale = ns.psi_scale();
  } else {
    bool exact = false;
    navier_stokes::set_velocity(ns, initial_velocity(cfg, domain, m.flow.nu, exact, log), 0.0);
    if (cfg.get_string("initial.type") == "file")
      ns.project_initial(); // interpolated from another grid: not divergence-free on this one
  }
  m.initial = ns.make_velocity("initial");
  for (int c = 0; c < domain.dim(); ++c)
    copy(ns.velocity(c), m.initial[c]);
  return m;
}

} // namespace jobs
} // namespace undertow
