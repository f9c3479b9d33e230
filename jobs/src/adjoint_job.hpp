#pragma once
// What `undertow gradient` and `undertow optimize` share: a navier_stokes case, its domain, the
// log in the output directory, the parameters m of the case and a gradient driver with the
// case's objective.

#include "flow_outputs.hpp"
#include "insitu_output.hpp"
#include "models.hpp"
#include "pending_output.hpp"

#include "undertow/adjoint/gradient.hpp"

#include <memory>
#include <string>

namespace undertow {
namespace jobs {

struct AdjointJob {
  /// Refuses a case of another model (ConfigError naming `command`), creates the output
  /// directory with config.ini and <command>.log (pending until output.commit()), prints the
  /// header, reads m (the initial velocity of initial.* or of `restart`) and checks the objective.
  /// Collective.
  AdjointJob(const Communicator& comm, const LoadedCase& loaded, const std::string& command,
             const std::string& case_file, const std::string& restart, long progress_every);

  const LoadedCase& loaded;
  const Config& config;
  std::string case_file; ///< for data files named relative to it
  Domain domain;
  Log log;
  /// config.ini and <command>.log stay pending until the command calls output.commit(), once
  /// it has checked what it was given (--resume, --restart): a refused command changes nothing.
  PendingOutput output;
  adjoint::Control m;
  /// The restart file's time [s] (0 without one). Times of the gradient count from the
  /// restart's state (t = 0 there), while `run --restart` continues the file's clock.
  double start_time = 0;
  adjoint::GradientDriver driver;
  /// The outputs the case asks of a flow ([fields], [diagnostics], [restart]) of the forward
  /// sweep of each gradient: into the output directory for `gradient`, into
  /// evaluations/<n>/ for the n-th forward sweep of `optimize`.
  std::unique_ptr<FlowOutputs> outputs;
  /// Without those outputs, the divergence guard alone watches the forward sweep (a diverged
  /// run stops at the check after it, with last_good_state.h5 in the same directory as the
  /// outputs would be: the output directory, or evaluations/<n>/).
  std::unique_ptr<DivergenceGuard> guard;
  /// Forward sweeps run so far; the n-th writes evaluations/<n>/ (optimize).
  long forward_sweeps = 0;
  /// For `optimize --resume`: the next forward sweep is numbered after the highest
  /// evaluations/<n>/ already in the output directory, so that a continued optimisation adds
  /// folders instead of writing over those of the interrupted run. Collective.
  void continue_evaluation_numbering(const Communicator& comm);
  /// In-situ pipelines that see every step of the forward sweep of a gradient (set by
  /// `gradient`; `optimize` hands them the flow of its design iterations instead).
  InSituOutput* forward_insitu = nullptr;
};

} // namespace jobs
} // namespace undertow
