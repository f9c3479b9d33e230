/// `undertow gradient CASE.ini [--taylor] [--direction SPEC] [--fd] [--restart FILE]
///  [--resume DIR] [--set k=v ...] [--output DIR] [--report FILE.json]`: J and dJ/dm of a
///  Navier-Stokes case by
/// the discrete adjoint, with optional Taylor remainder and finite-difference checks.

#include "adjoint_job.hpp"
#include "checkpoint_plan.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "models.hpp"
#include "navier_stokes_setup.hpp"
#include "restart.hpp"

#include "undertow/adjoint/parameters.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/json.hpp"
#include "undertow/io/xdmf.hpp"
#include "undertow/solvers/navier_stokes/diagnostics.hpp"

#include <boost/program_options.hpp>
#include <cmath>
#include <iostream>
#include <numeric>
#include <sstream>

namespace po = boost::program_options;

namespace undertow {
namespace jobs {

namespace {

using adjoint::Control;
using adjoint::Direction;
using adjoint::Gradient;
using adjoint::GradientDriver;
using adjoint::ScalarParameter;

struct GradientOptions {
  std::string case_file, output, report, restart, direction, resume;
  std::vector<std::string> overrides;
  bool taylor = false, fd = false;
};

po::options_description visible_options() {
  po::options_description d("Options of 'undertow gradient CASE.ini'");
  d.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                  "override a case-file key: --set section.key=value (repeatable)")(
      "output", po::value<std::string>(), "output directory (overrides output.dir)")(
      "report", po::value<std::string>(), "write J, dJ/dm and the checks to this JSON file")(
      "taylor", po::bool_switch(),
      "Taylor remainder test per parameter group (adjoint.taylor_groups); exit 1 if a rate is "
      "below adjoint.taylor_min_rate")(
      "direction", po::value<std::string>(),
      "with --taylor: test this direction instead, e.g. 'fluid.nu=1e-4,obstacle1.radius=0.01'")(
      "fd", po::bool_switch(),
      "compare every scalar derivative with central finite differences; exit 1 if one differs "
      "by more than adjoint.fd_tolerance")(
      "restart", po::value<std::string>(),
      "start from the velocity of this restart file (of the same case) instead of initial.*")(
      "resume", po::value<std::string>(),
      "continue a killed gradient run from the checkpoint file in this directory (its "
      "checkpoint.disk_dir, or output directory); same case, settings and rank count")(
      "help,h", "print this help");
  return d;
}

bool parse(const Communicator& comm, const std::vector<std::string>& args, GradientOptions& o) {
  po::variables_map vm;
  if (!parse_case_command(comm, args, "gradient",
                          "undertow gradient CASE.ini [--taylor] [--fd] [--set section.key=value "
                          "...] [--output DIR] [--report FILE.json]",
                          visible_options(), po::options_description(), vm))
    return false;
  o.case_file = vm["case"].as<std::string>();
  if (vm.count("set"))
    o.overrides = vm["set"].as<std::vector<std::string>>();
  const auto text = [&](const char* key, std::string& out) {
    if (vm.count(key))
      out = vm[key].as<std::string>();
  };
  text("output", o.output);
  text("report", o.report);
  text("restart", o.restart);
  text("direction", o.direction);
  text("resume", o.resume);
  o.taylor = vm["taylor"].as<bool>();
  o.fd = vm["fd"].as<bool>();
  if (!o.direction.empty() && !o.taylor)
    throw ConfigError("undertow gradient: --direction is the direction of --taylor; add --taylor");
  return true;
}

/// "fluid.nu=1e-4,obstacle1.radius=0.01" as a direction.
Direction parse_direction(const std::string& spec, const Control& m,
                          const std::vector<ScalarParameter>& list) {
  Direction h;
  std::string item;
  std::istringstream in(spec);
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw ConfigError("--direction: '" + item + "' is not name=value");
    const std::string name = item.substr(0, eq);
    Control probe = m;
    adjoint::parameter_value(probe, list, name); // throws naming the known parameters
    try {
      h.scalars[name] = std::stod(item.substr(eq + 1));
    } catch (const std::exception&) {
      throw ConfigError("--direction: '" + item.substr(eq + 1) + "' is not a number");
    }
  }
  if (h.scalars.empty())
    throw ConfigError("--direction is empty");
  return h;
}

/// <output>/gradient.h5 and gradient.xmf: dJ/du_initial and dJ/dchi on cells (ParaView), and
/// the raw face fields. Collective.
void write_sensitivity(const Domain& d, const Gradient& g, const std::string& dir,
                       const std::string& hash) {
  const int dim = d.dim();
  Field cells(d, Location::Cell, 1, "gradient::cells"), chi_sum(d, Location::Cell, 1, "chi");
  io::FieldFile file(d, dir + "/gradient.h5", io::FieldFile::Mode::Create);
  std::vector<std::string> names;
  for (int c = 0; c < dim; ++c) {
    navier_stokes::cell_mean_of_faces(d, g.initial[c], c, cells);
    names.push_back(std::string("dJ_du_initial_") + "xyz"[c]);
    file.write(names.back(), cells);
    navier_stokes::cell_mean_of_faces(d, g.chi[c], c, cells);
    axpy(1.0, cells, chi_sum);
  }
  names.push_back("dJ_dchi");
  file.write(names.back(), chi_sum);
  if (g.design.view().data()) {
    names.push_back("dJ_ddesign");
    file.write(names.back(), g.design);
  }
  for (int c = 0; c < dim; ++c) {
    file.write(std::string("dJ_du_initial_faces_") + "xyz"[c], g.initial[c]);
    file.write(std::string("dJ_dchi_faces_") + "xyz"[c], g.chi[c]);
  }
  file.set_attribute("undertow_version", UNDERTOW_VERSION_STRING);
  file.set_attribute("config_hash", hash);
  file.set_attribute("objective", g.objective);
  file.set_attribute("contents", "sensitivity maps: dJ/du_initial (the initial velocity before "
                                 "projection) and dJ/dchi (the Brinkman mask, summed over the "
                                 "faces' components), cell means of the face values; "
                                 "dJ_ddesign: per cell, with a design field");
  file.commit();
  const std::string xdmf = io::xdmf_time_series(io::xdmf_grid(d), names, {{0.0, "gradient.h5"}});
  run_on_root(d.comm(), [&] { io::write_file_atomic(dir + "/gradient.xmf", xdmf); });
}

} // namespace

