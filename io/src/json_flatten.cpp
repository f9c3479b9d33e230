/// \file
/// flatten_json (json.hpp): a recursive-descent reader of JSON text that keeps the scalars of
/// objects under their dotted paths.

#include "undertow/core/error.hpp"
#include "undertow/io/json.hpp"

#include <cctype>

namespace undertow {
namespace io {

namespace {

class Flattener {
 public:
  explicit Flattener(const std::string& text) : m_text(text) {}

  std::vector<std::pair<std::string, std::string>> run() {
    value("", true);
    skip_space();
    if (m_at != m_text.size())
      fail("text after the end of the JSON value");
    return m_out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("not JSON at offset " + std::to_string(m_at) + ": " + what);
  }
  void skip_space() {
    while (m_at < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_at])))
      ++m_at;
  }
  char peek() {
    skip_space();
    if (m_at >= m_text.size())
      fail("unexpected end");
    return m_text[m_at];
  }
  void expect(char c) {
    if (peek() != c)
      fail(std::string("expected '") + c + "'");
    ++m_at;
  }

  /// A value at `path`; kept if `keep` (not inside an array).
  void value(const std::string& path, bool keep) {
    const char c = peek();
    if (c == '{') {
      object(path, keep);
    } else if (c == '[') {
      ++m_at;
      if (peek() == ']') {
        ++m_at;
        return;
      }
      for (;;) {
        value(path, false);
        if (peek() == ']') {
          ++m_at;
          return;
        }
        expect(',');
      }
    } else {
      const std::string scalar = c == '"' ? string() : literal();
      if (keep)
        m_out.emplace_back(path, scalar);
    }
  }

  void object(const std::string& path, bool keep) {
    expect('{');
    if (peek() == '}') {
      ++m_at;
      return;
    }
    for (;;) {
      if (peek() != '"')
        fail("expected a key");
      const std::string key = string();
      expect(':');
      value(path.empty() ? key : path + "." + key, keep);
      if (peek() == '}') {
        ++m_at;
        return;
      }
      expect(',');
    }
  }

  /// A number, true, false or null, as written.
  std::string literal() {
    const std::size_t start = m_at;
    while (m_at < m_text.size() &&
           (std::isalnum(static_cast<unsigned char>(m_text[m_at])) || m_text[m_at] == '-' ||
            m_text[m_at] == '+' || m_text[m_at] == '.'))
      ++m_at;
    const std::string word = m_text.substr(start, m_at - start);
    if (word == "true" || word == "false" || word == "null")
      return word;
    std::size_t used = 0;
    try {
      (void)std::stod(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (word.empty() || used != word.size()) {
      m_at = start;
      fail("expected a value");
    }
    return word;
  }

  /// A string, unescaped (\uXXXX below 0x80 only; others are kept as written).
  std::string string() {
    expect('"');
    std::string s;
    while (m_at < m_text.size() && m_text[m_at] != '"') {
      char c = m_text[m_at++];
      if (c == '\\') {
        if (m_at >= m_text.size())
          fail("unexpected end in a string");
        c = m_text[m_at++];
        switch (c) {
        case 'n':
          c = '\n';
          break;
        case 't':
          c = '\t';
          break;
        case 'r':
          c = '\r';
          break;
        case 'b':
          c = '\b';
          break;
        case 'f':
          c = '\f';
          break;
        case 'u': {
          const std::string hex = m_text.substr(m_at, 4);
          if (hex.size() != 4 ||
              hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
            fail("a bad \\u escape");
          const unsigned long code = std::stoul(hex, nullptr, 16);
          m_at += 4;
          if (code < 0x80) {
            c = static_cast<char>(code);
          } else {
            s += "\\u" + hex;
            continue;
          }
          break;
        }
        default:
          break; // \" \\ \/
        }
      }
      s += c;
    }
    if (m_at >= m_text.size())
      fail("a string without its closing quote");
    ++m_at;
    return s;
  }

  const std::string& m_text;
  std::size_t m_at = 0;
  std::vector<std::pair<std::string, std::string>> m_out;
};

} // namespace

std::vector<std::pair<std::string, std::string>> flatten_json(const std::string& text) {
  return Flattener(text).run();
}

} // namespace io
} // namespace undertow
