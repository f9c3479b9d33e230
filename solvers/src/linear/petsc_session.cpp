#include "undertow/solvers/linear/petsc_session.hpp"

#include "undertow/core/error.hpp"

#include <petscversion.h>

namespace undertow {
namespace linear {

namespace {
/// PETSc's specific message of the error being raised, kept for check_petsc.
std::string& last_message() {
  static std::string message;
  return message;
}

/// Records the message where the error arose and returns the code without printing: the error
/// reaches the user once, as an undertow error naming the call and PETSc's reason.
PetscErrorCode record_error(MPI_Comm, int line, const char* function, const char* file,
                            PetscErrorCode code, PetscErrorType type, const char* message, void*) {
  if (type == PETSC_ERROR_INITIAL)
    last_message() = std::string(message ? message : "") + " (in " + (function ? function : "?") +
                     ", " + (file ? file : "?") + ":" + std::to_string(line) + ")";
  return code;
}
} // namespace

PetscSession::PetscSession(MPI_Comm comm) {
  PETSC_COMM_WORLD = comm;
  check_petsc(PetscInitializeNoArguments(), "PetscInitialize");
  check_petsc(PetscPushErrorHandler(record_error, nullptr), "PetscPushErrorHandler");
}

PetscSession::~PetscSession() {
  PetscPopErrorHandler();
  PetscFinalize();
}

void check_petsc(PetscErrorCode code, const char* what) {
  if (code == 0)
    return;
  const char* text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  std::string detail = last_message();
  last_message().clear();
  throw Error(std::string("PETSc call ") + what + " failed (error " + std::to_string(int(code)) +
              (text ? std::string(": ") + text : std::string()) +
              (detail.empty() ? std::string() : "; " + detail) + ")");
}

std::string petsc_version() {
  return std::to_string(PETSC_VERSION_MAJOR) + "." + std::to_string(PETSC_VERSION_MINOR) + "." +
         std::to_string(PETSC_VERSION_SUBMINOR);
}

} // namespace linear
} // namespace undertow
