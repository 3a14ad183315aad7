#pragma once
// Arithmetic the binarize kernels and their CPU references share.
#include <cstdint>
#include <cstring>

#include "cuda/common/host_device.hpp"  // GP_HD

namespace gp::pnm::math {

GP_HD std::uint32_t float_bits(float v) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(v);
#else
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
#endif
}

GP_HD float bits_float(std::uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
#endif
}

GP_HD bool finite_value(float v) { return (float_bits(v) & 0x7f800000u) != 0x7f800000u; }

// Maps floats to unsigned keys in the same order (-0 before +0), so min and max become integer
// reductions whose result does not depend on the order the values are met in.
GP_HD std::uint32_t ordered_key(float v) {
  const std::uint32_t u = float_bits(v);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
GP_HD float key_value(std::uint32_t k) { return bits_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); }

// Keys that no finite value has: the start of a min and of a max reduction.
constexpr std::uint32_t min_key_start = 0xffffffffu;
constexpr std::uint32_t max_key_start = 0u;

// The histogram bin of v: the last edge <= v (upper bound - 1, as cub::DeviceHistogram::HistogramRange
// searches its levels), -1 when outside [edges[0], edges[bins]) or NaN.
GP_HD int bin_of(float v, const float* edges, int bins) {
  int first = 0, count = bins + 1;  // search all bins + 1 levels
  while (count > 0) {
    const int half = count >> 1;
    if (v < edges[first + half]) {
      count = half;
    } else {
      first += half + 1;
      count -= half + 1;
    }
  }
  const int bin = first - 1;
  return bin < bins ? bin : -1;
}

// Pore (1) or solid (0). Pores dark: value <= t; pores bright: value > t. NaN is solid either way.
GP_HD std::uint8_t pore_of(float v, float threshold, bool pore_is_dark) {
  return (pore_is_dark ? v <= threshold : v > threshold) ? 1 : 0;
}

}  // namespace gp::pnm::math
