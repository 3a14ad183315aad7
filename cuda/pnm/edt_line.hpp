#pragma once
// The per-line steps of the distance transform, shared by the GPU kernels and the CPU reference
// so both round identically (cuda/pnm builds without fused multiply-add).
#include <cstddef>

#include "core/views.hpp"  // GP_VIEW_HD

namespace gp::pnm::edt_detail {

constexpr float infinity = __builtin_huge_valf();

// Squared distance along a column of n voxels to the nearest solid one (mask 0), from the
// distances in voxels: forward sweep into out, then backward sweep.
GP_VIEW_HD inline void column(const unsigned char* mask, float* out, std::size_t stride, int n, float spacing) {
  float run = infinity;  // voxels since the last solid one
  for (int i = 0; i < n; ++i) {
    run = mask[i * stride] == 0 ? 0.f : run + 1.f;
    out[i * stride] = run;
  }
  run = infinity;
  for (int i = n - 1; i >= 0; --i) {
    run = mask[i * stride] == 0 ? 0.f : run + 1.f;
    const float d = out[i * stride] < run ? out[i * stride] : run;
    const float physical = d * spacing;
    out[i * stride] = physical * physical;
  }
}

// Lower envelope of the parabolas f(j) + (x - j s)^2 over the n samples f[i * stride] (squared
// distances, +inf = no solid seen), evaluated at x = i s and written back in place. Scratch: the
// envelope's apexes (apex), their values (apex_f) and left boundaries (left), each n long with
// entries `scratch_stride` apart.
GP_VIEW_HD inline void envelope(float* f, std::size_t stride, int n, float s, int* apex, float* apex_f, float* left,
                                std::size_t scratch_stride) {
  int k = -1;
  for (int q = 0; q < n; ++q) {
    const float fq = f[q * stride];
    if (!(fq < infinity)) continue;
    const float xq = float(q) * s;
    const float gq = fq + xq * xq;
    float boundary = -infinity;
    while (k >= 0) {
      const int p = apex[k * scratch_stride];
      const float xp = float(p) * s;
      const float gp = apex_f[k * scratch_stride] + xp * xp;
      boundary = (gq - gp) / (2.f * (xq - xp));  // where parabola q starts to undercut parabola p
      if (boundary > left[k * scratch_stride]) break;
      --k;
      boundary = -infinity;
    }
    ++k;
    apex[k * scratch_stride] = q;
    apex_f[k * scratch_stride] = fq;
    left[k * scratch_stride] = boundary;
  }
  if (k < 0) return;  // no solid on this line: stays +inf
  const int last = k;
  k = 0;
  for (int q = 0; q < n; ++q) {
    const float x = float(q) * s;
    while (k < last && left[(k + 1) * scratch_stride] < x) ++k;
    const float d = x - float(apex[k * scratch_stride]) * s;
    f[q * stride] = apex_f[k * scratch_stride] + d * d;
  }
}

}  // namespace gp::pnm::edt_detail
