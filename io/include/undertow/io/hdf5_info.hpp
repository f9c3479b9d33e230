#pragma once
/// \file
/// What HDF5 undertow is built against. The parallel HDF5 output layer (issue 4) lives beside it.

#include <string>

namespace undertow {
namespace io {

/// "1.10.8 (parallel)" from the linked library. Not collective.
std::string hdf5_version();

} // namespace io
} // namespace undertow
