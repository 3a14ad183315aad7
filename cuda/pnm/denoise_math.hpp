#pragma once
// Arithmetic the denoise kernels and their CPU references share, written once so that both sides
// order comparisons and round sums identically (bit-identical results).
#include "cuda/pnm/volume_view.hpp"
#include "cuda/common/host_device.hpp"  // GP_HD

// Full unrolling where nvcc compiles (keeps the 27 values in registers); nothing for g++.
#ifdef __CUDA_ARCH__
#define GP_PNM_UNROLL _Pragma("unroll")
#else
#define GP_PNM_UNROLL
#endif

namespace gp::pnm::math {

// scipy.ndimage mode 'reflect' (d c b a | a b c d | d c b a) for any i, also several lengths out:
// the extension repeats with period 2n.
GP_HD int reflect_index(int i, int n) {
  if (i >= 0 && i < n) return i;
  const int period = 2 * n;
  int m = i % period;
  if (m < 0) m += period;
  return m < n ? m : period - 1 - m;
}

// Compare-exchange: afterwards a <= b. A permutation of the two inputs, so equal values (and -0 vs
// +0) keep their bits and both sides pick the same one.
GP_HD void order_pair(float& a, float& b) {
  const bool swap = b < a;
  const float lo = swap ? b : a;
  const float hi = swap ? a : b;
  a = lo;
  b = hi;
}

// The median (14th smallest) of v[0..26] by forgetful selection: among the first 15 values the
// smallest and largest cannot be the median of 27, so they are dropped and the next value takes the
// largest one's place; each round drops one from each side until 3 remain. 195 compare-exchanges,
// all indices known at compile time (registers on the GPU). Clobbers v.
GP_HD float median_of_27(float* v) {
GP_PNM_UNROLL
  for (int next = 15; next <= 27; ++next) {
    const int lo = next - 15;  // the candidates are v[lo..14]
GP_PNM_UNROLL
    for (int i = lo + 1; i <= 14; ++i) order_pair(v[lo], v[i]);  // smallest -> v[lo]
GP_PNM_UNROLL
    for (int i = lo + 1; i < 14; ++i) order_pair(v[i], v[14]);  // largest -> v[14]
    if (next < 27) v[14] = v[next];
  }
  return v[13];
}

GP_HD float infinity_float() {
#ifdef __CUDA_ARCH__
  return __int_as_float(0x7f800000);
#else
  return __builtin_huge_valf();
#endif
}

// The median filter's value at a voxel from its 27 neighbours v (centre v[13]), NaN-aware: NaN
// marks voxels outside the image (DICOM padding, io::Volume). A NaN voxel stays NaN, so padding
// neither grows nor shrinks; otherwise its NaN neighbours are replaced alternately by -inf and
// +inf, so the 14th smallest is the median of the valid neighbours alone (the lower of the two
// middle ones when their count is even), never NaN or inf. Without NaNs: median_of_27. Clobbers v.
GP_HD float median3_of(float* v) {
  if (v[13] != v[13]) return v[13];
  const float inf = infinity_float();
  bool low = true;
GP_PNM_UNROLL
  for (int i = 0; i < 27; ++i) {
    const bool nan = v[i] != v[i];
    v[i] = nan ? (low ? -inf : inf) : v[i];
    low = nan ? !low : low;
  }
  return median_of_27(v);
}

// Loads the 27 neighbours of (x, y, z) in a fixed order (dz outer, then dy, dx inner). At radius 1,
// 'reflect' is clamping (index -1 reads 0, n reads n - 1). `in` holds z - 1 .. z + 1 (clamped).
GP_HD void gather_27(const VolumeView<const float>& in, int x, int y, int z, float* v) {
  int k = 0;
GP_PNM_UNROLL
  for (int dz = -1; dz <= 1; ++dz) {
    const int zz = z + dz < 0 ? 0 : (z + dz >= in.nz ? in.nz - 1 : z + dz);
GP_PNM_UNROLL
    for (int dy = -1; dy <= 1; ++dy) {
      const int yy = y + dy < 0 ? 0 : (y + dy >= in.ny ? in.ny - 1 : y + dy);
GP_PNM_UNROLL
      for (int dx = -1; dx <= 1; ++dx) {
        const int xx = x + dx < 0 ? 0 : (x + dx >= in.nx ? in.nx - 1 : x + dx);
        v[k++] = in.at(xx, yy, zz);
      }
    }
  }
}

// One output of scipy.ndimage.correlate1d with a symmetric kernel, summed as scipy does: in double,
// the centre tap first, then the pairs from the outermost one in; rounded to float at the end.
// `centre` points at the input sample, its neighbours `stride` floats apart (already extended at
// the borders); w[0..radius] are the weights from the centre out.
//
// NaN (padding, see median3_of) does not spread: a NaN sample stays as it is, and a valid one with NaN
// taps gets the weighted mean of its valid taps (normalised convolution along the line), so each
// 1-D pass keeps NaN exactly where its input had it. Volumes without NaN take the first loop only
// (the sum is NaN only when a tap is), bit for bit scipy's result.
GP_HD float symmetric_tap_sum(const float* centre, int stride, const double* w, int radius) {
  if (centre[0] != centre[0]) return centre[0];  // its own bits: GPU and CPU NaNs differ
  double acc = double(centre[0]) * w[0];
  for (int j = radius; j >= 1; --j) acc += (double(centre[-j * stride]) + double(centre[j * stride])) * w[j];
  if (acc == acc) return float(acc);
  double sum = double(centre[0]) * w[0], weight = w[0];
  for (int j = radius; j >= 1; --j) {
    const float a = centre[-j * stride], b = centre[j * stride];
    if (a == a) sum += double(a) * w[j], weight += w[j];
    if (b == b) sum += double(b) * w[j], weight += w[j];
  }
  return float(sum / weight);
}

}  // namespace gp::pnm::math
