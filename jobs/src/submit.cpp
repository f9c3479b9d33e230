/// `undertow submit CASE.ini [run|gradient|optimize] --walltime T [options]`: writes a Slurm or
/// PBS batch script for the command, from the template jobs/templates/batch_job.sh, into the
/// run's output directory, and submits it (sbatch, qsub); --dry-run prints it instead. The case
/// is validated first, so a bad case file is refused before anything is queued. The script
/// follows the walltime protocol (docs/clusters.md): undertow stops with its state saved and
/// exit 75 before the limit, and the job requeues itself up to --max-requeues times.

#include "command_line.hpp"
#include "commands.hpp"
#include "models.hpp"
#include "sweep.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"
#include "undertow/io/files.hpp"

#include <algorithm>
#include <array>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <unistd.h>

extern char** environ;

namespace po = boost::program_options;

namespace undertow {
namespace jobs {

/// The text of jobs/templates/batch_job.sh (generated at build time: batch_template.cpp).
extern const char* const kBatchJobTemplate;

namespace {

std::set<std::string>& start_environment() {
  static std::set<std::string> names;
  return names;
}

/// The names of the environment variables now.
std::set<std::string> environment_names() {
  std::set<std::string> names;
  for (char** v = environ; v && *v; ++v) {
    const std::string entry = *v;
    names.insert(entry.substr(0, entry.find('=')));
  }
  return names;
}

/// Removes what MPI_Init added to the environment (remember_start_environment).
void remove_mpi_runtime_environment() {
  for (const std::string& name : environment_names())
    if (!start_environment().count(name))
      ::unsetenv(name.c_str());
}

struct SubmitOptions {
  std::string case_file, command = "run", scheduler, walltime, output, partition, account, launcher;
  std::vector<std::string> overrides, directives, setup, sweeps;
  long nodes = 1, tasks_per_node = 1, cpus_per_task = 1, gpus_per_task = 0, max_requeues = 5;
  bool dry_run = false;
};

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0)
      return true;
  return false;
}

bool parse(const Communicator& comm, const std::vector<std::string>& args, SubmitOptions& o) {
  po::options_description d("Options of 'undertow submit CASE.ini [run|gradient|optimize]'");
  d.add_options()("walltime", po::value<std::string>(),
                  "the job's time limit (required): seconds, MM:SS, HH:MM:SS or D-HH:MM:SS")(
      "nodes", po::value<long>(), "nodes (default 1)")("tasks-per-node", po::value<long>(),
                                                       "MPI ranks per node (default 1)")(
      "cpus-per-task", po::value<long>(), "cores per rank (default 1)")(
      "gpus-per-task", po::value<long>(), "GPUs per rank (default 0)")(
      "partition", po::value<std::string>(),
      "partition (Slurm) or queue (PBS)")("account", po::value<std::string>(), "account to charge")(
      "directive", po::value<std::vector<std::string>>()->composing(),
      "an extra scheduler line, e.g. '--constraint=skylake' (repeatable)")(
      "setup", po::value<std::vector<std::string>>()->composing(),
      "a shell line run before undertow, e.g. 'module load petsc' (repeatable)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a case-file key: --set section.key=value (repeatable)")(
      "sweep", po::value<std::vector<std::string>>()->composing(),
      "a job array over values of a key: --sweep section.key=v1,v2,... (repeatable: every "
      "combination; Slurm), one folder per point, and a job that collects their reports")(
      "output", po::value<std::string>(), "output directory (overrides output.dir)")(
      "scheduler", po::value<std::string>(),
      "slurm or pbs (default: slurm if sbatch is found, else pbs if qsub is)")(
      "max-requeues", po::value<long>(), "how often the job may requeue itself (default 5)")(
      "launcher", po::value<std::string>(),
      "how the ranks are started (default: srun under Slurm, 'mpiexec -n RANKS' under PBS), "
      "e.g. 'srun --mpi=pmix'")("dry-run", po::bool_switch(),
                                "print the script; write and submit nothing")("help,h",
                                                                              "print this help");
  po::options_description all = d;
  all.add_options()("case", po::value<std::string>())("what", po::value<std::string>());
  po::positional_options_description positional;
  positional.add("case", 1).add("what", 1);
  po::variables_map vm;
  std::ostringstream help;
  help << d;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw ConfigError(std::string("undertow submit: ") + e.what() + "\n" + help.str());
  }
  if (vm.count("help")) {
    if (comm.is_root())
      std::cout << "usage: undertow submit CASE.ini [run|gradient|optimize] --walltime T "
                   "[options]\n"
                << d;
    return false;
  }
  if (!vm.count("case"))
    throw ConfigError("undertow submit: no case file given; usage: undertow submit CASE.ini "
                      "[run|gradient|optimize] --walltime T [options]");
  o.case_file = vm["case"].as<std::string>();
  if (vm.count("what"))
    o.command = vm["what"].as<std::string>();
  if (o.command != "run" && o.command != "gradient" && o.command != "optimize")
    throw ConfigError("undertow submit: '" + o.command +
                      "' is not a command to submit; give run, gradient or optimize");
  if (!vm.count("walltime"))
    throw ConfigError("undertow submit: --walltime is required: the job's time limit, e.g. "
                      "--walltime 23:50:00");
  o.walltime = vm["walltime"].as<std::string>();
  const auto text = [&](const char* key, std::string& out) {
    if (vm.count(key))
      out = vm[key].as<std::string>();
  };
  const auto lines = [&](const char* key, std::vector<std::string>& out) {
    if (vm.count(key))
      out = vm[key].as<std::vector<std::string>>();
  };
  const auto count = [&](const char* key, long& out, long least) {
    if (vm.count(key))
      out = vm[key].as<long>();
    if (out < least)
      throw ConfigError(std::string("undertow submit: --") + key + " = " + std::to_string(out) +
                        " must be at least " + std::to_string(least));
  };
  text("output", o.output);
  text("partition", o.partition);
  text("account", o.account);
  text("scheduler", o.scheduler);
  text("launcher", o.launcher);
  lines("set", o.overrides);
  lines("directive", o.directives);
  lines("setup", o.setup);
  lines("sweep", o.sweeps);
  count("nodes", o.nodes, 1);
  count("tasks-per-node", o.tasks_per_node, 1);
  count("cpus-per-task", o.cpus_per_task, 1);
  count("gpus-per-task", o.gpus_per_task, 0);
  count("max-requeues", o.max_requeues, 0);
  o.dry_run = vm["dry-run"].as<bool>();
  if (o.scheduler.empty())
    o.scheduler = on_path("sbatch") ? "slurm" : on_path("qsub") ? "pbs" : o.dry_run ? "slurm" : "";
  if (o.scheduler.empty())
    throw ConfigError("undertow submit: neither sbatch (Slurm) nor qsub (PBS) is on the PATH: "
                      "submit from a login node of the cluster, or give --scheduler and "
                      "--dry-run to see the script");
  if (o.scheduler != "slurm" && o.scheduler != "pbs")
    throw ConfigError("undertow submit: --scheduler " + o.scheduler + ": give slurm or pbs");
  return true;
}

