#include "undertow/core/config.hpp"
#include "undertow/core/hash.hpp"

#include "undertow/core/error.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>

namespace po = boost::program_options;

namespace undertow {

std::vector<std::string> value_words(const std::string& s) {
  std::vector<std::string> out;
  std::string current;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == ',') {
      if (!current.empty())
        out.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty())
    out.push_back(current);
  return out;
}

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos)
    return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool parse_integer(const std::string& s, long& out) {
  if (s.empty())
    return false;
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || end != s.c_str() + s.size())
    return false;
  out = v;
  return true;
}

bool parse_real(const std::string& s, double& out) {
  if (s.empty())
    return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

bool parse_bool(const std::string& s, bool& out) {
  std::string l = s;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  if (l == "true" || l == "1" || l == "yes" || l == "on") {
    out = true;
    return true;
  }
  if (l == "false" || l == "0" || l == "no" || l == "off") {
    out = false;
    return true;
  }
  return false;
}

std::string type_name(ValueType t) {
  switch (t) {
  case ValueType::Integer:
    return "integer";
  case ValueType::Real:
    return "real";
  case ValueType::Boolean:
    return "boolean";
  case ValueType::String:
    return "string";
  case ValueType::Choice:
    return "choice";
  case ValueType::IntegerList:
    return "integer list";
  case ValueType::RealList:
    return "real list";
  case ValueType::BooleanList:
    return "boolean list";
  }
  return "?";
}

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string section_of(const std::string& key) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Only suggest something plausibly meant: within about a third of the word's length.
  if (best_distance <= std::max<std::size_t>(2, word.size() / 3))
    return best;
  return "";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? sep : "") + items[i];
  return out;
}

/// Checks one scalar token against the spec; returns an empty string or the reason it fails.
std::string check_scalar(const KeySpec& spec, ValueType scalar, const std::string& token) {
  if (scalar == ValueType::Boolean) {
    bool b;
    return parse_bool(token, b) ? "" : "'" + token + "' is not a boolean (true/false)";
  }
  double value = 0;
  if (scalar == ValueType::Integer) {
    long v;
    if (!parse_integer(token, v))
      return "'" + token + "' is not an integer";
    value = double(v);
  } else {
    if (!parse_real(token, value))
      return "'" + token + "' is not a finite real number";
  }
  const bool below = spec.min_exclusive ? !(value > spec.min) : !(value >= spec.min);
  if (below || value > spec.max)
    return token + " is out of range";
  return "";
}

} // namespace

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string KeySpec::allowed() const {
  std::string bound;
  const bool has_min = std::isfinite(min), has_max = std::isfinite(max);
  if (has_min && has_max)
    bound = std::string(min_exclusive ? " > " : " in [") + format_number(min) +
            (min_exclusive ? " and <= " + format_number(max) : ", " + format_number(max) + "]");
  else if (has_min)
    bound = (min_exclusive ? " > " : " >= ") + format_number(min);
  else if (has_max)
    bound = " <= " + format_number(max);
  const std::string count = min_items == max_items
                                ? std::to_string(min_items)
                                : std::to_string(min_items) + " to " + std::to_string(max_items);
  switch (type) {
  case ValueType::Integer:
    return "an integer" + bound;
  case ValueType::Real:
    return "a real number" + bound;
  case ValueType::Boolean:
    return "true or false";
  case ValueType::String:
    return "any text";
  case ValueType::Choice:
    return "one of: " + join(choices, ", ");
  case ValueType::IntegerList:
    return count + " integers" + bound;
  case ValueType::RealList:
    return count + " real numbers" + bound;
  case ValueType::BooleanList:
    return count + " booleans (true/false)";
  }
  return "";
}

KeySpec& ConfigSchema::add(const std::string& key, ValueType type, const std::string& default_value,
                           const std::string& description) {
  require(section_of(key).size() > 0, "config key '" + key + "' has no section");
  require(m_keys.count(key) == 0, "config key '" + key + "' declared twice");
  KeySpec& spec = m_keys[key];
  spec.key = key;
  spec.type = type;
  spec.default_value = default_value;
  spec.description = description;
  return spec;
}

const KeySpec* ConfigSchema::find(const std::string& key) const {
  const auto it = m_keys.find(key);
  return it == m_keys.end() ? nullptr : &it->second;
}

std::vector<std::string> ConfigSchema::sections() const {
  std::set<std::string> s;
  for (const auto& kv : m_keys)
    s.insert(section_of(kv.first));
  return {s.begin(), s.end()};
}

std::string ConfigSchema::markdown() const {
  std::ostringstream out;
  for (const auto& section : sections()) {
    out << "### [" << section << "]\n\n";
    out << "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
    for (const auto& kv : m_keys) {
      if (section_of(kv.first) != section)
        continue;
      const KeySpec& k = kv.second;
      const std::string def = k.required                ? "(required)"
                              : k.default_value.empty() ? "(empty)"
                                                        : "`" + k.default_value + "`";
      out << "| `" << k.key << "` | " << type_name(k.type) << " | " << def << " | " << k.allowed()
          << " | " << k.description << " |\n";
    }
    out << "\n";
  }
  return out.str();
}

