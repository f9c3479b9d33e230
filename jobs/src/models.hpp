#pragma once
/// \file
/// The models `undertow run` can drive, chosen by `case.model`. Each declares its own config
/// sections and runs its time loop; the generic driver (run.cpp) does everything around it.

#include "undertow/core/config.hpp"
#include "undertow/core/domain.hpp"
#include "undertow/core/log.hpp"
#include "undertow/io/json.hpp"

#include <functional>
#include <string>
#include <vector>

namespace undertow {
namespace jobs {

/// What the driver hands a model. The domain is built from [domain]; `log` prints on rank 0.
struct RunContext {
  const Config& config;
  std::string case_file; ///< path of the case file, for data files named relative to it
  const Domain& domain;
  const Log& log;
  std::string output_dir;
  bool check_requested = false; ///< --check given: a model without a reference refuses early
  std::string restart_file;     ///< --restart: continue from this file (empty: start afresh)
  /// Call once the run is set up and accepted (restart loaded, inputs checked), before writing
  /// into the output folder: until then a refused run leaves the folder as it was
  /// (PendingOutput). May be empty.
  std::function<void()> accept_outputs;

  void accept() const {
    if (accept_outputs)
      accept_outputs();
  }
};

/// What a model hands back: figures for the report and the outcome of its reference check.
struct RunResult {
  io::Json figures = io::Json::object();
  bool has_reference = false; ///< the case names a reference to check against
  bool check_passed = false;  ///< meaningful when has_reference
  std::string check_summary;  ///< one line: measured against allowed
  Timers timers;
};

struct Model {
  std::string name;
  std::string description;
  void (*declare_keys)(ConfigSchema& schema);
  RunResult (*run)(const RunContext& context);
  /// A lower bound of the memory a run takes per cell [bytes] in `dim` dimensions (measured),
  /// to refuse grids that cannot fit before allocating them.
  double (*bytes_per_cell)(int dim) = nullptr;
  /// Why a run of this case writes no restart files (restart.*, on SIGUSR1/SIGTERM and
  /// --walltime) to continue from (--restart), e.g. "a static elasticity solve writes no
  /// restart files: ..."; empty if it writes them. Not collective.
  std::string (*without_restart_files)(const Config& config) = nullptr;
};

/// All registered models.
const std::vector<Model>& models();
/// The schema of a run of `model`: the run-level sections plus the model's own.
ConfigSchema schema_for(const Model& model);

/// A case file read, validated against its model's schema, with its name and output directory
/// (`output` if given, else output.dir, else runs/<name>).
struct LoadedCase {
  Config config;
  const Model* model = nullptr;
  std::string name;
  std::string output_dir;
};
/// Reads `case_file` on rank 0, broadcasts it and validates it with `overrides` (--set) applied.
/// Throws ConfigError. Collective.
LoadedCase load_case(const Communicator& comm, const std::string& case_file,
                     const std::vector<std::string>& overrides, const std::string& output);
/// The same from the case's text, the same on every rank (the Python package's cases given as
/// dicts); `case_file` names it in messages and is where relative data files are looked for.
/// Throws ConfigError. Collective.
LoadedCase load_case_text(const Communicator& comm, const std::string& text,
                          const std::string& case_file, const std::vector<std::string>& overrides,
                          const std::string& output);

/// check.l2_error_max and check.linf_error_max, for models checked against a reference
/// solution. Not collective.
void declare_error_check_keys(ConfigSchema& schema);
/// Throws ConfigError if --check was asked for and check.l2_error_max is not set. Not
/// collective.
void require_error_check(const RunContext& context);

// Models
Model advection_diffusion_model();
Model navier_stokes_model();
Model elasticity_model();

} // namespace jobs
} // namespace undertow
