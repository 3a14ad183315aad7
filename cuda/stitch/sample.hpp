#pragma once
// Interpolation of interleaved images (1-4 channels; 8-bit, or 32-bit float for HDR: T is
// std::uint8_t or float) at continuous positions, pixel centres
// at integers, shared by the kernels and the CPU references. The texel policies say where a tap
// outside the image reads: clamped to a rectangle, wrapped around an equirect (x modulo W, rows
// mirrored across the pole half a turn away, as v360's ereflectx/reflecty), or continued on the
// neighbouring cube face. nvcc-safe.
#include <cstddef>
#include <cstdint>

#include "cuda/stitch/sphere.hpp"

namespace gp::stitch {

enum class Interp : std::uint8_t {
  nearest,
  bilinear,
  bicubic,   // v360's "cubic": 4-tap cubic Lagrange (calculate_bicubic_coeffs)
  lanczos3,  // 6 taps, sinc(x) sinc(x/3), weights normalised to sum 1
};

template <class T>
struct SourceImage {
  const T* data;
  std::size_t pitch;  // bytes between rows
  int width, height, channels;
};

template <class T>
GP_VIEW_HD const T* texel_at(const SourceImage<T>& s, int x, int y) {
  const T* row = reinterpret_cast<const T*>(reinterpret_cast<const std::uint8_t*>(s.data) + s.pitch * std::size_t(y));
  return row + std::size_t(x) * std::size_t(s.channels);
}

GP_VIEW_HD inline int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Taps clamped into the rectangle [x0, x1] x [y0, y1].
template <class T>
struct ClampTexels {
  SourceImage<T> image;
  int x0, y0, x1, y1;
  GP_VIEW_HD const T* at(int x, int y) const {
    return texel_at(image, clamp_int(x, x0, x1), clamp_int(y, y0, y1));
  }
};

template <class T>
GP_VIEW_HD ClampTexels<T> clamp_texels(const SourceImage<T>& s) {
  return ClampTexels<T>{s, 0, 0, s.width - 1, s.height - 1};
}

// Equirect wrap-around. v360_rows: row -k mirrors to row k (v360: its row 0 lies on the pole);
// otherwise to row k - 1 (the pole lies on the top edge). Rows past the bottom mirror to
// 2H - 1 - y in both (v360's reflecty). A 180-degree source (hemisphere) has no other side to
// wrap to: its edges extend.
template <class T>
struct EquirectTexels {
  SourceImage<T> image;
  bool v360_rows;
  bool hemisphere = false;
  GP_VIEW_HD const T* at(int x, int y) const {
    const int w = image.width, h = image.height;
    if (hemisphere) return texel_at(image, clamp_int(x, 0, w - 1), clamp_int(y, 0, h - 1));
    if (y < 0) {
      y = v360_rows ? -y : -1 - y;
      x += w / 2;
    } else if (y >= h) {
      y = 2 * h - 1 - y;
      x += w / 2;
    }
    x %= w;
    if (x < 0) x += w;
    return texel_at(image, x, clamp_int(y, 0, h - 1));
  }
};

// Six square faces of size n in v360's order; taps past a face's edge read the face their
// direction (on the face's extended plane) falls on, rounded to the nearest texel.
template <class T>
struct CubeTexels {
  const SourceImage<T>* faces;  // [6]
  int face, n;
  GP_VIEW_HD const T* at(int x, int y) const {
    if (x >= 0 && y >= 0 && x < n && y < n) return texel_at(faces[face], x, y);
    const Vec3 p = cube_face_point(face, cube_face_coord(float(x), n), cube_face_coord(float(y), n));
    const int other = cube_face_of(p);
    float a, b;
    cube_face_coords(other, p, a, b);
    const int ox = clamp_int(int(floorf(cube_face_pixel(a, n) + 0.5f)), 0, n - 1);
    const int oy = clamp_int(int(floorf(cube_face_pixel(b, n) + 0.5f)), 0, n - 1);
    return texel_at(faces[other], ox, oy);
  }
};

// 1-D filter weights at fractional offset t in [0, 1) for the K taps floor(position) + first ..
// floor(position) + first + K - 1 (K = 2 bilinear, 4 bicubic, 6 Lanczos-3). Fixed K, so the
// kernels keep the taps in registers.
template <int K>
GP_VIEW_HD void filter_weights(float t, float w[K]);

template <>
GP_VIEW_HD inline void filter_weights<2>(float t, float w[2]) {
  w[0] = 1.0f - t;
  w[1] = t;
}

template <>
GP_VIEW_HD inline void filter_weights<4>(float t, float w[4]) {
  const float tt = t * t;
  const float ttt = t * t * t;
  w[0] = -t / 3.0f + tt / 2.0f - ttt / 6.0f;
  w[1] = 1.0f - t / 2.0f - tt + ttt / 2.0f;
  w[2] = t + tt / 2.0f - ttt / 2.0f;
  w[3] = -t / 6.0f + ttt / 6.0f;
}

template <>
GP_VIEW_HD inline void filter_weights<6>(float t, float w[6]) {
  const float s = sin_pi_f(t);  // sin(pi (t - k)) = (-1)^k sin(pi t)
  float sum = 0.0f;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int i = 0; i < 6; ++i) {
    const float x = t - float(i - 2);
    if (x == 0.0f) {
      w[i] = 1.0f;
    } else {
      const float sx = (i & 1) ? -s : s;
      w[i] = 3.0f * sx * sin_pi_f(x / 3.0f) / (k_pi * k_pi * x * x);
    }
    sum += w[i];
  }
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int i = 0; i < 6; ++i) w[i] /= sum;
}