RawConfig RawConfig::parse(const std::string& ini_text, const std::string& source,
                           const std::vector<std::string>& overrides) {
  RawConfig raw;
  // Editors write a UTF-8 byte-order mark, Windows CR LF and old Macs CR alone: read them all
  // as plain lines.
  std::string text = ini_text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? ini_text.substr(3) : ini_text;
  std::string lines;
  lines.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r')
      lines += text[i];
    else if (i + 1 >= text.size() || text[i + 1] != '\n')
      lines += '\n';
  }
  // What boost's reader would pass over or misreport, named by its line.
  std::istringstream scan(lines);
  std::string line;
  for (long number = 1; std::getline(scan, line); ++number) {
    const std::string where = source + " line " + std::to_string(number);
    if (line.find('\0') != std::string::npos)
      throw ConfigError(where + " holds a NUL character: the file is binary or UTF-16, not a "
                                "text case file; save it as plain text (ASCII or UTF-8)");
    const std::string t = trim(line);
    if (t.size() >= 2 && t.front() == '[' && t.back() == ']' &&
        trim(t.substr(1, t.size() - 2)).empty())
      throw ConfigError(where + ": '" + t +
                        "' is a section header without a name; write "
                        "[section], e.g. [time]");
  }
  std::istringstream in(lines);
  po::options_description none;
  po::parsed_options parsed(&none);
  try {
    parsed = po::parse_config_file(in, none, /*allow_unregistered=*/true);
  } catch (const po::error& e) {
    throw ConfigError(source + ": cannot parse the case file: " + e.what() +
                      ". Expected [section] headers and 'key = value' lines.");
  }
  for (const auto& option : parsed.options) {
    const std::string key = option.string_key;
    if (section_of(key).empty())
      throw ConfigError(source + ": key '" + key +
                        "' is outside any [section]; put it under its section header.");
    if (raw.values.count(key))
      throw ConfigError(source + ": key '" + key + "' is given twice; keep one of them.");
    raw.values[key] = option.value.empty() ? "" : trim(option.value.front());
    raw.origin[key] = source;
  }
  for (const auto& assignment : overrides) {
    const auto eq = assignment.find('=');
    const std::string key = eq == std::string::npos ? "" : trim(assignment.substr(0, eq));
    if (eq == std::string::npos || section_of(key).empty() || key.back() == '.')
      throw ConfigError("--set expects section.key=value (e.g. --set time.dt=1e-3), got '" +
                        assignment + "'.");
    raw.values[key] = trim(assignment.substr(eq + 1));
    raw.origin[key] = "--set";
  }
  return raw;
}

std::string RawConfig::get_or(const std::string& key, const std::string& fallback) const {
  const auto it = values.find(key);
  return it == values.end() ? fallback : it->second;
}

Config::Config(const ConfigSchema& schema, const RawConfig& raw) {
  const std::vector<std::string> sections = schema.sections();
  for (const auto& kv : raw.values) {
    const std::string& key = kv.first;
    if (schema.find(key))
      continue;
    const std::string where = raw.origin.at(key);
    const std::string section = section_of(key);
    if (std::find(sections.begin(), sections.end(), section) == sections.end()) {
      const std::string guess = nearest(section, sections);
      throw ConfigError(where + ": unknown section [" + section + "] (key '" + key + "')" +
                        (guess.empty() ? "" : "; did you mean [" + guess + "]?") +
                        " Valid sections: " + join(sections, ", ") + ".");
    }
    std::vector<std::string> in_section, all;
    for (const auto& s : schema.keys()) {
      all.push_back(s.first);
      if (section_of(s.first) == section)
        in_section.push_back(s.first.substr(section.size() + 1));
    }
    const std::string guess = nearest(key, all);
    throw ConfigError(where + ": unknown key '" + key + "'" +
                      (guess.empty() ? "" : "; did you mean '" + guess + "'?") +
                      " Valid keys in [" + section + "]: " + join(in_section, ", ") + ".");
  }

  for (const auto& kv : schema.keys()) {
    const KeySpec& spec = kv.second;
    const auto given = raw.values.find(spec.key);
    if (given == raw.values.end() && spec.required)
      throw ConfigError("missing required key '" + spec.key + "' (" + spec.description +
                        "): add it under [" + section_of(spec.key) + "], expected " +
                        spec.allowed() + ".");
    const std::string value = given != raw.values.end() ? given->second : spec.default_value;
    const std::string where = given != raw.values.end() ? raw.origin.at(spec.key) : "default";

    std::string problem;
    switch (spec.type) {
    case ValueType::String:
      break;
    case ValueType::Choice:
      if (std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end())
        problem = "'" + value + "' is not allowed";
      break;
    case ValueType::Integer:
    case ValueType::Real:
    case ValueType::Boolean: {
      problem = check_scalar(spec, spec.type, value);
      break;
    }
    case ValueType::IntegerList:
    case ValueType::RealList:
    case ValueType::BooleanList: {
      const auto items = value_words(value);
      const int n = static_cast<int>(items.size());
      if (n < spec.min_items || n > spec.max_items) {
        problem = "'" + value + "' has " + std::to_string(n) + " item(s)";
        break;
      }
      const ValueType scalar = spec.type == ValueType::IntegerList ? ValueType::Integer
                               : spec.type == ValueType::RealList  ? ValueType::Real
                                                                   : ValueType::Boolean;
      for (const auto& item : items) {
        problem = check_scalar(spec, scalar, item);
        if (!problem.empty())
          break;
      }
      break;
    }
    }
    if (!problem.empty())
      throw ConfigError(where + ": bad value for '" + spec.key + "' = '" + value + "': " + problem +
                        ". Allowed: " + spec.allowed() + " (" + spec.description + ").");
    m_values[spec.key] = value;
    m_origin[spec.key] = where;
    m_types[spec.key] = spec.type;
  }
}

