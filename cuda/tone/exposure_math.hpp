#pragma once
// Auto-exposure math shared by the kernel and the CPU reference: per-pixel log2 luminance, its
// histogram bins, the percentile rule and the final scale. Everything that decides a histogram bin
// is computed so that host and device get the same bits (explicit fmaf, IEEE division, no libm
// log2f, whose last bit differs between CUDA and glibc), so both paths find the same percentile
// bounds. Do not build this with --use_fast_math.
#include <cstdint>
#include <cstring>

#include "cuda/tone/tone_math.hpp"

namespace gp::tone::math {

// Histogram of log2(Y + epsilon): 1024 bins of 1/16 stop over [-32, 32). A power-of-two bin width
// makes CUB's float binning, (l - min) * (bins / range), exact, so the CPU can repeat it.
constexpr float log_lum_epsilon = 1e-6f;  // keeps black pixels finite: log2(1e-6) = -19.93
constexpr float log_lum_min = -32.0f, log_lum_max = 32.0f;
constexpr float log_lum_bins_per_stop = 16.0f;
constexpr int log_lum_bins = 1024;
static_assert(log_lum_bins == int((log_lum_max - log_lum_min) * log_lum_bins_per_stop), "bins must tile the range");

// log2 for positive normal floats, bit-identical on host and device: exponent from the bits,
// mantissa m in [sqrt(1/2), sqrt(2)), log2(m) = 2/ln2 * atanh(s) with s = (m-1)/(m+1), |s| < 0.172,
// by its odd series to s^9 (truncation error below 1e-9).
GP_HD float log2_portable(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int exponent = int((bits >> 23) & 0xffu) - 127;
  bits = (bits & 0x007fffffu) | 0x3f800000u;  // mantissa with exponent 0: m in [1, 2)
  float m;
  std::memcpy(&m, &bits, sizeof m);
  if (m > 1.41421356f) {
    m *= 0.5f;
    ++exponent;
  }
  const float s = (m - 1.0f) / (m + 1.0f);  // m - 1 is exact (Sterbenz)
  const float s2 = s * s;
  // (2 / ln 2) / {1, 3, 5, 7, 9}, as literals so both compilers start from the same floats.
  float series = fmaf(s2, 0.320598900f, 0.412198573f);
  series = fmaf(s2, series, 0.577078044f);
  series = fmaf(s2, series, 0.961796701f);
  series = fmaf(s2, series, 2.88539004f);
  return fmaf(s, series, float(exponent));
}

// log2(Y + epsilon) clamped into the histogram range (the top bin takes everything brighter; NaN
// counts as black).
GP_HD float log2_luminance(Rgb c) {
  const float y = fmaxf(luminance(c), 0.0f) + log_lum_epsilon;
  const float l = log2_portable(fminf(y, 0x1p40f));  // keeps inf out of the bit tricks
  return fminf(fmaxf(l, log_lum_min), log_lum_max - 1.0f / log_lum_bins_per_stop);
}

// The bin CUB's HistogramEven puts l in: the same float operations, so l - min rounds the same way
// (a value within a rounding step below a bin edge lands in the upper bin on both paths).
GP_HD int log_lum_bin(float l) { return int((l - log_lum_min) * log_lum_bins_per_stop); }
GP_HD float log_lum_bin_start(int bin) { return log_lum_min + float(bin) / log_lum_bins_per_stop; }

// Percentile rule. The bin "holding" sample number t (1-based, fractional) of the sorted
// log-luminances is the one whose cumulative count first reaches t. Values below the start of the
// bin holding the p_low-th percentile are raised to it; values above the end of the bin holding
// the p_high-th percentile are lowered to it. Targets are kept within [0.5, n], so 0 and 100 pick
// the first and last occupied bins, whose edges clamp nothing.
GP_HD double percentile_target(float percent, long long n) {
  return fmin(fmax(double(percent) / 100.0 * double(n), 0.5), double(n));
}
GP_HD bool bin_holds(long long count_before, long long count_through, double target) {
  return double(count_before) < target && target <= double(count_through);
}

// [low, high] bounds of the log-luminances that enter the average.
struct LogBounds {
  float low, high;
};
GP_HD float clamp_to_bounds(float l, LogBounds b) { return fminf(fmaxf(l, b.low), b.high); }

// scale = clamp(base * key / log_average, min, max), log_average = exp2(mean); an empty image
// counts as mean 0.
GP_HD void exposure_result(double log_sum, long long n, const AutoExposureParams& p, float base_scale,
                           float* out_scale) {
  const float mean = n > 0 ? float(log_sum / double(n)) : 0.0f;
  const float log_average = exp2f(mean);
  out_scale[0] = fminf(fmaxf(base_scale * p.key / log_average, p.min_scale), p.max_scale);
  out_scale[1] = log_average;
}

}  // namespace gp::tone::math
