#include "undertow/solvers/linear/petsc_info.hpp"

#include <petscversion.h>

namespace undertow {
namespace linear {

std::string petsc_version() {
  return std::to_string(PETSC_VERSION_MAJOR) + "." + std::to_string(PETSC_VERSION_MINOR) + "." +
         std::to_string(PETSC_VERSION_SUBMINOR);
}

} // namespace linear
} // namespace undertow
