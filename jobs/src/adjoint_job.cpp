#include "adjoint_job.hpp"

#include "navier_stokes_setup.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/files.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace undertow {
namespace jobs {

namespace {

/// Refuses a case without an adjoint before anything is built from it.
const LoadedCase& navier_stokes_case(const LoadedCase& loaded, const std::string& command) {
  if (loaded.model->name != "navier_stokes")
    throw ConfigError("undertow " + command + ": case.model = " + loaded.model->name +
                      " has no adjoint; " + command + " works on navier_stokes cases");
  return loaded;
}

} // namespace

AdjointJob::AdjointJob(const Communicator& comm, const LoadedCase& l, const std::string& command,
                       const std::string& file, const std::string& restart, long progress_every)
    : loaded(navier_stokes_case(l, command)), config(l.config), case_file(file),
      domain(comm, DomainSpec::from_config(l.config)), log(comm), output(comm, l.output_dir),
      driver(
          domain,
          [this](navier_stokes::NavierStokes& ns) {
            return adjoint::make_objective({config, case_file, ns});
          },
          log, progress_every) {
  run_on_root(comm, [&] {
    io::write_file_atomic(output.path("config.ini"), config.to_ini());
    log.attach_file(output.path(command + ".log", true));
  });
  log.info(std::string("undertow ") + UNDERTOW_VERSION_STRING + " " + command + ": case '" +
           loaded.name + "', " + parallel_layout(comm));
  log.info("domain: " + domain.describe());
  m = control_from_case(config, domain, restart, log, &start_time);
  driver.set_forward_outputs([this, command](Simulation& sim, navier_stokes::NavierStokes& ns) {
    if (forward_insitu)
      forward_insitu->attach(sim,
                             [&ns](io::InSituBuilder& b, long step, double time) {
                               return flow_frame(b, ns, step, time);
                             },
                             {{"phase", "forward"}});
    ++forward_sweeps;
    std::string out = loaded.output_dir;
    if (command != "gradient") {
      char sub[48];
      std::snprintf(sub, sizeof sub, "/evaluations/%04ld", forward_sweeps);
      out += sub;
    }
    if (!FlowOutputs::requested(config)) {
      // The guard makes its folder only for a diverged sweep: a trial design of optimize that
      // diverges (and is rejected) leaves its last good state in evaluations/<n>/, not beside
      // the optimisation's own files.
      guard = std::make_unique<DivergenceGuard>(ns, out, 0.0, sim.first_step(), sim.next_dt());
      guard->attach(sim, Cadence::last_step());
      return;
    }
    if (command != "gradient")
      run_on_root(ns.domain().comm(), [&] { io::make_directories(out); });
    outputs = std::make_unique<FlowOutputs>(config, ns, out, case_file,
                                            FlowOutputKinds{false, false, false}, log);
    outputs->attach(sim);
  });
  // Validate the objective before the long runs.
  navier_stokes::NavierStokes ns(domain, m.flow);
  log.info("objective: " + adjoint::make_objective({config, case_file, ns}).describe());
}

void AdjointJob::continue_evaluation_numbering(const Communicator& comm) {
  long long highest = 0;
  if (comm.is_root()) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(loaded.output_dir + "/evaluations", ec), end;
         !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      char* tail = nullptr;
      const long long n = std::strtoll(name.c_str(), &tail, 10);
      if (!name.empty() && *tail == '\0' && n > highest)
        highest = n;
    }
  }
  forward_sweeps = static_cast<long>(comm.max(highest));
}

} // namespace jobs
} // namespace undertow
