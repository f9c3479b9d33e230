// mpi_init's test of how the process was started: any one of the launchers' variables marks a
// process an MPI launcher started; none marks a singleton.

#include "undertow/core/mpi_start.hpp"

#include <cstdlib>
#include <gtest/gtest.h>
#include <map>
#include <string>

namespace {

const char* const kLauncherVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_FD",
                                          "PMI_SIZE"};

/// Removes the launchers' variables for the test's lifetime and puts them back after it.
class WithoutLauncherVariables {
 public:
  WithoutLauncherVariables() {
    for (const char* name : kLauncherVariables)
      if (const char* value = std::getenv(name)) {
        m_saved[name] = value;
        ::unsetenv(name);
      }
  }
  ~WithoutLauncherVariables() {
    for (const char* name : kLauncherVariables)
      ::unsetenv(name);
    for (const auto& [name, value] : m_saved)
      ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::map<std::string, std::string> m_saved;
};

TEST(MpiStart, AnyLauncherVariableMarksALaunchedProcess) {
  const WithoutLauncherVariables clean;
  EXPECT_FALSE(undertow::started_by_mpi_launcher());
  for (const char* name : kLauncherVariables) {
    ::setenv(name, "0", 1);
    EXPECT_TRUE(undertow::started_by_mpi_launcher()) << name;
    ::unsetenv(name);
  }
  EXPECT_FALSE(undertow::started_by_mpi_launcher());
}

} // namespace
