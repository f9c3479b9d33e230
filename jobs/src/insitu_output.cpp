#include "insitu_output.hpp"

#include "undertow/io/files.hpp"
#include "undertow/solvers/navier_stokes/diagnostics.hpp"

#include <cstdio>
#include <filesystem>

namespace undertow {
namespace jobs {

namespace {

/// Three cell fields of `domain` to compute a frame's arrays in.
std::array<Field, 3> scratch_cells(const Domain& domain) {
  std::array<Field, 3> cells;
  for (auto& f : cells)
    f = Field(domain, Location::Cell, 0, "insitu::cell");
  return cells;
}

} // namespace

void declare_catalyst_keys(ConfigSchema& s) {
  s.add("catalyst.scripts", ValueType::String, "",
        "ParaView Catalyst pipeline scripts (Python) run in situ, separated by commas or spaces; "
        "paths as given or relative to the case file; they write to <output>/insitu "
        "(docs/insitu.md). Empty: no in-situ visualisation");
  s.add("catalyst.every", ValueType::Integer, "0",
        "run the pipelines every this many steps (design iterations in optimize), at the start "
        "and at the last step; 0: only catalyst.interval")
      .at_least(0);
  s.add("catalyst.interval", ValueType::Real, "0",
        "run the pipelines at the first step at or past each multiple of this simulated time "
        "[time]; 0: only catalyst.every")
      .at_least(0);
}

InSituOutput::InSituOutput(const Config& cfg, const Domain& domain, const std::string& case_file,
                           const std::string& output_dir,
                           std::map<std::string, std::string> metadata, const Log& log)
    : m_log(log), m_metadata(std::move(metadata)), m_every(cfg.get_int("catalyst.every")),
      m_interval(cfg.get_real("catalyst.interval")) {
  const std::vector<std::string> scripts = cfg.get_words("catalyst.scripts");
  if (scripts.empty()) {
    if (m_every > 0 || m_interval > 0)
      throw ConfigError("catalyst.every/catalyst.interval are set but catalyst.scripts is empty: "
                        "name the pipeline scripts to run (docs/insitu.md), or remove [catalyst]");
    return;
  }
  if (m_every == 0 && m_interval == 0)
    throw ConfigError("catalyst.scripts is set but neither catalyst.every nor "
                      "catalyst.interval: say how often the pipelines run");
  io::InSituOptions options;
  for (const auto& s : scripts)
    options.scripts.push_back(io::path_near_case(case_file, s));
  options.output_dir = output_dir + "/insitu";
  m_insitu = std::make_unique<io::InSitu>(domain.comm(), options);
  m_builder = std::make_unique<io::InSituBuilder>(domain);
  std::string cadence = m_every > 0 ? "every " + std::to_string(m_every) + " steps" : "";
  if (m_interval > 0) {
    char text[64];
    std::snprintf(text, sizeof text, "%severy %g time units", cadence.empty() ? "" : ", ",
                  m_interval);
    cadence += text;
  }
  log.info("in situ: " + m_insitu->backend_name() + ", " + std::to_string(scripts.size()) +
           " pipeline script(s), " + cadence + ", into " + options.output_dir);
}

InSituOutput::~InSituOutput() = default;

void InSituOutput::execute(const FrameMaker& make, long step, double time,
                           const std::map<std::string, std::string>& extra) {
  if (!m_insitu)
    return;
  io::InSituFrame frame = make(*m_builder, step, time);
  for (const auto& [key, value] : m_metadata)
    frame.metadata.emplace(key, value);
  for (const auto& [key, value] : extra)
    frame.metadata[key] = value;
  m_insitu->execute(frame);
}

void InSituOutput::attach(Simulation& sim, FrameMaker make,
                          const std::map<std::string, std::string>& extra) {
  if (!m_insitu)
    return;
  execute(make, sim.step(), sim.time(), extra);
  sim.add_callback("in situ",
                   Cadence::steps(m_every) | Cadence::interval(m_interval) | Cadence::last_step(),
                   [this, make = std::move(make), extra](Simulation& s) {
                     execute(make, s.step(), s.time(), extra);
                   });
}

bool InSituOutput::due(long step) const {
  return m_insitu && m_every > 0 && step % m_every == 0;
}

std::string InSituOutput::summary() const {
  if (!m_insitu)
    return "";
  char text[200];
  std::snprintf(text, sizeof text,
                "in situ: %ld pipeline calls, %.2f s on rank 0 (the first, which sets the "
                "pipelines up, %.2f s)",
                m_insitu->calls(), m_insitu->seconds(), m_insitu->first_seconds());
  return text;
}

std::map<std::string, std::string> insitu_metadata(const Config& cfg, const std::string& case_file,
                                                   const std::string& job) {
  return {{"job", job},
          {"model", cfg.get_string("case.model")},
          {"case_file", case_file},
          {"config_hash", cfg.hash()}};
}

io::InSituFrame flow_frame(io::InSituBuilder& builder, navier_stokes::NavierStokes& ns, long step,
                           double time) {
  const Domain& d = ns.domain();
  const int dim = d.dim();
  io::InSituFrame frame = builder.begin(step, time);
  std::array<Field, 3> cell = scratch_cells(d);
  std::vector<const Field*> parts;
  for (int c = 0; c < dim; ++c) {
    navier_stokes::cell_velocity(ns, c, cell[c]);
    parts.push_back(&cell[c]);
  }
  builder.cell(frame, "velocity", parts);
  builder.cell(frame, "pressure", {&ns.pressure()});
  parts.clear();
  for (int a = dim == 2 ? 2 : 0; a < 3; ++a) {
    navier_stokes::cell_vorticity(ns, a, cell[a]);
    parts.push_back(&cell[a]);
  }
  builder.cell(frame, "vorticity", parts);
  builder.maximum(frame, "velocity");
  builder.maximum(frame, "vorticity");
  if (dim == 3) {
    navier_stokes::cell_q_criterion(ns, cell[0]);
    builder.cell(frame, "q_criterion", {&cell[0]});
    builder.maximum(frame, "q_criterion");
  }
  navier_stokes::cell_mask(ns, cell[0]);
  builder.cell(frame, "mask", {&cell[0]});
  if (ns.params().obstacles.has_design()) {
    navier_stokes::cell_design(ns, cell[0]);
    builder.cell(frame, "design", {&cell[0]});
  }
  frame.metadata["units"] = "lengths m, time s, velocity m/s, pressure m^2/s^2 (kinematic), "
                            "vorticity 1/s, q_criterion 1/s^2, mask and design 1 in solids";
  return frame;
}

io::InSituFrame adjoint_frame(io::InSituBuilder& builder, const adjoint::ReverseState& state,
                              long step, double time) {
  const Domain& d = state.ns.domain();
  const int dim = d.dim();
  io::InSituFrame frame = builder.begin(step, time);
  std::array<Field, 3> cell = scratch_cells(d);
  std::vector<const Field*> parts;
  for (int c = 0; c < dim; ++c) {
    navier_stokes::cell_mean_of_faces(d, state.lambda[c], c, cell[c]);
    parts.push_back(&cell[c]);
  }
  builder.cell(frame, "adjoint_velocity", parts);
  builder.maximum(frame, "adjoint_velocity");
  Field sensitivity(d, Location::Cell, 0, "insitu::sensitivity");
  for (int c = 0; c < dim; ++c) {
    navier_stokes::cell_mean_of_faces(d, state.chi_gradient[c], c, cell[0]);
    axpy(1.0, cell[0], sensitivity);
  }
  builder.cell(frame, "sensitivity_chi", {&sensitivity});
  builder.maximum(frame, "sensitivity_chi");
  navier_stokes::cell_mask(state.ns, cell[0]);
  builder.cell(frame, "mask", {&cell[0]});
  frame.metadata["units"] = "adjoint velocity: J per unit velocity per face; sensitivity_chi: J "
                            "per unit mask, summed over the steps reversed so far";
  return frame;
}

} // namespace jobs
} // namespace undertow
