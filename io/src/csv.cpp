#include "undertow/io/csv.hpp"

#include "undertow/core/error.hpp"

#include <cstdio>

namespace undertow {
namespace io {

CsvSeries::CsvSeries(const Communicator& comm, const std::string& path,
                     const std::vector<std::string>& columns)
    : m_columns(columns.size()) {
  run_on_root(comm, [&] {
    auto file = std::make_shared<std::ofstream>(path, std::ios::trunc);
    if (!*file)
      throw Error("cannot create '" + path + "'; check that the output directory is writable");
    for (std::size_t c = 0; c < columns.size(); ++c)
      *file << (c ? "," : "") << columns[c];
    *file << "\n" << std::flush;
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
