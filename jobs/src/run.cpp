/// `undertow run CASE.ini [--set k=v ...] [--output DIR] [--check] [--report FILE.json]`

#include "command_line.hpp"
#include "commands.hpp"
#include "memory_check.hpp"
#include "models.hpp"
#include "pending_output.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/field.hpp"
#include "undertow/core/signals.hpp"
#include "undertow/core/threads.hpp"
#include "undertow/core/version.hpp"
#include "undertow/io/files.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace po = boost::program_options;

namespace undertow {
namespace jobs {

namespace {

struct RunOptions {
  std::string case_file;
  std::vector<std::string> overrides;
  std::string output;
  std::string report;
  std::string restart;
  bool check = false;
  int fail_on_rank = -1;
};

po::options_description visible_options() {
  po::options_description d("Options of 'undertow run CASE.ini'");
  d.add_options()("set", po::value<std::vector<std::string>>()->composing(),
                  "override a case-file key: --set section.key=value (repeatable)")(
      "output", po::value<std::string>(), "output directory (overrides output.dir)")(
      "check", po::bool_switch(), "compare with the case's reference; exit 1 on a mismatch")(
      "report", po::value<std::string>(), "write a JSON summary of the run to this file")(
      "restart", po::value<std::string>(),
      "continue from this restart file (written by restart.every, restart.at_step or a signal)")(
      "help,h", "print this help");
  return d;
}

/// Parses the arguments after `run`. Returns false if help was printed.
bool parse_run_options(const Communicator& comm, const std::vector<std::string>& args,
                       RunOptions& opt) {
  po::options_description hidden;
  hidden.add_options()("fail-on-rank", po::value<int>(),
                       "testing aid: throw a run error on this rank");
  po::variables_map vm;
  if (!parse_case_command(comm, args, "run",
                          "undertow run CASE.ini [--set section.key=value ...] [--output DIR] "
                          "[--check] [--report FILE.json]",
                          visible_options(), hidden, vm))
    return false;
  opt.case_file = vm["case"].as<std::string>();
  if (vm.count("set"))
    opt.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("output"))
    opt.output = vm["output"].as<std::string>();
  if (vm.count("report"))
    opt.report = vm["report"].as<std::string>();
  if (vm.count("restart"))
    opt.restart = vm["restart"].as<std::string>();
  opt.check = vm["check"].as<bool>();
  if (vm.count("fail-on-rank"))
    opt.fail_on_rank = vm["fail-on-rank"].as<int>();
  return true;
}

const Model& find_model(const std::string& name) {
  std::string names;
  for (const auto& m : models()) {
    if (m.name == name)
      return m;
    names += (names.empty() ? "" : ", ") + m.name;
  }
  throw ConfigError("case.model = '" + name +
                    "' is not a model undertow knows; choose one of: " + names + ".");
}

} // namespace

LoadedCase load_case(const Communicator& comm, const std::string& case_file,
                     const std::vector<std::string>& overrides, const std::string& output) {
  // Rank 0 reads the case file; every rank parses and validates the same text.
  std::string text;
  run_on_root(comm, [&] { text = io::read_file(case_file); });
  return load_case_text(comm, comm.broadcast(text), case_file, overrides, output);
}

LoadedCase load_case_text(const Communicator& comm, const std::string& text,
                          const std::string& case_file, const std::vector<std::string>& overrides,
                          const std::string& output) {
  const RawConfig raw = RawConfig::parse(text, case_file, overrides);
  bool sets_something = false;
  for (const auto& kv : raw.origin)
    sets_something = sets_something || kv.second == case_file;
  if (!sets_something)
    throw ConfigError("the case file '" + case_file +
                      "' sets no key (it is empty or holds only comments); a case names its "
                      "model ([case] model = ...) and that model's keys: start from a file in "
                      "cases/ (docs/configuration.md lists every key)");
  LoadedCase c;
  c.model = &find_model(raw.get_or("case.model", models().front().name));
  c.config = Config(schema_for(*c.model), raw);
  c.name = c.config.get_string("case.name").empty()
               ? std::filesystem::path(case_file).stem().string()
               : c.config.get_string("case.name");
  // The name becomes a folder under runs/: it must stay one folder there.
  if (c.name.empty() || c.name == "." || c.name == ".." ||
      c.name.find_first_of("/\\") != std::string::npos ||
      std::any_of(c.name.begin(), c.name.end(),
                  [](char ch) { return std::iscntrl(static_cast<unsigned char>(ch)) != 0; }))
    throw ConfigError("case.name = '" + c.name +
                      "' is not a plain name: it names the run's folder under runs/, so it may "
                      "hold no '/', '\\', control character, and not be '.' or '..'; use "
                      "--output to choose another folder");
  if (c.model->bytes_per_cell) {
    const Domain domain(comm, DomainSpec::from_config(c.config));
    check_memory_fits(domain, c.model->bytes_per_cell(domain.dim()), c.model->name);
  }
  c.output_dir = !output.empty()                              ? output
                 : !c.config.get_string("output.dir").empty() ? c.config.get_string("output.dir")
                                                              : "runs/" + c.name;
  return c;
}

int command_run(const Communicator& comm, const std::vector<std::string>& args) {
  const auto wall_start = std::chrono::steady_clock::now();
  RunOptions opt;
  if (!parse_run_options(comm, args, opt))
    return kSuccess;

  const LoadedCase loaded = load_case(comm, opt.case_file, opt.overrides, opt.output);
  const Config& config = loaded.config;
  const Model& model = *loaded.model;
  const std::string& case_name = loaded.name;
  const std::string& output_dir = loaded.output_dir;

  const std::string without_restart_files = model.without_restart_files(config);
  if (walltime_budget() > 0 && !without_restart_files.empty())
    throw ConfigError("--walltime stops a run with its state saved in a restart file, and " +
                      without_restart_files +
                      ": the run would be cut with nothing to continue from; run it without "
                      "--walltime");
  const Domain domain(comm, DomainSpec::from_config(config));
  Log log(comm);
  PendingOutput output(comm, output_dir);
  run_on_root(comm, [&] {
    io::write_file_atomic(output.path("config.ini"), config.to_ini());
    log.attach_file(output.path("run.log", true));
  });

  log.info(std::string("undertow ") + UNDERTOW_VERSION_STRING + ": case '" + case_name +
           "', model " + model.name + ", " + parallel_layout(comm));
  log.info("domain: " + domain.describe());
  log.info("configuration (saved to " + output_dir + "/config.ini, hash " + config.hash() + "):");
  log.info(config.describe());

  if (opt.fail_on_rank == comm.rank())
    throw Error("failure injected with --fail-on-rank " + std::to_string(opt.fail_on_rank) +
                " (testing aid)");

  const RunContext context{
      config, opt.case_file, domain, log, output_dir, opt.check, opt.restart, [&output] {
        output.commit();
      }};
  RunResult result = model.run(context);
  output.commit();

  log.info("time per phase (over ranks):");
  log.info(result.timers.report(comm));
  const double wall = seconds_since(wall_start);

  io::Json report = io::Json::object();
  report["undertow_version"] = UNDERTOW_VERSION_STRING;
  report["case"] = case_name;
  report["case_file"] = opt.case_file;
  report["model"] = model.name;
  report["config_hash"] = config.hash();
  report["mpi_ranks"] = comm.size();
  report["kokkos_execution_space"] = ExecutionSpace::name();
  report["domain"] = domain.describe();
  report["wall_seconds"] = comm.max(wall);
  report["figures"] = result.figures;
  for (const auto& kv : result.timers.all())
    report["timers_rank0_seconds"][kv.first] = kv.second;
  if (result.has_reference) {
    report["check"]["passed"] = result.check_passed;
    report["check"]["summary"] = result.check_summary;
  }
  write_report(comm, report, output_dir + "/report.json", opt.report);
  log.info("report: " + output_dir + "/report.json" +
           (opt.report.empty() ? std::string() : " and " + opt.report));

  if (!opt.check)
    return kSuccess;
  if (!result.has_reference)
    throw ConfigError("--check: case '" + case_name + "' has no reference to compare with.");
  log.info(std::string("check: ") + (result.check_passed ? "PASSED" : "FAILED") + ": " +
           result.check_summary);
  return result.check_passed ? kSuccess : kCheckFailed;
}

} // namespace jobs
} // namespace undertow
