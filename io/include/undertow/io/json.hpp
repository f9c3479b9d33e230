#pragma once
/// \file
/// A small JSON value for machine-readable run reports (`--report`). Objects keep their keys
/// sorted, numbers are written with 17 significant digits so that values round-trip exactly.

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace io {

class Json {
 public:
  Json() = default; ///< null
  Json(bool b);
  Json(double x);
  Json(int x) : Json(static_cast<double>(x)) {}
  Json(long x) : Json(static_cast<double>(x)) {}
  Json(long long x) : Json(static_cast<double>(x)) {}
  Json(const char* s);
  Json(const std::string& s);
  static Json object();
  static Json array();

  /// Object member access; turns a null into an object.
  Json& operator[](const std::string& key);
  /// Appends to an array; turns a null into an array.
  void push_back(const Json& value);

  std::string dump(int indent = 2) const;

 private:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  void write(std::string& out, int indent, int depth) const;
  Kind m_kind = Kind::Null;
  bool m_bool = false;
  double m_number = 0;
  std::string m_string;
  std::vector<Json> m_array;
  std::map<std::string, Json> m_object;
};

/// The scalars of a JSON text (a report), flattened in document order: each number, string,
/// boolean or null with the dotted path of object keys to it ("gradient.fluid.nu"); numbers and
/// booleans as written, strings unquoted and unescaped. Arrays are left out (a report's series).
/// Throws Error, naming the offset, for text that is not JSON. Not collective.
std::vector<std::pair<std::string, std::string>> flatten_json(const std::string& text);

} // namespace io
} // namespace undertow
