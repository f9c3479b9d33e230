#include "pending_output.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/files.hpp"

#include <cstdio>
#include <exception>
#include <filesystem>

namespace undertow {
namespace jobs {

namespace {
std::string pending_name(const std::string& dir, const std::string& name) {
  return dir + "/." + name + ".pending";
}
} // namespace

PendingOutput::PendingOutput(const Communicator& comm, const std::string& dir)
    : m_root(comm.rank() == 0), m_dir(dir), m_exceptions_at_start(std::uncaught_exceptions()) {
  run_on_root(comm, [&] {
    m_created = !std::filesystem::exists(dir);
    try {
      io::make_directories(dir);
    } catch (const Error& e) {
      throw ConfigError(e.what()); // the folder the command was given: bad input, exit 2
    }
  });
}

PendingOutput::~PendingOutput() {
  if (m_committed)
    return;
  if (std::uncaught_exceptions() <= m_exceptions_at_start) {
    try {
      commit();
    } catch (...) {
      // A destructor may not throw; the files keep their pending names.
    }
    return;
  }
  if (!m_root)
    return;
  std::error_code ec;
  for (const auto& file : m_files)
    std::filesystem::remove(pending_name(m_dir, file.name), ec);
  if (m_created && std::filesystem::is_empty(m_dir, ec))
    std::filesystem::remove(m_dir, ec);
}

std::string PendingOutput::path(const std::string& name, bool keep_previous) {
  if (m_committed)
    return m_dir + "/" + name;
  m_files.push_back({name, keep_previous});
  return pending_name(m_dir, name);
}

void PendingOutput::commit() {
  if (m_committed)
    return;
  m_committed = true;
  if (!m_root)
    return;
  for (const auto& file : m_files) {
    const std::string from = pending_name(m_dir, file.name), to = m_dir + "/" + file.name;
    if (file.keep_previous && std::filesystem::exists(to)) {
      int n = 1;
      while (std::filesystem::exists(to + "." + std::to_string(n)))
        ++n;
      if (std::rename(to.c_str(), (to + "." + std::to_string(n)).c_str()) != 0)
        throw Error("cannot keep the previous '" + to + "' as '" + to + "." + std::to_string(n) +
                    "'; check the output folder");
    }
    if (std::rename(from.c_str(), to.c_str()) != 0)
      throw Error("cannot rename '" + from + "' to '" + to + "'; check the output folder");
  }
}

} // namespace jobs
} // namespace undertow
