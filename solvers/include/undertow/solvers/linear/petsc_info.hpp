#pragma once
/// \file
/// What PETSc undertow is built against. The KSP wrappers for the Poisson and elasticity
/// systems (issues 3 and 7) live beside it.

#include <string>

namespace undertow {
namespace linear {

/// "3.18.5" from petscversion.h. Not collective; needs no PetscInitialize.
std::string petsc_version();

} // namespace linear
} // namespace undertow
