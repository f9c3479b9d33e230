#include "undertow/io/hdf5_info.hpp"

#include <hdf5.h>

#ifndef H5_HAVE_PARALLEL
#error "undertow needs a parallel HDF5 build (H5_HAVE_PARALLEL is not defined)"
#endif

namespace undertow {
namespace io {

std::string hdf5_version() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release) +
         " (parallel)";
}

} // namespace io
} // namespace undertow
