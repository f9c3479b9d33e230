#pragma once
// What `undertow gradient` and `undertow optimize` share: a navier_stokes case, its domain, the
// log in the output directory, the parameters m of the case and a gradient driver with the
// case's objective.

#include "models.hpp"

#include "undertow/adjoint/gradient.hpp"

#include <string>

namespace undertow {
namespace jobs {

struct AdjointJob {
  /// Refuses a case of another model (ConfigError naming `command`), creates the output
  /// directory with config.ini and <command>.log, prints the header, reads m (the initial
  /// velocity of initial.* or of `restart`) and checks the objective. Collective.
  AdjointJob(const Communicator& comm, const LoadedCase& loaded, const std::string& command,
             const std::string& case_file, const std::string& restart, long progress_every);

  const LoadedCase& loaded;
  const Config& config;
  std::string case_file; ///< for data files named relative to it
  Domain domain;
  Log log;
  adjoint::Control m;
  /// Weights that replace objective.weights in the driver's objective (empty: the case's).
  std::vector<double> weights;
  adjoint::GradientDriver driver;
};

/// Replaces the objective's weights of `job` while it lives (the case's weights again after,
/// also when a run throws).
class ObjectiveWeights {
 public:
  ObjectiveWeights(AdjointJob& job, std::vector<double> weights) : m_job(job) {
    m_job.weights = std::move(weights);
  }
  ~ObjectiveWeights() { m_job.weights.clear(); }
  ObjectiveWeights(const ObjectiveWeights&) = delete;
  ObjectiveWeights& operator=(const ObjectiveWeights&) = delete;

 private:
  AdjointJob& m_job;
};

} // namespace jobs
} // namespace undertow
