#pragma once
/// \file
/// Case configuration: INI files parsed with Boost.Program_options, `--set section.key=value`
/// overrides, and a schema that every component fills with its own keys. Validation is strict:
/// an unknown section or key, a value of the wrong type or out of range, or a key given twice
/// throws ConfigError naming the key, the value and what is allowed.

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace undertow {

/// The words of a configuration value, split at blanks, tabs and commas ("32 32" and "32,32"
/// alike), as list values and Config::get_words split them. Not collective.
std::vector<std::string> value_words(const std::string& value);

/// The kind of value a key takes. Lists are whitespace- or comma-separated.
enum class ValueType { Integer, Real, Boolean, String, Choice, IntegerList, RealList, BooleanList };

/// One documented key.
struct KeySpec {
  std::string key; ///< "section.name"
  ValueType type = ValueType::String;
  std::string default_value; ///< text form; ignored when `required`
  std::string description;   ///< meaning, with units
  bool required = false;
  std::vector<std::string> choices; ///< allowed values of a Choice
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  int min_items = 1; ///< for lists
  int max_items = 1;

  KeySpec& range(double lo, double hi) {
    min = lo;
    max = hi;
    return *this;
  }
  KeySpec& above(double lo) {
    min = lo;
    min_exclusive = true;
    return *this;
  }
  KeySpec& at_least(double lo) {
    min = lo;
    min_exclusive = false;
    return *this;
  }
  KeySpec& items(int lo, int hi) {
    min_items = lo;
    max_items = hi;
    return *this;
  }
  KeySpec& one_of(std::vector<std::string> values) {
    choices = std::move(values);
    return *this;
  }
  KeySpec& mandatory() {
    required = true;
    return *this;
  }

  /// Human-readable statement of what is allowed, e.g. "1 to 3 integers >= 1".
  std::string allowed() const;
};

/// The set of keys a run accepts. Components add their own sections. Not collective.
class ConfigSchema {
 public:
  /// Adds a key; throws Error if it already exists (a programming error).
  KeySpec& add(const std::string& key, ValueType type, const std::string& default_value,
               const std::string& description);
  const KeySpec* find(const std::string& key) const;
  const std::map<std::string, KeySpec>& keys() const { return m_keys; }
  std::vector<std::string> sections() const;
  /// A Markdown table of every key: key, type, default, allowed values, meaning.
  std::string markdown() const;

 private:
  std::map<std::string, KeySpec> m_keys;
};

/// Raw `section.key -> value` pairs with where each came from, before validation.
struct RawConfig {
  std::map<std::string, std::string> values;
  std::map<std::string, std::string> origin; ///< "case.ini" or "--set"

  /// Parses INI text (Boost.Program_options syntax: [section] headers, key = value, # comments)
  /// and then applies `overrides` ("section.key=value"). `source` names the text in messages.
  static RawConfig parse(const std::string& ini_text, const std::string& source,
                         const std::vector<std::string>& overrides);
  /// The raw value of `key`, or `fallback` when absent.
  std::string get_or(const std::string& key, const std::string& fallback) const;
};

/// A validated configuration: every key of the schema has a value (given or default).
class Config {
 public:
  Config() = default;
  /// Validates `raw` against `schema`; throws ConfigError on the first problem found.
  Config(const ConfigSchema& schema, const RawConfig& raw);

  long get_int(const std::string& key) const;
  double get_real(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  std::string get_string(const std::string& key) const;
  /// The words of a string key (names, such as objective.terms), split at white space and
  /// commas as list values are.
  std::vector<std::string> get_words(const std::string& key) const;
  std::vector<long> get_int_list(const std::string& key) const;
  std::vector<double> get_real_list(const std::string& key) const;
  std::vector<bool> get_bool_list(const std::string& key) const;
  /// True if the user gave the key (file or --set) rather than relying on its default.
  bool is_given(const std::string& key) const;

  /// The effective configuration as an INI file that reproduces this run: keys the user gave are
  /// set, every other key is listed as a comment with its default.
  std::string to_ini() const;
  /// Every key with its effective value as text, sorted by key.
  const std::map<std::string, std::string>& entries() const { return m_values; }
  /// One line per key with its origin, for the start-of-run log.
  std::string describe() const;
  /// The keys given on the command line, as "key=value", sorted by key: with the case file they
  /// give the command that reproduces this configuration. Not collective.
  std::vector<std::string> overrides() const;
  /// FNV-1a hash of every effective key = value, as 16 hex digits: identifies the configuration
  /// in output files.
  std::string hash() const;
  /// The same over the keys for which `counts(key)` is true: identifies the part of the
  /// configuration that decides a result (e.g. an optimisation's evaluations, whatever its
  /// stopping test or output settings).
  std::string hash(const std::function<bool(const std::string& key)>& counts) const;

 private:
  const std::string& text(const std::string& key, ValueType expected) const;
  std::map<std::string, std::string> m_values;
  std::map<std::string, std::string> m_origin;
  std::map<std::string, ValueType> m_types;
};

/// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b);

} // namespace undertow