const std::string& Config::text(const std::string& key, ValueType expected) const {
  const auto it = m_values.find(key);
  require(it != m_values.end(), "internal: configuration key '" + key + "' was never declared");
  require(m_types.at(key) == expected ||
              (expected == ValueType::String && m_types.at(key) == ValueType::Choice),
          "internal: configuration key '" + key + "' read as " + type_name(expected) +
              " but declared as " + type_name(m_types.at(key)));
  return it->second;
}

long Config::get_int(const std::string& key) const {
  long v = 0;
  parse_integer(text(key, ValueType::Integer), v);
  return v;
}
double Config::get_real(const std::string& key) const {
  double v = 0;
  parse_real(text(key, ValueType::Real), v);
  return v;
}
bool Config::get_bool(const std::string& key) const {
  bool v = false;
  parse_bool(text(key, ValueType::Boolean), v);
  return v;
}
std::string Config::get_string(const std::string& key) const {
  return text(key, ValueType::String);
}
std::vector<std::string> Config::get_words(const std::string& key) const {
  return value_words(get_string(key));
}
namespace {
/// Parses each token of an already validated list with `parse`.
template <class T, class Parse>
std::vector<T> parse_list(const std::string& text, Parse parse) {
  std::vector<T> out;
  for (const auto& t : value_words(text)) {
    T v{};
    parse(t, v);
    out.push_back(v);
  }
  return out;
}
} // namespace

std::vector<long> Config::get_int_list(const std::string& key) const {
  return parse_list<long>(text(key, ValueType::IntegerList), parse_integer);
}
std::vector<double> Config::get_real_list(const std::string& key) const {
  return parse_list<double>(text(key, ValueType::RealList), parse_real);
}
std::vector<bool> Config::get_bool_list(const std::string& key) const {
  return parse_list<bool>(text(key, ValueType::BooleanList), parse_bool);
}

bool Config::is_given(const std::string& key) const {
  const auto it = m_origin.find(key);
  return it != m_origin.end() && it->second != "default";
}

std::string Config::to_ini() const {
  // Keys the user gave are active; defaults are written as comments, so that the file reruns
  // the same configuration without pinning values the user never chose.
  std::ostringstream out;
  std::string current;
  for (const auto& kv : m_values) {
    const std::string section = section_of(kv.first);
    if (section != current) {
      out << (current.empty() ? "" : "\n") << "[" << section << "]\n";
      current = section;
    }
    const bool given = m_origin.at(kv.first) != "default";
    out << (given ? "" : "# ") << kv.first.substr(section.size() + 1) << " = " << kv.second
        << (given ? "" : "   (default)") << "\n";
  }
  return out.str();
}

std::string Config::describe() const {
  std::ostringstream out;
  for (const auto& kv : m_values)
    out << "  " << kv.first << " = " << kv.second << "   (" << m_origin.at(kv.first) << ")\n";
  return out.str();
}

std::vector<std::string> Config::overrides() const {
  std::vector<std::string> out;
  for (const auto& kv : m_origin)
    if (kv.second == "--set")
      out.push_back(kv.first + "=" + m_values.at(kv.first));
  return out;
}

std::string Config::hash() const {
  return hash([](const std::string&) { return true; });
}

std::string Config::hash(const std::function<bool(const std::string& key)>& counts) const {
  std::string canonical;
  for (const auto& kv : m_values)
    if (counts(kv.first))
      canonical += kv.first + "=" + kv.second + "\n";
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(canonical)));
  return buf;
}

} // namespace undertow