namespace {

/// What the checks of one gradient share.
struct GradientRun {
  const Config& cfg;
  const Log& log;
  const Communicator& comm;
  GradientDriver& driver;
  const Control& m;
  const adjoint::StepSizes& dts;
  const Gradient& g;
  const std::vector<adjoint::ScalarParameter>& list;
  io::Json& report;
};

/// J, dJ/dm, the timing and the checkpointing of a gradient: in the log and the report.
/// Collective.
void report_gradient(const GradientRun& r) {
  const Gradient& g = r.g;
  const Communicator& comm = r.comm;
  io::Json& report = r.report;
  report["objective"] = g.objective;
  r.log.info(format("J = %.15e", g.objective));
  r.log.info("dJ/dm:");
  for (const auto& p : r.list) {
    const double v = adjoint::derivative_of(g, p);
    r.log.info("  " + p.name +
               std::string(std::max<std::size_t>(34, p.name.size() + 1) - p.name.size(), ' ') +
               format("% .12e", v));
    report["gradient"][p.name] = v;
  }
  double norm2 = 0;
  for (int c = 0; c < r.driver.domain().dim(); ++c)
    norm2 += global_dot(comm, g.initial[c], g.initial[c]);
  r.log.info(format("  |dJ/du_initial| (l2 over faces)     %.6e", std::sqrt(norm2)));
  report["gradient"]["initial_velocity_l2"] = std::sqrt(norm2);
  const double ratio =
      (g.forward_seconds + g.recompute_seconds + g.reverse_seconds) / g.forward_seconds;
  r.log.info(format("gradient / forward run = %.2f (forward %.2f s, ", ratio, g.forward_seconds) +
             format("recompute %.2f s, reverse %.2f s)", g.recompute_seconds, g.reverse_seconds));
  report["timing"]["forward_seconds"] = comm.max(g.forward_seconds);
  report["timing"]["reverse_seconds"] = comm.max(g.reverse_seconds);
  report["timing"]["recompute_seconds"] = comm.max(g.recompute_seconds);
  report["checkpointing"]["schedule"] = r.cfg.get_string("checkpoint.schedule");
  report["checkpointing"]["recomputed_steps"] = static_cast<double>(g.recomputed_steps);
  report["checkpointing"]["resumed_at_action"] = static_cast<double>(g.resumed_at);
  report["checkpointing"]["bytes_written"] = comm.sum(g.bytes_written);
  report["checkpointing"]["bytes_read"] = comm.sum(g.bytes_read);
  report["timing"]["checkpoint_io_seconds"] = comm.max(g.io_seconds);
  report["memory"]["checkpoint_bytes_rank0"] = g.checkpoint_bytes;
  report["timing"]["ratio"] = ratio;
  report["memory"]["tape_bytes_rank0"] = g.tape_bytes;
}

/// The directions of --taylor: the one given, or one per adjoint.taylor_groups group the case
/// has. Not collective.
std::vector<std::pair<std::string, Direction>> taylor_directions(const GradientRun& r,
                                                                 const Direction* given) {
  std::vector<std::pair<std::string, Direction>> tests;
  if (given) {
    tests.emplace_back("direction", *given);
    return tests;
  }
  const Config& cfg = r.cfg;
  const double design_scale = cfg.get_real("adjoint.design_scale") > 0
                                  ? cfg.get_real("adjoint.design_scale")
                                  : 0.1 * r.m.flow.obstacles.eta / cfg.get_real("time.t_end");
  for (const std::string& group : cfg.get_words("adjoint.taylor_groups")) {
    bool present = group == "initial" || group == "all" ||
                   (group == "design" && r.m.flow.obstacles.has_design());
    for (const auto& p : r.list)
      present = present || p.group == group;
    if (!present) {
      r.log.info("Taylor test: the case has no '" + group + "' parameter; skipped");
      continue;
    }
    tests.emplace_back(group, adjoint::random_direction(
                                  r.m, r.list, group, 0.05 * cfg.get_real("adjoint.velocity_scale"),
                                  static_cast<unsigned>(cfg.get_int("adjoint.seed")),
                                  r.driver.domain(), design_scale));
  }
  return tests;
}

/// --taylor: the remainders and rates of each direction, in the log and the report. Returns
/// kCheckFailed if a rate is below adjoint.taylor_min_rate. Collective.
int taylor_tests(const GradientRun& r, const Direction* given) {
  const Config& cfg = r.cfg;
  const double min_rate = cfg.get_real("adjoint.taylor_min_rate");
  const int halvings = static_cast<int>(cfg.get_int("adjoint.taylor_halvings"));
  int code = kSuccess;
  for (const auto& t : taylor_directions(r, given)) {
    const double eps0 = t.first == "shape" ? cfg.get_real("adjoint.taylor_shape_eps")
                                           : cfg.get_real("adjoint.taylor_eps");
    r.log.info("Taylor test, " + t.first + ":");
    const auto x =
        adjoint::taylor_test(r.driver, r.m, r.dts, r.g, t.second, eps0, halvings, r.list);
    r.log.info(format("  dJ.h = % .10e", x.dJ_h));
    for (std::size_t i = 0; i < x.eps.size(); ++i)
      r.log.info(format("  eps = %.4e  |J(m + eps h) - J(m) - eps dJ.h| = %.4e", x.eps[i],
                        x.remainder[i]) +
                 (i > 0 ? format("  rate %.3f", x.rate[i - 1]) : std::string()));
    const bool pass = x.linear || x.min_rate >= min_rate;
    r.log.info(std::string("  ") + (x.linear ? "J is linear in this direction (remainders at "
                                               "round-off): passed"
                                             : format("minimum rate %.3f: ", x.min_rate) +
                                                   (pass ? "passed" : "FAILED")));
    io::Json& j = r.report["taylor"][t.first];
    j["dJ_h"] = x.dJ_h;
    j["min_rate"] = x.min_rate;
    j["passed"] = pass;
    for (std::size_t i = 0; i < x.eps.size(); ++i) {
      j["eps"].push_back(x.eps[i]);
      j["remainder"].push_back(x.remainder[i]);
    }
    for (double rate : x.rate)
      j["rates"].push_back(rate);
    if (!pass)
      code = kCheckFailed;
  }
  return code;
}

/// --fd: every scalar parameter's adjoint derivative against extrapolated central differences.
/// Returns kCheckFailed beyond adjoint.fd_tolerance. Collective.
int finite_difference_checks(const GradientRun& r) {
  const Config& cfg = r.cfg;
  const double tol = cfg.get_real("adjoint.fd_tolerance");
  r.log.info("finite differences (central at h and h/2, Richardson-extrapolated; h = "
             "adjoint.fd_step, or adjoint.fd_shape_step for shapes, times each parameter's "
             "scale):");
  int code = kSuccess;
  for (const auto& p : r.list) {
    const double step =
        cfg.get_real(p.group == "shape" ? "adjoint.fd_shape_step" : "adjoint.fd_step") * p.scale;
    const auto result = adjoint::finite_difference(r.driver, r.m, r.dts, p, step);
    const double fd = result.value, adj = adjoint::derivative_of(r.g, p);
    const double rel = std::abs(fd - adj) / std::max(std::abs(fd), std::abs(adj));
    const bool pass = rel <= tol || (fd == 0 && adj == 0);
    r.log.info("  " + p.name +
               format(": adjoint % .12e, fd % .12e, relative difference %.2e", adj, fd, rel) +
               (pass ? "" : "  FAILED"));
    io::Json& j = r.report["fd"][p.name];
    j["adjoint"] = adj;
    j["fd"] = fd;
    j["central"] = result.central;
    j["step"] = step;
    j["relative_difference"] = rel;
    if (!pass)
      code = kCheckFailed;
  }
  return code;
}

/// The command that continues a gradient stopped by SIGTERM from the checkpoint file's record.
std::string continue_gradient(const GradientOptions& o, const Config& cfg,
                              const adjoint::Checkpointing& c, const std::string& output_dir) {
  std::vector<std::pair<std::string, std::string>> options{{"--output", output_dir}};
  if (!o.restart.empty())
    options.emplace_back("--restart", o.restart);
  if (o.taylor)
    options.emplace_back("--taylor", "");
  if (!o.direction.empty())
    options.emplace_back("--direction", o.direction);
  if (o.fd)
    options.emplace_back("--fd", "");
  if (!o.report.empty())
    options.emplace_back("--report", o.report);
  options.emplace_back("--resume", c.file.substr(0, c.file.find_last_of('/')));
  return continue_command("gradient", o.case_file, cfg, options);
}

/// The gradient; on SIGTERM, Stopped with the command that continues it. Collective.
Gradient gradient_or_stop(AdjointJob& job, const GradientOptions& o,
                          const adjoint::Checkpointing& c, const adjoint::StepSizes& dts) {
  try {
    return job.driver.gradient(job.m, dts);
  } catch (const Stopped& e) {
    if (!c.resumable()) // nothing to continue from: a failure, not a requeue
      throw CollectiveError(e.what());
    throw Stopped(std::string(e.what()) +
                  "; continue with: " + continue_gradient(o, job.config, c, job.loaded.output_dir));
  }
}

} // namespace

