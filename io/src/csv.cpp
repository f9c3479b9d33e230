#include "undertow/io/csv.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/files.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace undertow {
namespace io {

namespace {

/// The rows of the CSV file `path` whose first column is at most `last_step`, if its first line
/// is `header`; otherwise the file is renamed to the first free path.N. Empty if there is none.
std::string rows_until(const std::string& path, const std::string& header, long last_step) {
  std::ifstream in(path);
  if (!in)
    return "";
  std::string line, kept;
  std::getline(in, line);
  if (line != header) {
    in.close();
    for (int n = 1;; ++n) {
      const std::string old = path + "." + std::to_string(n);
      if (!std::filesystem::exists(old)) {
        std::filesystem::rename(path, old);
        return "";
      }
    }
  }
  while (std::getline(in, line)) {
    char* end = nullptr;
    const double step = std::strtod(line.c_str(), &end);
    if (end != line.c_str() && step <= double(last_step))
      kept += line + "\n";
  }
  return kept;
}

} // namespace

CsvSeries::CsvSeries(const Communicator& comm, const std::string& path,
                     const std::vector<std::string>& columns, long continued_from)
    : m_columns(columns.size()) {
  run_on_root(comm, [&] {
    std::string header;
    for (std::size_t c = 0; c < columns.size(); ++c)
      header += (c ? "," : "") + columns[c];
    const std::string kept = continued_from >= 0 ? rows_until(path, header, continued_from) : "";
    write_file_atomic(path, header + "\n" + kept);
    auto file = std::make_shared<std::ofstream>(path, std::ios::app);
    if (!*file)
      throw Error("cannot create '" + path + "'; check that the output directory is writable");
    m_file = file;
  });
}

void CsvSeries::append(const std::vector<double>& values) {
  if (!m_file)
    return;
  require(values.size() == m_columns, "CSV row with " + std::to_string(values.size()) +
                                          " values for " + std::to_string(m_columns) + " columns");
  char buf[40];
  for (std::size_t c = 0; c < values.size(); ++c) {
    std::snprintf(buf, sizeof buf, "%.10g", values[c]);
    *m_file << (c ? "," : "") << buf;
  }
  *m_file << "\n" << std::flush;
}

} // namespace io
} // namespace undertow
