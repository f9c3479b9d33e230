#include "undertow/io/files.hpp"

#include "undertow/core/error.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace undertow {
namespace io {

namespace {
std::string reason() {
  return std::strerror(errno);
}
} // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    throw Error("cannot create '" + tmp + "' (for " + path + "): " + reason());
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      const std::string why = reason();
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error("cannot write '" + path + "': " + why);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = reason();
    ::unlink(tmp.c_str());
    throw Error("cannot flush '" + path + "' to disk: " + why);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = reason();
    ::unlink(tmp.c_str());
    throw Error("cannot rename '" + tmp + "' to '" + path + "': " + why);
  }
}

void make_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path))
    throw Error("cannot create the output directory '" + path +
                "': " + (ec ? ec.message() : std::string("a file of that name exists")) +
                ". Choose another directory with --output.");
}

std::string read_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw ConfigError("file '" + path +
                      "' does not exist; check the path (relative paths are "
                      "taken from the current directory, " +
                      fs::current_path().string() + ").");
  // Only a regular file has an end: a device (/dev/zero), a FIFO or a directory does not.
  if (!fs::is_regular_file(path, ec))
    throw ConfigError("cannot read '" + path + "': " +
                      (fs::is_directory(path, ec) ? std::string("it is a directory")
                                                  : std::string("it is not a regular file")) +
                      "; give the path of a text file.");
  const auto size = fs::file_size(path, ec);
  if (!ec && size > kMostInputBytes)
    throw ConfigError("cannot read '" + path + "': it holds " + std::to_string(size) +
                      " bytes, more than an input text file may (" +
                      std::to_string(kMostInputBytes) + "); is it the right file?");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ConfigError("cannot read '" + path + "': " + reason());
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMostInputBytes)
      throw ConfigError("cannot read '" + path +
                        "': it is longer than an input text file may be (" +
                        std::to_string(kMostInputBytes) + " bytes)");
  }
  if (in.bad())
    throw ConfigError("cannot read '" + path + "': " + reason() + " (a read error)");
  return text;
}

std::string path_near_case(const std::string& case_file, const std::string& path) {
  const auto relative = std::filesystem::path(case_file).parent_path() / path;
  return !std::filesystem::exists(path) && std::filesystem::exists(relative) ? relative.string()
                                                                             : path;
}

} // namespace io
} // namespace undertow
