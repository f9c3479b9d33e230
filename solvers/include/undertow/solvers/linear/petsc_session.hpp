#pragma once
/// \file
/// PETSc's lifetime and error checking. An executable or test main creates one PetscSession after
/// MPI_Init and destroys it (after every PETSc object) before MPI_Finalize.

#include <mpi.h>
#include <petscsys.h>
#include <string>

namespace undertow {
namespace linear {

class PetscSession {
 public:
  /// Initialises PETSc on `comm` (PETSC_COMM_WORLD := comm), reading no command-line options:
  /// options come from case files. Collective over `comm`.
  explicit PetscSession(MPI_Comm comm);
  ~PetscSession();
  PetscSession(const PetscSession&) = delete;
  PetscSession& operator=(const PetscSession&) = delete;
};

/// Throws Error naming `what` and PETSc's message if `code` is not 0. Not collective.
void check_petsc(PetscErrorCode code, const char* what);

/// "3.18.5" from petscversion.h. Not collective; needs no PetscInitialize.
std::string petsc_version();

} // namespace linear
} // namespace undertow
