#include "models.hpp"

#include "insitu_output.hpp"

#include "undertow/core/error.hpp"

namespace undertow {
namespace jobs {

const std::vector<Model>& models() {
  static const std::vector<Model> all = {advection_diffusion_model(), navier_stokes_model(),
                                         elasticity_model()};
  return all;
}

void declare_error_check_keys(ConfigSchema& s) {
  s.add("check.l2_error_max", ValueType::Real, "0",
        "--check fails if the RMS error against the reference exceeds this; 0: no reference")
      .at_least(0);
  s.add("check.linf_error_max", ValueType::Real, "0",
        "--check fails if the max error against the reference exceeds this; 0: not checked")
      .at_least(0);
}

void require_error_check(const RunContext& ctx) {
  if (ctx.check_requested && ctx.config.get_real("check.l2_error_max") <= 0)
    throw ConfigError("--check needs a reference: set check.l2_error_max in [check] of " +
                      ctx.case_file + ".");
}

ConfigSchema schema_for(const Model& model) {
  ConfigSchema s;
  std::vector<std::string> names;
  for (const auto& m : models())
    names.push_back(m.name);
  s.add("case.model", ValueType::Choice, model.name, "the model to run").one_of(names);
  s.add("case.name", ValueType::String, "", "case name for logs and reports (default: file name)");
  s.add("time.t_end", ValueType::Real, "1", "end time of the run [time]").above(0);
  s.add("time.dt", ValueType::Real, "0",
        "fixed time step [time]; 0 chooses it from time.cfl and rounds it to land on t_end")
      .at_least(0);
  s.add("time.cfl", ValueType::Real, "0.5",
        "fraction of the scheme's linear stability limit used when time.dt = 0")
      .range(1e-6, 1.0);
  s.add("output.dir", ValueType::String, "",
        "output directory (default: runs/<case name>); --output overrides it");
  s.add("output.progress_every", ValueType::Integer, "10",
        "print a progress line every this many steps (0: never); undertow optimize: in each "
        "evaluation's forward and reverse sweeps, every tenth of the steps unless given")
      .at_least(0);
  DomainSpec::declare_keys(s);
  declare_catalyst_keys(s);
  model.declare_keys(s);
  return s;
}

} // namespace jobs
} // namespace undertow
