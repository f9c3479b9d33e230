#pragma once
/// \file
/// Greyscale PNG images without a library: 8-bit pixels, zlib stream of stored (uncompressed)
/// deflate blocks. For quick looks at 2D fields (e.g. a topology's densities); the HDF5/XDMF
/// output is the data. Written atomically (temporary file, then rename).

#include <string>
#include <vector>

namespace undertow {
namespace io {

/// Writes `pixels` (row-major, top row first, width * height values, 0 black .. 255 white) to
/// `path`. Throws Error naming the file if it cannot be written. Not collective.
void write_png_grey(const std::string& path, long width, long height,
                    const std::vector<unsigned char>& pixels);

/// The bytes of that PNG file (for tests). Not collective.
std::string png_grey(long width, long height, const std::vector<unsigned char>& pixels);

} // namespace io
} // namespace undertow
