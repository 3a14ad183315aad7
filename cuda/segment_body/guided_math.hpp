#pragma once
// The four passes of the guided filter, one output element each (guided_filter.hpp), shared by
// the kernels and the CPU reference. Scratch holds `sums` (float4 per pixel) then `coefficients`
// (float2 per pixel); pass 3 writes its float2 column sums over the start of `sums`.
#include <cuda_runtime_api.h>  // float2, float4

#include "core/views.hpp"
#include "cuda/segment_body/frame_math.hpp"
#include "cuda/segment_body/guided_filter.hpp"

namespace gp::segbody::math {

struct GuidedScratch {
  float4* sums;          // width * height
  float2* coefficients;  // width * height
};

GP_HD std::size_t guided_sums_bytes(int width, int height) {
  return (std::size_t(width) * std::size_t(height) * sizeof(float4) + 255) & ~std::size_t(255);
}

GP_HD GuidedScratch guided_scratch(void* scratch, int width, int height) {
  char* base = static_cast<char*>(scratch);
  return GuidedScratch{reinterpret_cast<float4*>(base), reinterpret_cast<float2*>(base + guided_sums_bytes(width, height))};
}

// Pixels of the window [i - r, i + r] inside [0, n).
GP_HD int window_count(int i, int r, int n) { return mini(i + r, n - 1) - maxi(i - r, 0) + 1; }

GP_HD float guide_value(const ImageView& guide, int x, int y) { return float(guide.row<const std::uint8_t>(y)[x]) / 255.0f; }

// Pass 1: column sums of I, p, I^2, I p at (x, y).
GP_HD float4 column_sums(const ImageView& guide, const ImageView& mask, int r, int x, int y) {
  float4 s{0.0f, 0.0f, 0.0f, 0.0f};
  const int last = mini(y + r, guide.height - 1);
  for (int j = maxi(y - r, 0); j <= last; ++j) {
    const float i = guide_value(guide, x, j), p = mask.row<const float>(j)[x];
    s.x += i;
    s.y += p;
    s.z += i * i;
    s.w += i * p;
  }
  return s;
}

// Pass 2: a and b at (x, y) from the row sums of the column sums.
GP_HD float2 coefficients(const float4* sums, int width, int height, int r, float eps, int x, int y) {
  float4 s{0.0f, 0.0f, 0.0f, 0.0f};
  const float4* row = sums + std::size_t(y) * std::size_t(width);
  const int last = mini(x + r, width - 1);
  for (int i = maxi(x - r, 0); i <= last; ++i) {
    const float4 v = row[i];
    s.x += v.x;
    s.y += v.y;
    s.z += v.z;
    s.w += v.w;
  }
  const float n = float(window_count(x, r, width) * window_count(y, r, height));
  const float mean_i = s.x / n, mean_p = s.y / n, corr_i = s.z / n, corr_ip = s.w / n;
  const float var_i = corr_i - mean_i * mean_i;
  const float cov_ip = corr_ip - mean_i * mean_p;
  const float a = cov_ip / (var_i + eps);
  return float2{a, mean_p - a * mean_i};
}

// Pass 3: column sums of a and b at (x, y).
GP_HD float2 coefficient_column_sums(const float2* ab, int width, int height, int r, int x, int y) {
  float2 s{0.0f, 0.0f};
  const int last = mini(y + r, height - 1);
  for (int j = maxi(y - r, 0); j <= last; ++j) {
    const float2 v = ab[std::size_t(j) * std::size_t(width) + std::size_t(x)];
    s.x += v.x;
    s.y += v.y;
  }
  return s;
}

// Pass 4: q at (x, y) from the row sums of pass 3's column sums.
GP_HD float guided_output(const float2* column, const ImageView& guide, int r, int x, int y) {
  const int width = guide.width;
  float2 s{0.0f, 0.0f};
  const float2* row = column + std::size_t(y) * std::size_t(width);
  const int last = mini(x + r, width - 1);
  for (int i = maxi(x - r, 0); i <= last; ++i) {
    s.x += row[i].x;
    s.y += row[i].y;
  }
  const float n = float(window_count(x, r, width) * window_count(y, r, guide.height));
  return (s.x / n) * guide_value(guide, x, y) + s.y / n;
}

}  // namespace gp::segbody::math
