#pragma once
/// \file
/// Reproducible pseudo-random numbers from integer keys, for fields that must be the same on any
/// number of ranks (keyed by the global index) and for tests.

#include <cstdint>

namespace undertow {

/// A pseudo-random number in [0, 1) from an integer key (splitmix64). Not collective.
inline double hash_uniform(std::uint64_t key) {
  std::uint64_t z = key + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z = z ^ (z >> 31);
  return double(z >> 11) * (1.0 / 9007199254740992.0);
}

} // namespace undertow
