#pragma once
// Steele/Lea/Flood's SplitMix64 finaliser: deterministic sample data, DICOM UIDs, test volumes. Not for security.
#include <cstdint>

namespace gp {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace gp
