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
  if (!std::filesystem::exists(path))
    throw ConfigError("file '" + path +
                      "' does not exist; check the path (relative paths are "
                      "taken from the current directory, " +
                      std::filesystem::current_path().string() + ").");
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw ConfigError(
        "cannot read '" + path + "': " +
        (std::filesystem::is_directory(path) ? std::string("it is a directory") : reason()));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

} // namespace io
} // namespace undertow
