#include "command_line.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/signals.hpp"
#include "undertow/io/files.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace po = boost::program_options;

namespace undertow {
namespace jobs {

double parse_walltime(const std::string& text) {
  const auto bad = [&] {
    return ConfigError("--walltime " + text +
                       ": not a time; give seconds (3600) or Slurm's MM:SS, HH:MM:SS or "
                       "D-HH:MM:SS (23:50:00)");
  };
  // D-HH[:MM[:SS]], or SS, MM:SS, HH:MM:SS
  std::string rest = text;
  double days = 0;
  const auto dash = rest.find('-');
  if (dash != std::string::npos) {
    char* end = nullptr;
    const std::string d = rest.substr(0, dash);
    days = std::strtod(d.c_str(), &end);
    if (d.empty() || *end != '\0' || !(days >= 0))
      throw bad();
    rest = rest.substr(dash + 1);
  }
  std::vector<double> parts;
  std::istringstream in(rest);
  std::string part;
  while (std::getline(in, part, ':')) {
    char* end = nullptr;
    const double v = std::strtod(part.c_str(), &end);
    if (part.empty() || *end != '\0' || !(v >= 0) || !std::isfinite(v))
      throw bad();
    parts.push_back(v);
  }
  if (parts.empty() || parts.size() > 3)
    throw bad();
  if (dash != std::string::npos) // hours first
    while (parts.size() < 3)
      parts.push_back(0);
  double seconds = 0;
  for (double v : parts)
    seconds = seconds * 60 + v;
  seconds += days * 86400;
  if (!(seconds > 0))
    throw ConfigError("--walltime " + text + ": the budget must be longer than 0 s");
  return seconds;
}

bool parse_case_command(const Communicator& comm, const std::vector<std::string>& args,
                        const std::string& command, const std::string& usage,
                        const po::options_description& visible,
                        const po::options_description& hidden, po::variables_map& vm) {
  // Every command that runs a case takes a walltime budget.
  po::options_description shown = visible;
  shown.add_options()("walltime", po::value<std::string>(),
                      "stop before this wall-clock time has passed, as SIGTERM does (state saved, "
                      "exit 75): seconds, or MM:SS, HH:MM:SS, D-HH:MM:SS as in Slurm");
  po::options_description all = shown;
  all.add(hidden);
  all.add_options()("case", po::value<std::string>(), "case file");
  po::positional_options_description positional;
  positional.add("case", 1);
  std::ostringstream help;
  help << shown;
  // The option a word names (`--name`, not `--name=value`), or null.
  const auto option = [&](const std::string& word) -> const po::option_description* {
    if (word.rfind("--", 0) != 0 || word.find('=') != std::string::npos)
      return nullptr;
    return all.find_nothrow(word.substr(2), false);
  };
  const auto takes_value = [](const po::option_description* o) {
    return o && o->semantic()->max_tokens() > 0;
  };
  // Boost takes the next word as an option's value even when it is another option
  // (`--set --output DIR`), and then reports only a stray positional argument.
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (takes_value(option(args[i])) && option(args[i + 1]))
      throw ConfigError("undertow " + command + ": option '" + args[i] +
                        "' needs a value, but the next word is the option '" + args[i + 1] + "'\n" +
                        help.str());
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::too_many_positional_options_error&) {
    std::vector<std::string> positional_words;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const po::option_description* o = option(args[i]);
      if (o)
        i += takes_value(o) ? 1 : 0; // its value
      else if (args[i].rfind("-", 0) != 0)
        positional_words.push_back(args[i]);
    }
    std::string extra;
    for (std::size_t i = 1; i < positional_words.size(); ++i)
      extra += " '" + positional_words[i] + "'";
    throw ConfigError("undertow " + command + " takes one case file ('" + positional_words.front() +
                      "'), and" + extra +
                      " is neither an option nor an option's value (a value with blanks needs "
                      "quotes); usage: " +
                      usage);
  } catch (const po::error& e) {
    throw ConfigError("undertow " + command + ": " + e.what() + "\n" + help.str());
  }
  if (vm.count("help")) {
    if (comm.is_root())
      std::cout << "usage: " << usage << "\n" << shown;
    return false;
  }
  if (vm.count("walltime"))
    set_walltime_budget(parse_walltime(vm["walltime"].as<std::string>()));
  if (!vm.count("case"))
    throw ConfigError("undertow " + command + ": no case file given; usage: " + usage);
  return true;
}

void write_report(const Communicator& comm, const io::Json& report, const std::string& path,
                  const std::string& copy) {
  run_on_root(comm, [&] {
    io::write_file_atomic(path, report.dump());
    if (!copy.empty())
      io::write_file_atomic(copy, report.dump());
  });
}

std::string shell_quoted(const std::string& word) {
  // Single quotes keep a value with blanks one word in a POSIX shell; a quote inside is '\''.
  if (!word.empty() && word.find_first_of(" \t\n'\"$`\\*?[]{}()<>|&;#~!") == std::string::npos)
    return word;
  std::string text = "'";
  for (char c : word)
    text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

std::string set_options(const std::vector<std::string>& assignments,
                        const std::function<bool(const std::string& key)>& keep) {
  std::string text;
  for (const std::string& assignment : assignments)
    if (!keep || keep(assignment.substr(0, assignment.find('='))))
      text += " --set " + shell_quoted(assignment);
  return text;
}

std::string continue_command(const std::string& command, const std::string& case_file,
                             const Config& config,
                             const std::vector<std::pair<std::string, std::string>>& options) {
  std::string text =
      "undertow " + command + " " + shell_quoted(case_file) + set_options(config.overrides());
  for (const auto& option : options)
    text += " " + option.first + (option.second.empty() ? "" : " " + shell_quoted(option.second));
  return text;
}

} // namespace jobs
} // namespace undertow
