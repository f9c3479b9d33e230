#pragma once
/// \file
/// A time-series CSV file written by rank 0 only, one flushed row at a time, so that a run that
/// stops (or is killed) keeps every row it had written.

#include "undertow/core/communicator.hpp"

#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace io {

class CsvSeries {
 public:
  /// Creates (truncates) `path` on rank 0 and writes the header. Throws Error naming the file if
  /// it cannot be created; collective through run_on_root.
  CsvSeries(const Communicator& comm, const std::string& path,
            const std::vector<std::string>& columns);
  /// Appends one row (rank 0 writes; other ranks' values are ignored). Not collective.
  void append(const std::vector<double>& values);

 private:
  std::size_t m_columns;
  std::shared_ptr<std::ofstream> m_file; ///< null on ranks other than 0
};

} // namespace io
} // namespace undertow