/// HH:MM:SS; from a day on, Slurm's D-HH:MM:SS, or PBS's hours beyond 24 (`day_form` false).
std::string clock_text(double seconds, bool day_form) {
  const long s = static_cast<long>(std::ceil(seconds));
  char text[48];
  if (s >= 86400 && day_form)
    std::snprintf(text, sizeof text, "%ld-%02ld:%02ld:%02ld", s / 86400, s % 86400 / 3600,
                  s % 3600 / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%02ld:%02ld:%02ld", s / 3600, s % 3600 / 60, s % 60);
  return text;
}

void replace(std::string& text, const std::string& marker, const std::string& value) {
  const auto at = text.find(marker);
  if (at == std::string::npos)
    throw Error("the batch template has no " + marker);
  text.replace(at, marker.size(), value);
}

/// The batch script of `o` for the case `loaded`, its output directory `output` (absolute).
std::string batch_script(const SubmitOptions& o, const LoadedCase& loaded, const Sweep& sweep,
                         const std::string& output, const std::string& undertow, double limit) {
  // undertow stops this long before the limit: start-up, the last step, writing the state.
  const double margin = std::min(300.0, std::max(30.0, limit / 20));
  const bool slurm = o.scheduler == "slurm";
  const long ranks = o.nodes * o.tasks_per_node;
  std::string d;
  const auto directive = [&](const std::string& line) {
    d += (slurm ? "#SBATCH " : "#PBS ") + line + "\n";
  };
  if (slurm) {
    directive("--job-name=" + loaded.name);
    directive("--nodes=" + std::to_string(o.nodes));
    directive("--ntasks-per-node=" + std::to_string(o.tasks_per_node));
    directive("--cpus-per-task=" + std::to_string(o.cpus_per_task));
    if (o.gpus_per_task > 0)
      directive("--gpus-per-task=" + std::to_string(o.gpus_per_task));
    directive("--time=" + clock_text(limit, true));
    directive(format("--signal=B:USR1@%.0f", margin));
    directive("--requeue");
    directive("--open-mode=append");
    if (sweep.empty()) {
      directive("--output=" + output + "/slurm-%j.out");
    } else {
      directive("--array=0-" + std::to_string(sweep.points.size() - 1));
      directive("--output=" + output + "/slurm-%A_%a.out");
    }
    if (!o.partition.empty())
      directive("--partition=" + o.partition);
    if (!o.account.empty())
      directive("--account=" + o.account);
  } else {
    directive("-N " + loaded.name);
    directive("-l nodes=" + std::to_string(o.nodes) +
              ":ppn=" + std::to_string(o.tasks_per_node * o.cpus_per_task) +
              (o.gpus_per_task > 0 ? ":gpus=" + std::to_string(o.tasks_per_node * o.gpus_per_task)
                                   : std::string()));
    directive("-l walltime=" + clock_text(limit, false));
    directive("-j oe");
    directive("-o " + output + "/pbs.out");
    if (!o.partition.empty())
      directive("-q " + o.partition);
    if (!o.account.empty())
      directive("-A " + o.account);
  }
  for (const std::string& line : o.directives)
    d += line.rfind('#', 0) == 0 ? line + "\n"
                                 : std::string(slurm ? "#SBATCH " : "#PBS ") + line + "\n";
  d.pop_back();

  std::string arguments = set_options(o.overrides);
  if (!arguments.empty())
    arguments.erase(0, 1); // "arguments=(--set ...)" in the script, as the goldens have it
  std::string setup;
  for (const std::string& line : o.setup)
    setup += line + "\n";
  if (setup.empty())
    setup = "# (none given: --setup 'module load ...')\n";
  setup.pop_back();

  std::string script = kBatchJobTemplate;
  replace(script, "@DIRECTIVES@", d);
  replace(script, "@UNDERTOW@", shell_quoted(undertow));
  replace(script, "@COMMAND@", o.command);
  replace(script, "@CASE@", shell_quoted(std::filesystem::absolute(o.case_file).string()));
  replace(script, "@OUTPUT@", shell_quoted(output));
  replace(script, "@BUDGET@", format("%.0f", limit - margin));
  replace(script, "@MAX_REQUEUES@", std::to_string(o.max_requeues));
  replace(script, "@ARGUMENTS@", arguments);
  replace(script, "@SETUP@", setup);
  std::string points = "# (one run: no --sweep)";
  if (!sweep.empty()) {
    points = "# The sweep (points.csv): this array task's point, its values and its folder.\n"
             "point=${SLURM_ARRAY_TASK_ID:?this job is a job array: submit it with sbatch}\n"
             "case \"$point\" in\n";
    for (std::size_t i = 0; i < sweep.points.size(); ++i) {
      points += std::to_string(i) + ") arguments+=(" + set_options(sweep.overrides(i)) + " ) ;;\n";
    }
    points += "*) echo \"undertow: no point $point in this sweep\" >&2; exit 2 ;;\nesac\n"
              "output=\"$output/$(printf 'point_%03d' \"$point\")\"";
  }
  replace(script, "@SWEEP@", points);
  replace(script, "@REQUEUE_COUNT@",
          slurm ? "job_id=${SLURM_JOB_ID:-local}\nrequeues=${SLURM_RESTART_COUNT:-0}"
                : "job_id=${PBS_JOBID:-${SLURM_JOB_ID:-local}}\nrequeues=${UNDERTOW_REQUEUES:-0}");
  replace(script, "@LAUNCHER@",
          !o.launcher.empty() ? o.launcher
          : slurm             ? "srun"
                              : "mpiexec -n " + std::to_string(ranks));
  // TERM to srun or mpirun would end the job (its ranks are killed before they have saved):
  // under Slurm the ranks get TERM from scancel, which only signals; mpirun passes USR2 on,
  // which undertow answers as TERM.
  replace(script, "@STOP_RANKS@",
          slurm ? "scancel --signal=TERM \"$SLURM_JOB_ID\"" : "kill -USR2 $pid");
  replace(script, "@REQUEUE@",
          slurm ? "  scontrol requeue \"$SLURM_JOB_ID\""
                : "  qsub -v UNDERTOW_REQUEUES=$((requeues + 1)) \"$output/job.pbs\"");
  return script;
}

/// Runs `command` and returns its standard output; throws CollectiveError with it on failure.
/// It gets the environment this process started with.
std::string run_program(const std::string& command) {
  remove_mpi_runtime_environment();
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen((command + " 2>&1").c_str(), "r"), ::pclose);
  if (!pipe)
    throw CollectiveError("cannot run " + command);
  std::string out;
  std::array<char, 512> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe.get()))
    out += buffer.data();
  const int status = ::pclose(pipe.release());
  if (status != 0)
    throw CollectiveError(command + " failed: " + out);
  return out;
}

} // namespace

