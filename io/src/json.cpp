#include "undertow/io/json.hpp"

#include <cmath>
#include <cstdio>

namespace undertow {
namespace io {

Json::Json(bool b) : m_kind(Kind::Bool), m_bool(b) {}
Json::Json(double x) : m_kind(Kind::Number), m_number(x) {}
Json::Json(const char* s) : m_kind(Kind::String), m_string(s) {}
Json::Json(const std::string& s) : m_kind(Kind::String), m_string(s) {}

Json Json::object() {
  Json j;
  j.m_kind = Kind::Object;
  return j;
}

Json Json::array() {
  Json j;
  j.m_kind = Kind::Array;
  return j;
}

Json& Json::operator[](const std::string& key) {
  if (m_kind == Kind::Null)
    m_kind = Kind::Object;
  return m_object[key];
}

void Json::push_back(const Json& value) {
  if (m_kind == Kind::Null)
    m_kind = Kind::Array;
  m_array.push_back(value);
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  out += "\n";
  return out;
}

namespace {
void escape(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  out += '"';
}
} // namespace

void Json::write(std::string& out, int indent, int depth) const {
  const std::string pad(static_cast<std::size_t>(indent * (depth + 1)), ' ');
  const std::string close_pad(static_cast<std::size_t>(indent * depth), ' ');
  switch (m_kind) {
  case Kind::Null:
    out += "null";
    break;
  case Kind::Bool:
    out += m_bool ? "true" : "false";
    break;
  case Kind::Number: {
    if (!std::isfinite(m_number)) {
      out += "null"; // JSON has no NaN or infinity
      break;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", m_number);
    out += buf;
    break;
  }
  case Kind::String:
    escape(out, m_string);
    break;
  case Kind::Array: {
    out += "[";
    for (std::size_t i = 0; i < m_array.size(); ++i) {
      out += (i ? ", " : "");
      m_array[i].write(out, indent, depth + 1);
    }
    out += "]";
    break;
  }
  case Kind::Object: {
    out += "{";
    bool first = true;
    for (const auto& kv : m_object) {
      out += (first ? "\n" : ",\n") + pad;
      first = false;
      escape(out, kv.first);
      out += ": ";
      kv.second.write(out, indent, depth + 1);
    }
    out += (first ? "" : "\n" + close_pad) + "}";
    break;
  }
  }
}

} // namespace io
} // namespace undertow
