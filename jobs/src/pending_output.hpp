#pragma once
// A command's output folder, changed only once the command is accepted. Until commit(), the
// files a command writes first (config.ini, its log) live under pending names beside the old
// ones; a command refused before that (a bad --restart, a --resume of another run's folder)
// leaves the folder as it found it: the pending files go, and so does the folder if this command
// made it. commit() renames them into place; a command that ends normally commits too.

#include "undertow/core/communicator.hpp"

#include <string>
#include <vector>

namespace undertow {
namespace jobs {

class PendingOutput {
 public:
  /// Creates `dir` if missing (rank 0). Throws ConfigError (the --output given cannot be used)
  /// if it cannot. Collective.
  PendingOutput(const Communicator& comm, const std::string& dir);
  /// Unwinding from an exception before commit(): removes the pending files (and the folder if
  /// this command made it and nothing else is in it). Otherwise commits. Rank 0; not collective.
  ~PendingOutput();
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;

  /// Where to write the file `name` ("config.ini") until commit(): a hidden pending name in the
  /// folder; after commit() its real path. With `keep_previous` (a log), commit() first renames
  /// an existing file of that name to name.1 (or .2, ...): a run continued into its own folder
  /// keeps the log of its first part. Not collective.
  std::string path(const std::string& name, bool keep_previous = false);
  /// Renames every pending file over its real name (an open log keeps writing to it). Call when
  /// the command is accepted, before it writes anything else into the folder. Idempotent.
  /// Rank 0 does the work; not collective.
  void commit();
  bool committed() const { return m_committed; }
  const std::string& dir() const { return m_dir; }

 private:
  bool m_root;
  std::string m_dir;
  bool m_created = false;
  bool m_committed = false;
  int m_exceptions_at_start;
  struct Pending {
    std::string name;
    bool keep_previous;
  };
  std::vector<Pending> m_files;
};

} // namespace jobs
} // namespace undertow
