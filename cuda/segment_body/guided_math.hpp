#pragma once
// The passes of the guided filter, one output element each (guided_filter.hpp), shared by the
// kernels and the CPU reference.
#include <cuda_runtime_api.h>  // float2, float4

#include "core/views.hpp"
#include "cuda/segment_body/frame_types.hpp"
#include "cuda/segment_body/guided_filter.hpp"

namespace gp::segbody::math {

// Where the box passes run: the frame's size, or its 1/s blocks.
struct GuidedGrid {
  int width, height, radius, subsample;
};

GP_HD GuidedGrid guided_grid(int width, int height, const GuidedParams& p) {
  const int s = p.subsample < 1 ? 1 : p.subsample;
  return GuidedGrid{(width + s - 1) / s, (height + s - 1) / s, (p.radius + s - 1) / s, s};
}

GP_HD std::size_t align256(std::size_t v) { return (v + 255) & ~std::size_t(255); }

// Scratch: [block means (I, p), subsampled only] [sums: float4 per grid pixel] [coefficients:
// float2 per grid pixel]. The column sums of a, b (float2) go over `sums`, which their row pass
// no longer needs; the subsampled filter's mean(a), mean(b) over `block_means`.
struct GuidedScratch {
  float2* block_means;
  float4* sums;
  float2* coefficients;
};

GP_HD std::size_t guided_means_bytes(const GuidedGrid& g) {
  return g.subsample > 1 ? align256(std::size_t(g.width) * std::size_t(g.height) * sizeof(float2)) : 0;
}
GP_HD std::size_t guided_sums_bytes(const GuidedGrid& g) {
  return align256(std::size_t(g.width) * std::size_t(g.height) * sizeof(float4));
}
GP_HD std::size_t guided_scratch_bytes(const GuidedGrid& g) {
  return guided_means_bytes(g) + guided_sums_bytes(g) + std::size_t(g.width) * std::size_t(g.height) * sizeof(float2);
}

GP_HD GuidedScratch guided_scratch(void* scratch, const GuidedGrid& g) {
  char* base = static_cast<char*>(scratch);
  GuidedScratch s;
  s.block_means = reinterpret_cast<float2*>(base);
  s.sums = reinterpret_cast<float4*>(base + guided_means_bytes(g));
  s.coefficients = reinterpret_cast<float2*>(base + guided_means_bytes(g) + guided_sums_bytes(g));
  return s;
}

// Pixels of the window [i - r, i + r] inside [0, n).
GP_HD int window_count(int i, int r, int n) { return mini(i + r, n - 1) - maxi(i - r, 0) + 1; }

GP_HD float guide_value(const ImageView& guide, int x, int y) { return float(guide.row<const std::uint8_t>(y)[x]) / 255.0f; }

// What the box passes read: the full-size guide and mask, or the block means.
struct GuidedInput {
  ImageView guide, mask;
  const float2* block_means;  // null at full size
  int width;                  // of the grid
  GP_HD void at(int x, int y, float& i, float& p) const {
    if (block_means) {
      const float2 v = block_means[std::size_t(y) * std::size_t(width) + std::size_t(x)];
      i = v.x;
      p = v.y;
    } else {
      i = guide_value(guide, x, y);
      p = mask.row<const float>(y)[x];
    }
  }
};

// Subsampled pass 0: the means of I and p over block (bx, by) (the pixels inside the frame).
GP_HD float2 block_mean(const ImageView& guide, const ImageView& mask, int s, int bx, int by) {
  const int x_end = mini(bx * s + s, guide.width), y_end = mini(by * s + s, guide.height);
  float si = 0.0f, sp = 0.0f;
  for (int y = by * s; y < y_end; ++y)
    for (int x = bx * s; x < x_end; ++x) {
      si += guide_value(guide, x, y);
      sp += mask.row<const float>(y)[x];
    }
  const float n = float((x_end - bx * s) * (y_end - by * s));
  return float2{si / n, sp / n};
}

// Pass 1: column sums of I, p, I^2, I p at (x, y) of the grid.
GP_HD float4 column_sums(const GuidedInput& in, const GuidedGrid& g, int x, int y) {
  float4 s{0.0f, 0.0f, 0.0f, 0.0f};
  const int last = mini(y + g.radius, g.height - 1);
  for (int j = maxi(y - g.radius, 0); j <= last; ++j) {
    float i, p;
    in.at(x, j, i, p);
    s.x += i;
    s.y += p;
    s.z += i * i;
    s.w += i * p;
  }
  return s;
}

// Pass 2: a and b at (x, y) from the row sums of the column sums.
GP_HD float2 coefficients(const float4* sums, const GuidedGrid& g, float eps, int x, int y) {
  float4 s{0.0f, 0.0f, 0.0f, 0.0f};
  const float4* row = sums + std::size_t(y) * std::size_t(g.width);
  const int last = mini(x + g.radius, g.width - 1);
  for (int i = maxi(x - g.radius, 0); i <= last; ++i) {
    const float4 v = row[i];
    s.x += v.x;
    s.y += v.y;
    s.z += v.z;
    s.w += v.w;
  }
  const float n = float(window_count(x, g.radius, g.width) * window_count(y, g.radius, g.height));
  const float mean_i = s.x / n, mean_p = s.y / n, corr_i = s.z / n, corr_ip = s.w / n;
  const float var_i = corr_i - mean_i * mean_i;
  const float cov_ip = corr_ip - mean_i * mean_p;
  const float a = cov_ip / (var_i + eps);
  return float2{a, mean_p - a * mean_i};
}

// Pass 3: column sums of a and b at (x, y).
GP_HD float2 coefficient_column_sums(const float2* ab, const GuidedGrid& g, int x, int y) {
  float2 s{0.0f, 0.0f};
  const int last = mini(y + g.radius, g.height - 1);
  for (int j = maxi(y - g.radius, 0); j <= last; ++j) {
    const float2 v = ab[std::size_t(j) * std::size_t(g.width) + std::size_t(x)];
    s.x += v.x;
    s.y += v.y;
  }
  return s;
}

// Pass 4: mean(a), mean(b) at (x, y) from the row sums of pass 3's column sums.
GP_HD float2 mean_coefficients(const float2* column, const GuidedGrid& g, int x, int y) {
  float2 s{0.0f, 0.0f};
  const float2* row = column + std::size_t(y) * std::size_t(g.width);
  const int last = mini(x + g.radius, g.width - 1);
  for (int i = maxi(x - g.radius, 0); i <= last; ++i) {
    s.x += row[i].x;
    s.y += row[i].y;
  }
  const float n = float(window_count(x, g.radius, g.width) * window_count(y, g.radius, g.height));
  return float2{s.x / n, s.y / n};
}

// Subsampled pass 5: mean(a), mean(b) interpolated bilinearly at frame pixel (x, y) (block centres
// at (b + 0.5) s - 0.5, taps clamped to the grid), then q with the full-size I.
GP_HD float subsampled_output(const float2* means, const GuidedGrid& g, const ImageView& guide, int x, int y) {
  const float inv = 1.0f / float(g.subsample);
  const float cx = (float(x) + 0.5f) * inv - 0.5f, cy = (float(y) + 0.5f) * inv - 0.5f;
  const int fx = int(floorf(cx)), fy = int(floorf(cy));
  const float tx = cx - float(fx), ty = cy - float(fy);
  const int x0 = clampi(fx, 0, g.width - 1), x1 = clampi(fx + 1, 0, g.width - 1);
  const float2* r0 = means + std::size_t(clampi(fy, 0, g.height - 1)) * std::size_t(g.width);
  const float2* r1 = means + std::size_t(clampi(fy + 1, 0, g.height - 1)) * std::size_t(g.width);
  const float a_top = r0[x0].x + tx * (r0[x1].x - r0[x0].x), a_bottom = r1[x0].x + tx * (r1[x1].x - r1[x0].x);
  const float b_top = r0[x0].y + tx * (r0[x1].y - r0[x0].y), b_bottom = r1[x0].y + tx * (r1[x1].y - r1[x0].y);
  const float a = a_top + ty * (a_bottom - a_top), b = b_top + ty * (b_bottom - b_top);
  return a * guide_value(guide, x, y) + b;
}

}  // namespace gp::segbody::math