void remember_start_environment() {
  start_environment() = environment_names();
}

int command_submit(const Communicator& comm, const std::vector<std::string>& args) {
  SubmitOptions o;
  if (!parse(comm, args, o))
    return kSuccess;
  const double limit = parse_walltime(o.walltime);
  // The case is checked now: a bad case file is refused before anything is queued.
  const LoadedCase loaded = load_case(comm, o.case_file, o.overrides, o.output);
  const Sweep sweep = parse_sweep(o.sweeps);
  if (!sweep.empty() && o.scheduler != "slurm")
    throw ConfigError("undertow submit --sweep makes a Slurm job array; under PBS, submit one job "
                      "per point (a loop over --set and --output: docs/clusters.md)");
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    std::vector<std::string> overrides = o.overrides;
    for (const std::string& s : sweep.overrides(i))
      overrides.push_back(s);
    try {
      (void)load_case(comm, o.case_file, overrides, o.output);
    } catch (const ConfigError& e) {
      throw ConfigError("--sweep, point " + std::to_string(i) + ": " + e.what());
    }
  }
  const std::string without_restart_files = loaded.model->without_restart_files(loaded.config);
  if (o.command == "run" && !without_restart_files.empty())
    throw ConfigError("undertow submit: " + without_restart_files +
                      ", so a job cannot continue it after its time limit; run it directly, or "
                      "as a batch job of your own");
  if (limit < 60)
    throw ConfigError("undertow submit: --walltime " + o.walltime +
                      " is under a minute: a batch job needs time to start and to save its state");
  const std::string output = std::filesystem::absolute(loaded.output_dir).lexically_normal();
  const std::string undertow = std::filesystem::canonical("/proc/self/exe").string();
  const std::string script = batch_script(o, loaded, sweep, output, undertow, limit);
  run_on_root(comm, [&] {
    if (o.dry_run) {
      std::cout << script;
      return;
    }
    io::make_directories(output);
    const std::string path = output + (o.scheduler == "slurm" ? "/job.slurm" : "/job.pbs");
    io::write_file_atomic(path, script);
    if (!sweep.empty())
      io::write_file_atomic(output + "/points.csv", points_csv(sweep, o.command));
    const auto job_id = [](const std::string& answer) {
      return answer.substr(0, answer.find_first_of(";\n"));
    };
    const std::string id = job_id(run_program(
        (o.scheduler == "slurm" ? "sbatch --parsable " : "qsub ") + shell_quoted(path)));
    std::cout << "submitted " << o.command << " of " << o.case_file << " as job " << id << " ("
              << o.scheduler << "): " << path << "\n";
    if (sweep.empty()) {
      std::cout << "follow it: tail -f " << output << "/job.log " << output << "/" << o.command
                << ".log; " << (o.scheduler == "slurm" ? "squeue -j " : "qstat ") << id << "\n";
      return;
    }
    // The collect job runs once every point has ended, however it ended.
    std::string collect =
        "sbatch --parsable --dependency=afterany:" + id +
        " --job-name=collect --time=00:10:00 --output=" + shell_quoted(output + "/collect-%j.out");
    if (!o.partition.empty())
      collect += " --partition=" + shell_quoted(o.partition);
    if (!o.account.empty())
      collect += " --account=" + shell_quoted(o.account);
    collect +=
        " --wrap=" + shell_quoted(shell_quoted(undertow) + " collect " + shell_quoted(output));
    const std::string collector = job_id(run_program(collect));
    std::cout << sweep.points.size() << " points (" << output << "/points.csv), one folder each ("
              << output << "/point_000, ...); follow them: squeue -j " << id << "\n"
              << "job " << collector << " collects their reports into " << output << "/"
              << kCollectedFile << " when they have ended (or: undertow collect " << output
              << ")\n";
  });
  return kSuccess;
}

} // namespace jobs
} // namespace undertow
