#include "undertow/solvers/linear/petsc_options.hpp"

namespace undertow {
namespace linear {

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
