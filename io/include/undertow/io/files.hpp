#pragma once
/// \file
/// Files written so that nothing is ever half-written: content goes to a temporary name in the
/// same directory, is flushed to disk, then renamed over the target (rename is atomic on POSIX).

#include <string>

namespace undertow {
namespace io {

/// Writes `content` to `path` atomically. Not collective: call it on one rank. Throws Error naming
/// the path and the system's reason on failure, and leaves any previous file untouched.
void write_file_atomic(const std::string& path, const std::string& content);

/// Creates `path` and its parents if missing. Throws Error if that fails. Not collective.
void make_directories(const std::string& path);

/// Whole content of a file; throws Error naming the file if it cannot be read. Not collective.
std::string read_file(const std::string& path);

} // namespace io
} // namespace undertow
