#include "undertow/io/png.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/files.hpp"

#include <array>
#include <cstdint>

namespace undertow {
namespace io {

namespace {

std::uint32_t crc32(const std::string& bytes, std::size_t from) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k)
        c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = from; i < bytes.size(); ++i)
    c = table[(c ^ static_cast<unsigned char>(bytes[i])) & 0xffu] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xffu));
}

/// Appends a chunk: length, type, data, CRC of type and data.
void chunk(std::string& out, const char* type, const std::string& data) {
  put32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out += type;
  out += data;
  put32(out, crc32(out, start));
}

} // namespace

std::string png_grey(long width, long height, const std::vector<unsigned char>& pixels) {
  if (width <= 0 || height <= 0 || static_cast<long>(pixels.size()) != width * height)
    throw Error("png_grey: " + std::to_string(pixels.size()) + " pixels for a " +
                std::to_string(width) + " x " + std::to_string(height) + " image");
  // Scanlines, each led by filter type 0 (none).
  std::string raw;
  raw.reserve(static_cast<std::size_t>((width + 1) * height));
  for (long r = 0; r < height; ++r) {
    raw.push_back('\0');
    raw.append(reinterpret_cast<const char*>(pixels.data() + r * width),
               static_cast<std::size_t>(width));
  }
  // zlib: header, stored deflate blocks of at most 65535 bytes, Adler-32 of the raw data.
  std::string z = {'\x78', '\x01'};
  std::uint32_t a = 1, b = 0;
  for (unsigned char ch : raw) {
    a = (a + ch) % 65521u;
    b = (b + a) % 65521u;
  }
  for (std::size_t at = 0;; at += 65535) { // raw is never empty: each row has its filter byte
    const std::size_t n = std::min<std::size_t>(65535, raw.size() - at);
    const bool last = at + n >= raw.size();
    z.push_back(last ? '\x01' : '\x00');
    z.push_back(static_cast<char>(n & 0xffu));
    z.push_back(static_cast<char>(n >> 8));
    z.push_back(static_cast<char>(~n & 0xffu));
    z.push_back(static_cast<char>((~n >> 8) & 0xffu));
    z.append(raw, at, n);
    if (last)
      break;
  }
  put32(z, (b << 16) | a);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  put32(header, static_cast<std::uint32_t>(width));
  put32(header, static_cast<std::uint32_t>(height));
  header += std::string("\x08\x00\x00\x00\x00", 5); // 8-bit greyscale, deflate, no interlace
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

void write_png_grey(const std::string& path, long width, long height,
                    const std::vector<unsigned char>& pixels) {
  write_file_atomic(path, png_grey(width, height, pixels));
}

} // namespace io
} // namespace undertow