// K x K taps around (u, v), separable: rows weighted in x, then summed weighted in y.
template <int C, int K, class Texels>
GP_VIEW_HD void interpolate_taps(const Texels& texels, float u, float v, float out[C]) {
  const float fu = floorf(u), fv = floorf(v);
  float wx[K], wy[K];
  filter_weights<K>(u - fu, wx);
  filter_weights<K>(v - fv, wy);
  const int first = K == 2 ? 0 : (K == 4 ? -1 : -2);
  const int x0 = int(fu) + first, y0 = int(fv) + first;
  for (int c = 0; c < C; ++c) out[c] = 0.0f;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int j = 0; j < K; ++j) {
    float row[C];
    for (int c = 0; c < C; ++c) row[c] = 0.0f;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int i = 0; i < K; ++i) {
      const auto* p = texels.at(x0 + i, y0 + j);
      for (int c = 0; c < C; ++c) row[c] += wx[i] * float(p[c]);
    }
    for (int c = 0; c < C; ++c) out[c] += wy[j] * row[c];
  }
}

// Value of the source at (u, v), in the source's units (0..255 for 8-bit, unrounded).
template <int C, class Texels>
GP_VIEW_HD void interpolate(const Texels& texels, Interp m, float u, float v, float out[C]) {
  // Keep positions within int range (a direction far outside a clamped image).
  u = fminf(fmaxf(u, -1.0e6f), 1.0e6f);
  v = fminf(fmaxf(v, -1.0e6f), 1.0e6f);
  switch (m) {
    case Interp::nearest: {
      const auto* p = texels.at(int(floorf(u + 0.5f)), int(floorf(v + 0.5f)));
      for (int c = 0; c < C; ++c) out[c] = float(p[c]);
      return;
    }
    case Interp::bicubic: interpolate_taps<C, 4>(texels, u, v, out); return;
    case Interp::lanczos3: interpolate_taps<C, 6>(texels, u, v, out); return;
    default: interpolate_taps<C, 2>(texels, u, v, out); return;
  }
}

// Whether every tap interpolate() reads at (u, v) lies inside a w x h image (then any texel
// policy reads the same texels as clamp_texels, which costs less).
GP_VIEW_HD inline bool taps_inside(Interp m, float u, float v, int w, int h) {
  if (!(u > -1.0e6f && u < 1.0e6f && v > -1.0e6f && v < 1.0e6f)) return false;  // also NaN
  int first = 0, last = 1;  // tap offsets from floor(position)
  if (m == Interp::nearest) {
    u += 0.5f, v += 0.5f, last = 0;
  } else if (m == Interp::bicubic) {
    first = -1, last = 2;
  } else if (m == Interp::lanczos3) {
    first = -2, last = 3;
  }
  const int x = int(floorf(u)), y = int(floorf(v));
  return x + first >= 0 && y + first >= 0 && x + last < w && y + last < h;
}

// Round to nearest and clamp to 0..255 (NaN gives 0).
GP_VIEW_HD inline std::uint8_t to_u8(float v) {
  v = floorf(v + 0.5f);
  if (!(v > 0.0f)) return 0;
  return v >= 255.0f ? 255 : std::uint8_t(v);
}

// An interpolated value stored in an output sample: 8-bit rounded and clamped; float as it is
// (HDR: values above 1 and the negative lobes of bicubic and Lanczos kept, nothing clipped).
GP_VIEW_HD inline void store_sample(std::uint8_t& dst, float v) { dst = to_u8(v); }
GP_VIEW_HD inline void store_sample(float& dst, float v) { dst = v; }

}  // namespace gp::stitch
