#include "undertow/solvers/linear/petsc_session.hpp"

#include "undertow/core/error.hpp"

#include <petscversion.h>

namespace undertow {
namespace linear {

PetscSession::PetscSession(MPI_Comm comm) {
  PETSC_COMM_WORLD = comm;
  check_petsc(PetscInitializeNoArguments(), "PetscInitialize");
}

PetscSession::~PetscSession() {
  PetscFinalize();
}

void check_petsc(PetscErrorCode code, const char* what) {
  if (code == 0)
    return;
  const char* text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  throw Error(std::string("PETSc call ") + what + " failed (error " + std::to_string(int(code)) +
              (text ? std::string(": ") + text : std::string()) + ")");
}

std::string petsc_version() {
  return std::to_string(PETSC_VERSION_MAJOR) + "." + std::to_string(PETSC_VERSION_MINOR) + "." +
         std::to_string(PETSC_VERSION_SUBMINOR);
}

} // namespace linear
} // namespace undertow
