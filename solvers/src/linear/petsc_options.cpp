#include "undertow/solvers/linear/petsc_options.hpp"

#include "undertow/core/error.hpp"

#include <cctype>
#include <sstream>

namespace undertow {
namespace linear {

std::vector<std::string> option_names(const std::string& key, const std::string& options) {
  std::vector<std::string> names;
  std::istringstream words(options);
  std::string word;
  bool value_allowed = false; // a word without a dash is the value of the option before it
  while (words >> word) {
    const bool number = word.size() >= 2 && word[0] == '-' &&
                        (std::isdigit(static_cast<unsigned char>(word[1])) || word[1] == '.');
    if (word[0] == '-' && word.size() >= 2 && !number) {
      names.push_back(word);
      value_allowed = true;
    } else if (value_allowed) {
      value_allowed = false;
    } else {
      throw ConfigError(key + ": '" + word + "' is not a PETSc option (options start with '-', " +
                        "as in -pc_type lu) nor the value of one; write -" +
                        (word[0] == '-' ? word.substr(1) : word) + " if it is an option");
    }
  }
  return names;
}

SolverOptions::SolverOptions() {
  check_petsc(PetscOptionsCreate(m_options.out()), "PetscOptionsCreate");
  char* given = nullptr;
  check_petsc(PetscOptionsGetAll(nullptr, &given), "PetscOptionsGetAll");
  const std::string copy = given ? given : "";
  PetscFree(given);
  insert(copy);
}

void SolverOptions::insert(const std::string& options) {
  if (!options.empty())
    check_petsc(PetscOptionsInsertString(m_options.get(), options.c_str()),
                "PetscOptionsInsertString");
}

bool SolverOptions::has(const std::string& name) const {
  PetscBool given = PETSC_FALSE;
  check_petsc(PetscOptionsHasName(m_options.get(), nullptr, name.c_str(), &given),
              "PetscOptionsHasName");
  return given == PETSC_TRUE;
}

void SolverOptions::set_default(const std::string& name, const std::string& value) {
  if (!has(name))
    check_petsc(PetscOptionsSetValue(m_options.get(), name.c_str(), value.c_str()),
                "PetscOptionsSetValue");
}

std::vector<std::string> SolverOptions::unused(const std::string& prefix) const {
  PetscInt n = 0;
  char** names = nullptr;
  char** values = nullptr;
  check_petsc(PetscOptionsLeftGet(m_options.get(), &n, &names, &values), "PetscOptionsLeftGet");
  std::vector<std::string> out;
  for (PetscInt i = 0; i < n; ++i) {
    std::string name = names[i] ? names[i] : "";
    if (!name.empty() && name[0] == '-')
      name.erase(0, 1);
    if (name.compare(0, prefix.size(), prefix) == 0)
      out.push_back("-" + name);
  }
  check_petsc(PetscOptionsLeftRestore(m_options.get(), &n, &names, &values),
              "PetscOptionsLeftRestore");
  return out;
}

SolverOptions::Active::Active(const SolverOptions& options) {
  check_petsc(PetscOptionsPush(options.m_options.get()), "PetscOptionsPush");
}

SolverOptions::Active::~Active() {
  PetscOptionsPop();
}

} // namespace linear
} // namespace undertow
