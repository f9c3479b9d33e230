#pragma once
// The command line of the subcommands that take a case file (`undertow run`, `undertow
// gradient`): options, the case file as the first positional argument, help and errors.

#include "undertow/core/communicator.hpp"
#include "undertow/core/config.hpp"
#include "undertow/io/json.hpp"

#include <boost/program_options.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace undertow {
namespace jobs {

/// Parses `args` of `undertow <command> CASE.ini [options]` into `vm`: the `visible` options
/// (shown by --help and with errors) and the `hidden` ones, the case file as "case". On --help,
/// rank 0 prints the usage and the options and it returns false. A bad command line, or no case
/// file, throws ConfigError that names the command and shows `usage` and the options. Every
/// command also takes --walltime (parse_walltime), which sets the walltime budget of
/// received_signal (core/signals.hpp) from now.
/// Collective (every rank parses the same arguments).
bool parse_case_command(const Communicator& comm, const std::vector<std::string>& args,
                        const std::string& command, const std::string& usage,
                        const boost::program_options::options_description& visible,
                        const boost::program_options::options_description& hidden,
                        boost::program_options::variables_map& vm);

/// Seconds of a --walltime: "3600" (seconds), "MM:SS", "HH:MM:SS" or "D-HH[:MM[:SS]]" (Slurm's
/// forms). Throws ConfigError naming the value. Not collective.
double parse_walltime(const std::string& text);

/// Writes a command's JSON report to `path` and, if `copy` is not empty, to `copy` too (--report),
/// each atomically by rank 0. Collective.
void write_report(const Communicator& comm, const io::Json& report, const std::string& path,
                  const std::string& copy);

/// `word` as one word of a POSIX shell: as it is, or single-quoted. Not collective.
std::string shell_quoted(const std::string& word);

/// The assignments (KEY=VALUE) as command-line options, " --set 'KEY=VALUE'" each (shell_quoted),
/// in their order; with `keep`, only those whose key it accepts. Not collective.
std::string set_options(const std::vector<std::string>& assignments,
                        const std::function<bool(const std::string& key)>& keep = {});

/// The command that continues a stopped job, quoted for a POSIX shell: `undertow <command>
/// CASE` with every --set of the run (Config::overrides) and then `options`, each an option and
/// its value (e.g. {"--resume", dir}; an empty value for a switch such as --fd). Not collective.
std::string continue_command(const std::string& command, const std::string& case_file,
                             const Config& config,
                             const std::vector<std::pair<std::string, std::string>>& options);

} // namespace jobs
} // namespace undertow