int command_gradient(const Communicator& comm, const std::vector<std::string>& args) {
  GradientOptions opt;
  if (!parse(comm, args, opt))
    return kSuccess;
  const LoadedCase loaded = load_case(comm, opt.case_file, opt.overrides, opt.output);
  AdjointJob job(comm, loaded, "gradient", opt.case_file, opt.restart,
                 loaded.config.get_int("output.progress_every"));
  const Config& cfg = loaded.config;
  const std::string& dir = loaded.output_dir;
  const auto list = adjoint::scalar_parameters(job.m, job.domain.dim());
  Direction given; // checked before the long runs
  if (!opt.direction.empty())
    given = parse_direction(opt.direction, job.m, list);
  const adjoint::StepSizes dts = job.driver.choose_steps(
      job.m, cfg.get_real("time.t_end"), cfg.get_real("time.dt"), cfg.get_real("time.cfl"));
  job.log.info(
      format("time steps: %.0f (frozen for every run of this gradient)", double(dts.size())));

  const long steps = static_cast<long>(dts.size());
  adjoint::Checkpointing checkpointing;
  {
    navier_stokes::NavierStokes ns(job.domain, job.m.flow);
    checkpointing = checkpointing_from(cfg, ns, steps, dir, opt.resume);
    checkpointing.watch_signals = true;
    job.driver.set_checkpointing(checkpointing);
    job.output.commit(); // --resume and the checkpoint plan are accepted
    print_plan(job.log, checkpointing, ns, steps);
  }
  // In situ: the forward sweep's steps on the [catalyst] cadence, then the reverse sweep's on
  // catalyst.every and at step 0. Catalyst's clock goes on through the reverse sweep (step
  // 2N - k, time 2T - t at step k), so that its outputs do not overwrite the forward ones; the
  // step and time of the state are in the field data adjoint_step and adjoint_time.
  InSituOutput insitu(cfg, job.domain, opt.case_file, dir,
                      insitu_metadata(cfg, opt.case_file, "gradient"), job.log);
  if (insitu.active()) {
    job.forward_insitu = &insitu;
    const double t_total = dts.total();
    job.driver.set_reverse_outputs(
        [&insitu, steps, t_total](long k, double t, const adjoint::ReverseState& r) {
          if (k != 0 && !insitu.due(k))
            return;
          insitu.execute(
              [&](io::InSituBuilder& b, long step, double time) {
                io::InSituFrame frame = adjoint_frame(b, r, step, time);
                frame.numbers["adjoint_step"] = double(k);
                frame.numbers["adjoint_time"] = t;
                return frame;
              },
              2 * steps - k, 2 * t_total - t, {{"phase", "reverse"}});
        });
  }
  const Gradient g = gradient_or_stop(job, opt, checkpointing, dts);
  if (insitu.active()) {
    job.driver.set_reverse_outputs(nullptr);
    job.forward_insitu = nullptr;
    job.log.info(insitu.summary());
  }
  print_outcome(job.log, comm, checkpointing, g, steps);
  io::Json report = io::Json::object();
  report["undertow_version"] = UNDERTOW_VERSION_STRING;
  report["case"] = loaded.name;
  report["mpi_ranks"] = comm.size();
  report["steps"] = static_cast<double>(dts.size());
  const GradientRun run{cfg, job.log, comm, job.driver, job.m, dts, g, list, report};
  report_gradient(run);
  if (cfg.get_bool("adjoint.fields")) {
    write_sensitivity(job.domain, g, dir, cfg.hash());
    job.log.info("sensitivity maps: " + dir + "/gradient.xmf");
  }
  int code = kSuccess;
  if (opt.taylor && taylor_tests(run, opt.direction.empty() ? nullptr : &given) != kSuccess)
    code = kCheckFailed;
  if (opt.fd && finite_difference_checks(run) != kSuccess)
    code = kCheckFailed;
  write_report(comm, report, dir + "/gradient.json", opt.report);
  job.log.info("report: " + dir + "/gradient.json" +
               (opt.report.empty() ? std::string() : " and " + opt.report));
  return code;
}

} // namespace jobs
} // namespace undertow
