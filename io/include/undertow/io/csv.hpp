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
  /// Creates (truncates) `path` on rank 0 and writes the header. With `continued_from` >= 0 (a
  /// run continued from a restart at that step into the folder of its first part), an existing
  /// file with the same columns keeps its rows up to that step (the first column), and the new
  /// rows follow them; a file with other columns is kept as `path`.1 (.2, ...). Throws Error
  /// naming the file if it cannot be created; collective through run_on_root.
  CsvSeries(const Communicator& comm, const std::string& path,
            const std::vector<std::string>& columns, long continued_from = -1);
  /// Appends one row (rank 0 writes; other ranks' values are ignored). Not collective.
  void append(const std::vector<double>& values);

 private:
  std::size_t m_columns;
  std::shared_ptr<std::ofstream> m_file; ///< null on ranks other than 0
};

} // namespace io
} // namespace undertow
