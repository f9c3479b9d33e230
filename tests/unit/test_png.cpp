// The PNG writer against bytes checked with an independent implementation (Python's zlib: CRC-32
// of the chunks, Adler-32 and inflate of the stream), and a large image whose stored deflate
// blocks must split at 65535 bytes and reassemble to the pixels.

#include "undertow/core/error.hpp"
#include "undertow/io/png.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using undertow::io::png_grey;

std::string bytes(std::initializer_list<int> values) {
  std::string s;
  for (int v : values)
    s.push_back(static_cast<char>(v));
  return s;
}

TEST(Png, OnePixelImageIsByteExact) {
  const std::string png = png_grey(1, 1, {0x80});
  const std::string expected =
      bytes({0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a}) +
      // IHDR: 1 x 1, 8-bit greyscale; CRC 0x3a7e9b55
      bytes({0, 0, 0, 13, 'I', 'H', 'D', 'R', 0,    0,    0,    1,   0,
             0, 0, 1, 8,  0,   0,   0,   0,   0x3a, 0x7e, 0x9b, 0x55}) +
      // IDAT: zlib header, one final stored block of 2 bytes (filter 0, pixel 0x80), Adler-32
      // 0x00820081; CRC 0xc36e25e0
      bytes({0,    0,    0,    13,   'I',  'D',  'A',  'T',  0x78, 0x01, 0x01, 0x02, 0x00,
             0xfd, 0xff, 0x00, 0x80, 0x00, 0x82, 0x00, 0x81, 0xc3, 0x6e, 0x25, 0xe0}) +
      // IEND; CRC 0xae426082
      bytes({0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82});
  EXPECT_EQ(png, expected);
}

TEST(Png, LargeImagesSplitIntoStoredBlocks) {
  const long w = 400, h = 300; // 120,300 scanline bytes: two stored blocks
  std::vector<unsigned char> pixels(static_cast<std::size_t>(w * h));
  for (std::size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<unsigned char>((i * 7) % 251);
  const std::string png = png_grey(w, h, pixels);
  const std::size_t idat = png.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  std::size_t at = idat + 4 + 2; // past the type and the zlib header
  std::string raw;
  bool last = false;
  int blocks = 0;
  while (!last) {
    last = png[at] == 1;
    const std::size_t n = static_cast<unsigned char>(png[at + 1]) |
                          (static_cast<std::size_t>(static_cast<unsigned char>(png[at + 2])) << 8);
    const std::size_t complement =
        static_cast<unsigned char>(png[at + 3]) |
        (static_cast<std::size_t>(static_cast<unsigned char>(png[at + 4])) << 8);
    EXPECT_EQ(n ^ 0xffffu, complement);
    raw.append(png, at + 5, n);
    at += 5 + n;
    ++blocks;
  }
  EXPECT_EQ(blocks, 2);
  ASSERT_EQ(raw.size(), static_cast<std::size_t>((w + 1) * h));
  for (long r = 0; r < h; ++r) {
    EXPECT_EQ(raw[static_cast<std::size_t>(r * (w + 1))], 0) << "filter byte of row " << r;
    for (long c = 0; c < w; c += 37)
      ASSERT_EQ(static_cast<unsigned char>(raw[static_cast<std::size_t>(r * (w + 1) + 1 + c)]),
                pixels[static_cast<std::size_t>(r * w + c)]);
  }
}

TEST(Png, AMismatchedPixelCountIsRefused) {
  EXPECT_THROW(png_grey(3, 2, std::vector<unsigned char>(5)), undertow::Error);
  EXPECT_THROW(png_grey(0, 2, {}), undertow::Error);
}

} // namespace
