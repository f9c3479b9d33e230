#pragma once
/// \file
/// Files written so that nothing is ever half-written: content goes to a temporary name in the
/// same directory, is flushed to disk, then renamed over the target (rename is atomic on POSIX).

#include <cstddef>
#include <string>

namespace undertow {
namespace io {

/// Writes `content` to `path` atomically. Not collective: call it on one rank. Throws Error naming
/// the path and the system's reason on failure, and leaves any previous file untouched.
void write_file_atomic(const std::string& path, const std::string& content);

/// Creates `path` and its parents if missing. Throws Error if that fails. Not collective.
void make_directories(const std::string& path);

/// A file a case file names: `path` as given if it exists, else relative to the case file's
/// folder if it exists there (else `path` as given, for the caller's error). Not collective.
std::string path_near_case(const std::string& case_file, const std::string& path);

/// Largest input text file read_file takes (case files, reference data, journals) [bytes].
constexpr std::size_t kMostInputBytes = std::size_t(256) << 20;

/// Whole content of a regular text file. Throws ConfigError naming the file if it does not
/// exist, is not a regular file (a directory, /dev/zero), is larger than kMostInputBytes, or
/// a read fails (/proc/self/mem). Not collective.
std::string read_file(const std::string& path);

} // namespace io
} // namespace undertow
