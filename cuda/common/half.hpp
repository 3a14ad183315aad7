#pragma once
// IEEE 754 binary16 <-> binary32, bit-exact: MediaPipe's models store their weights as FLOAT16
// constants that DEQUANTIZE widens to FLOAT32. Plain integer code with no library includes, so
// nvcc-compiled code may include it too; half_to_float also runs on the device (the CUDA
// DEQUANTIZE kernel), where the hardware conversion would not promise NaN payloads as stored.
#include <cstdint>
#include <cstring>

#include "cuda/common/host_device.hpp"  // GP_HD

namespace gp {

// Every half value has an exact float: zeros and subnormals (mantissa * 2^-24), normals,
// infinities, and NaNs (payload kept in the top mantissa bits, quiet bit as stored).
GP_HD float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;  // signed zero
  } else {
    // Subnormal: shift the leading 1 up to the implicit position, lowering the exponent.
    std::uint32_t e = 127 - 15 + 1;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (e << 23) | ((mantissa & 0x3ffu) << 13);
  }
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

// Round to nearest, ties to even; overflow gives inf, NaN stays NaN (quiet, payload's top bits).
inline std::uint16_t float_to_half(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t exponent = (bits >> 23) & 0xffu;
  const std::uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xffu) {
    if (mantissa == 0) return sign | 0x7c00u;
    return static_cast<std::uint16_t>(sign | 0x7e00u | (mantissa >> 13));
  }
  const int e = static_cast<int>(exponent) - 127 + 15;  // biased half exponent
  if (e >= 0x1f) return sign | 0x7c00u;
  if (e <= 0) {
    // Subnormal half (or zero): its mantissa counts units of 2^-24, so shift the float's 24-bit
    // significand (units of 2^(e - 38)) right by 14 - e, rounding ties to even.
    if (e < -10) return sign;  // below half of the smallest subnormal: rounds to zero
    const std::uint32_t significand = mantissa | 0x800000u;
    const int shift = 14 - e;  // 14 .. 24
    const std::uint32_t half_mantissa = significand >> shift;
    const std::uint32_t remainder = significand & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    std::uint32_t result = half_mantissa;
    if (remainder > halfway || (remainder == halfway && (half_mantissa & 1u))) ++result;
    return static_cast<std::uint16_t>(sign | result);  // a carry into bit 10 gives the smallest normal
  }
  std::uint32_t result = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t remainder = mantissa & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u))) ++result;  // may carry to inf
  return static_cast<std::uint16_t>(sign | result);
}

}  // namespace gp
