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

/// Owns one PETSc object (a Vec, Mat, KSP, Tao, ...) and destroys it with `Destroy` when it goes,
/// also when an exception unwinds. Move-only. Collective where Destroy is (the object's
/// communicator), so every rank must hold its handles alike.
template <class T, PetscErrorCode (*Destroy)(T*)>
class PetscHandle {
 public:
  PetscHandle() = default;
  ~PetscHandle() { reset(); }
  PetscHandle(PetscHandle&& other) noexcept : m_object(other.m_object) { other.m_object = nullptr; }
  PetscHandle& operator=(PetscHandle&& other) noexcept {
    if (this != &other) {
      reset();
      m_object = other.m_object;
      other.m_object = nullptr;
    }
    return *this;
  }
  PetscHandle(const PetscHandle&) = delete;
  PetscHandle& operator=(const PetscHandle&) = delete;
  /// Where a XxxCreate writes the object (destroying the one held). Not collective.
  T* out() {
    reset();
    return &m_object;
  }
  T get() const { return m_object; }
  operator T() const { return m_object; }
  explicit operator bool() const { return m_object != nullptr; }
  void reset() {
    if (m_object)
      Destroy(&m_object);
    m_object = nullptr;
  }

 private:
  T m_object = nullptr;
};

/// "3.18.5" from petscversion.h. Not collective; needs no PetscInitialize.
std::string petsc_version();

} // namespace linear
} // namespace undertow
