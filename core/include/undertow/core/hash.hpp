#pragma once
/// \file
/// Reproducible pseudo-random numbers from integer keys, for fields that must be the same on any
/// number of ranks (keyed by the global index) and for tests.

#include <cstdint>
#include <string>

namespace undertow {

/// splitmix64's finaliser: a bijective 64-bit mix, for hashes and checksums. Not collective.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// FNV-1a hash of a text (identifies configurations). Not collective.
inline std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// A pseudo-random number in [0, 1) from an integer key (splitmix64). Not collective.
inline double hash_uniform(std::uint64_t key) {
  return double(mix64(key + 0x9e3779b97f4a7c15ull) >> 11) * (1.0 / 9007199254740992.0);
}

} // namespace undertow
