/// \file
/// Sweeps (sweep.hpp) and `undertow collect DIR`: reads DIR/points.csv, then each point's report
/// (report.json, gradient.json or optimize.json in DIR/point_NNN) and writes DIR/sweep.csv, one
/// row per point: its number, the swept values, whether it finished, and every scalar of its
/// report (flattened, "gradient.fluid.nu"). Exits 3 if a point has no report (the row says
/// which), after writing the rest.

#include "sweep.hpp"

#include "command_line.hpp"
#include "commands.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/json.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

namespace undertow {
namespace jobs {

std::vector<std::string> Sweep::overrides(std::size_t i) const {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < keys.size(); ++k)
    out.push_back(keys[k] + "=" + points.at(i)[k]);
  return out;
}

Sweep parse_sweep(const std::vector<std::string>& options) {
  Sweep sweep;
  std::vector<std::vector<std::string>> values;
  for (const std::string& option : options) {
    const auto eq = option.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError("--sweep " + option + ": give section.key=v1,v2,...");
    const std::string key = option.substr(0, eq);
    if (std::find(sweep.keys.begin(), sweep.keys.end(), key) != sweep.keys.end())
      throw ConfigError("--sweep " + key + " is given twice: list all its values in one --sweep");
    std::vector<std::string> list;
    std::string rest = option.substr(eq + 1) + ",";
    for (std::size_t at = 0, comma; (comma = rest.find(',', at)) != std::string::npos;
         at = comma + 1) {
      const std::string v = rest.substr(at, comma - at);
      if (v.find_first_not_of(" \t") == std::string::npos)
        throw ConfigError("--sweep " + option + ": an empty value; give section.key=v1,v2,...");
      list.push_back(v);
    }
    sweep.keys.push_back(key);
    values.push_back(list);
  }
  if (sweep.keys.empty())
    return sweep;
  std::vector<std::size_t> index(values.size(), 0);
  for (;;) {
    std::vector<std::string> point;
    for (std::size_t k = 0; k < values.size(); ++k)
      point.push_back(values[k][index[k]]);
    sweep.points.push_back(point);
    std::size_t k = values.size();
    while (k > 0 && ++index[k - 1] == values[k - 1].size())
      index[--k] = 0;
    if (k == 0)
      break;
  }
  return sweep;
}

std::string point_folder(std::size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "point_%03zu", i);
  return name;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string q = "\"";
  for (char c : s)
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i)
    row += (i ? "," : "") + csv_field(fields[i]);
  return row + "\n";
}

/// The fields of one CSV line (quotes as csv_field writes them).
std::vector<std::string> csv_split(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
      out.back() += '"', ++i;
    else if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

constexpr const char* kCommandLine = "# undertow sweep of ";

} // namespace

std::string points_csv(const Sweep& sweep, const std::string& command) {
  std::vector<std::string> header{"point"};
  header.insert(header.end(), sweep.keys.begin(), sweep.keys.end());
  std::string text = kCommandLine + command + "\n" + csv_row(header);
  for (std::size_t i = 0; i < sweep.points.size(); ++i) {
    std::vector<std::string> row{std::to_string(i)};
    row.insert(row.end(), sweep.points[i].begin(), sweep.points[i].end());
    text += csv_row(row);
  }
  return text;
}

int command_collect(const Communicator& comm, const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-')
    throw ConfigError("usage: undertow collect DIR, DIR being the output directory of a sweep "
                      "(undertow submit ... --sweep), which holds points.csv");
  const std::string dir = args[0];
  const std::string points_path = dir + "/points.csv";
  if (!std::filesystem::is_regular_file(points_path))
    throw ConfigError(points_path + " is missing: give the output directory of a sweep "
                                    "(undertow submit ... --sweep writes it there)");
  std::vector<std::string> lines;
  {
    const std::string text = io::read_file(points_path);
    std::size_t at = 0;
    while (at < text.size()) {
      const auto end = text.find('\n', at);
      lines.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
      at = end == std::string::npos ? text.size() : end + 1;
    }
  }
  if (lines.size() < 2 || lines[0].rfind(kCommandLine, 0) != 0)
    throw ConfigError(points_path +
                      " is not a sweep's list of points (its first line should "
                      "be '" +
                      std::string(kCommandLine) + "COMMAND'): it was changed or is not one");
  const std::string command = lines[0].substr(std::string(kCommandLine).size());
  const std::string report = command == "run"        ? "report.json"
                             : command == "gradient" ? "gradient.json"
                                                     : "optimize.json";
  const std::vector<std::string> header = csv_split(lines[1]);

  // Every point's row: its points.csv fields, its status, its report's scalars.
  std::vector<std::string> columns;
  std::set<std::string> known;
  std::vector<std::vector<std::string>> given;
  std::vector<std::map<std::string, std::string>> values;
  std::vector<std::string> missing;
  for (std::size_t l = 2; l < lines.size(); ++l) {
    if (lines[l].empty())
      continue;
    const std::vector<std::string> fields = csv_split(lines[l]);
    if (fields.size() != header.size())
      throw ConfigError(points_path + ", line " + std::to_string(l + 1) + ": " +
                        std::to_string(fields.size()) + " fields, the header has " +
                        std::to_string(header.size()));
    given.push_back(fields);
    const std::string path =
        dir + "/" + point_folder(static_cast<std::size_t>(std::stoul(fields[0]))) + "/" + report;
    std::map<std::string, std::string> row;
    if (std::filesystem::is_regular_file(path)) {
      try {
        for (const auto& kv : io::flatten_json(io::read_file(path))) {
          row[kv.first] = kv.second;
          if (known.insert(kv.first).second)
            columns.push_back(kv.first);
        }
        row["status"] = "done";
      } catch (const Error& e) {
        row["status"] = "unreadable";
        missing.push_back(path + " (" + e.what() + ")");
      }
    } else {
      row["status"] = "missing";
      missing.push_back(path);
    }
    values.push_back(row);
  }
  std::vector<std::string> out_header = header;
  out_header.push_back("status");
  out_header.insert(out_header.end(), columns.begin(), columns.end());
  std::string text = csv_row(out_header);
  for (std::size_t p = 0; p < given.size(); ++p) {
    std::vector<std::string> row = given[p];
    row.push_back(values[p]["status"]);
    for (const std::string& c : columns)
      row.push_back(values[p].count(c) ? values[p][c] : "");
    text += csv_row(row);
  }
  const std::string out_path = dir + "/" + kCollectedFile;
  run_on_root(comm, [&] {
    io::write_file_atomic(out_path, text);
    std::cout << "collected " << given.size() - missing.size() << " of " << given.size()
              << " points of the " << command << " sweep into " << out_path << "\n";
  });
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing)
      list += "\n  " + m;
    throw CollectiveError(std::to_string(missing.size()) +
                          " point(s) of the sweep have no report " + "(their rows say so in " +
                          out_path +
                          "): their jobs have not finished or "
                          "failed; see job.log in their folders:" +
                          list);
  }
  return kSuccess;
}

} // namespace jobs
} // namespace undertow
