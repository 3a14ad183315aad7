#pragma once
// Per-pixel math shared by the kernels and their CPU references, so both compute the same thing
// (tests compare them and check this math against hand-computed values).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cuda/tonemap/tonemap_kernels.hpp"

#ifdef __CUDACC__
#define GP_HD __host__ __device__ __forceinline__
#else
#define GP_HD inline
#endif

namespace gp::tonemap::math {

struct Rgb {
  float r, g, b;
};

GP_HD float clamp01(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }
GP_HD Rgb clamp01(Rgb c) { return {clamp01(c.r), clamp01(c.g), clamp01(c.b)}; }
GP_HD float luminance(Rgb c) { return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b; }

// Auto-exposure histogram: log2 of (Y + epsilon), clamped into the histogram's range so both
// paths bin identically. epsilon keeps black pixels finite.
constexpr float log_lum_epsilon = 1e-6f;
constexpr float log_lum_min = -24.0f, log_lum_max = 24.0f;
constexpr int log_lum_bins = 1024;
GP_HD float log2_luminance(Rgb c) {
  const float l = log2f(fmaxf(luminance(c), 0.0f) + log_lum_epsilon);
  return fminf(fmaxf(l, log_lum_min), log_lum_max - 1e-4f);
}

// ---- tone curves: exposed scene-linear RGB -> display-linear RGB in [0,1] ----------------------

GP_HD Rgb reinhard(Rgb c) { return {c.r / (1 + c.r), c.g / (1 + c.g), c.b / (1 + c.b)}; }

// Reinhard et al. 2002, eq. 4, on luminance (keeps hue): L_d = L (1 + L / W^2) / (1 + L).
GP_HD Rgb reinhard_extended(Rgb c, float white) {
  const float l = luminance(c);
  if (l <= 0) return {0, 0, 0};
  const float ld = l * (1 + l / (white * white)) / (1 + l);
  const float k = ld / l;
  return clamp01(Rgb{c.r * k, c.g * k, c.b * k});
}

// John Hable's Uncharted 2 curve, with his exposure bias 2.0 and white point W.
GP_HD float hable_partial(float x) {
  const float A = 0.15f, B = 0.50f, C = 0.10f, D = 0.20f, E = 0.02f, F = 0.30f;
  return ((x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F)) - E / F;
}
GP_HD Rgb hable(Rgb c, float white) {
  const float bias = 2.0f;
  const float w = 1.0f / hable_partial(white);
  return clamp01(Rgb{hable_partial(bias * c.r) * w, hable_partial(bias * c.g) * w, hable_partial(bias * c.b) * w});
}

// Krzysztof Narkowicz's 2015 ACES filmic fit.
GP_HD float aces_narkowicz(float x) { return clamp01((x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f)); }

// Stephen Hill's fit of the ACES RRT+ODT (sRGB), as in MJP's BakingLab.
GP_HD float rrt_odt_fit(float v) {
  const float a = v * (v + 0.0245786f) - 0.000090537f;
  const float b = v * (0.983729f * v + 0.4329510f) + 0.238081f;
  return a / b;
}
GP_HD Rgb aces_hill(Rgb c) {
  const Rgb i{0.59719f * c.r + 0.35458f * c.g + 0.04823f * c.b, 0.07600f * c.r + 0.90834f * c.g + 0.01566f * c.b,
              0.02840f * c.r + 0.13383f * c.g + 0.83777f * c.b};
  const Rgb f{rrt_odt_fit(i.r), rrt_odt_fit(i.g), rrt_odt_fit(i.b)};
  return clamp01(Rgb{1.60475f * f.r - 0.53108f * f.g - 0.07367f * f.b, -0.10208f * f.r + 1.10813f * f.g - 0.00605f * f.b,
                     -0.00327f * f.r - 0.07276f * f.g + 1.07602f * f.b});
}

// AgX, Benjamin Wrensch's minimal version (inset matrix, log2 encoding, 6th-order sigmoid fit,
// outset matrix), then the 2.2 display EOTF so the result is display-linear like the others.
GP_HD float agx_contrast(float x) {
  const float x2 = x * x, x4 = x2 * x2;
  return 15.5f * x4 * x2 - 40.14f * x4 * x + 31.96f * x4 - 6.868f * x2 * x + 0.4298f * x2 + 0.1191f * x - 0.00232f;
}
GP_HD float agx_encode(float v) {
  const float min_ev = -12.47393f, max_ev = 4.026069f;
  const float l = fminf(fmaxf(log2f(fmaxf(v, 1e-10f)), min_ev), max_ev);
  return agx_contrast((l - min_ev) / (max_ev - min_ev));
}
GP_HD Rgb agx(Rgb c) {
  const Rgb i{0.842479062253094f * c.r + 0.0784335999999992f * c.g + 0.0792237451477643f * c.b,
              0.0423282422610123f * c.r + 0.878468636469772f * c.g + 0.0791661274605434f * c.b,
              0.0423756549057051f * c.r + 0.0784336f * c.g + 0.879142973793104f * c.b};
  const Rgb e{agx_encode(i.r), agx_encode(i.g), agx_encode(i.b)};
  const Rgb o{1.19687900512017f * e.r - 0.0980208811401368f * e.g - 0.0990297440797205f * e.b,
              -0.0528968517574562f * e.r + 1.15190312990417f * e.g - 0.0989611768448433f * e.b,
              -0.0529716355144438f * e.r - 0.0980434501171241f * e.g + 1.15107367264116f * e.b};
  return {powf(clamp01(o.r), 2.2f), powf(clamp01(o.g), 2.2f), powf(clamp01(o.b), 2.2f)};
}

// Khronos PBR Neutral (reference GLSL of the Khronos specification).
GP_HD Rgb pbr_neutral(Rgb c) {
  const float start_compression = 0.8f - 0.04f;
  const float desaturation = 0.15f;
  const float x = fminf(c.r, fminf(c.g, c.b));
  const float offset = x < 0.08f ? x - 6.25f * x * x : 0.04f;
  c = {c.r - offset, c.g - offset, c.b - offset};
  const float peak = fmaxf(c.r, fmaxf(c.g, c.b));
  if (peak < start_compression) return clamp01(c);
  const float d = 1.0f - start_compression;
  const float new_peak = 1.0f - d * d / (peak + d - start_compression);
  const float s = new_peak / peak;
  c = {c.r * s, c.g * s, c.b * s};
  const float g = 1.0f - 1.0f / (desaturation * (peak - new_peak) + 1.0f);
  return clamp01(Rgb{c.r + (new_peak - c.r) * g, c.g + (new_peak - c.g) * g, c.b + (new_peak - c.b) * g});
}

GP_HD Rgb apply_operator(Rgb c, const ToneParams& p) {
  // Negative scene values (from filtering or bad data) carry no light.
  c = {fmaxf(c.r, 0.0f), fmaxf(c.g, 0.0f), fmaxf(c.b, 0.0f)};
  switch (p.op) {
    case Operator::linear: return clamp01(c);
    case Operator::reinhard: return reinhard(c);
    case Operator::reinhard_extended: return reinhard_extended(c, p.white);
    case Operator::hable: return hable(c, p.white);
    case Operator::aces_narkowicz: return {aces_narkowicz(c.r), aces_narkowicz(c.g), aces_narkowicz(c.b)};
    case Operator::aces_hill: return aces_hill(c);
    case Operator::agx: return agx(c);
    case Operator::pbr_neutral: return pbr_neutral(c);
  }
  return clamp01(c);
}

// One pixel through exposure and the curve; alpha unchanged.
GP_HD Rgb tonemap_pixel(float r, float g, float b, float a, float scale, const ToneParams& p) {
  Rgb c{r * scale, g * scale, b * scale};
  if (p.premultiplied && a != 1.0f) {
    const float inv = a > 0.0f ? 1.0f / a : 0.0f;  // fully transparent: no colour to recover
    c = apply_operator(Rgb{c.r * inv, c.g * inv, c.b * inv}, p);
    const float k = fminf(fmaxf(a, 0.0f), 1.0f);
    return {c.r * k, c.g * k, c.b * k};
  }
  return apply_operator(c, p);
}

// ---- output transfer and quantisation --------------------------------------------------------

GP_HD float srgb_oetf(float x) { return x <= 0.0031308f ? 12.92f * x : 1.055f * powf(x, 1.0f / 2.4f) - 0.055f; }

GP_HD float transfer(float x, const EncodeParams& p) {
  x = clamp01(x);
  switch (p.transfer) {
    case Transfer::srgb: return srgb_oetf(x);
    case Transfer::gamma: return powf(x, 1.0f / p.gamma);
    case Transfer::linear: return x;
  }
  return x;
}

// lowbias32 (Chris Wellons): a well-mixed 32-bit integer hash, identical on host and device.
GP_HD std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
GP_HD float uniform01(std::uint32_t h) { return float(h >> 8) * (1.0f / 16777216.0f); }

// Triangular-PDF noise in (-1, 1) LSB for pixel (x, y), channel c.
GP_HD float tpdf_dither(int x, int y, int c, unsigned seed) {
  const std::uint32_t h = hash32(std::uint32_t(x) * 0x9E3779B1U ^ hash32(std::uint32_t(y) * 0x85EBCA77U ^ hash32(seed * 4U + std::uint32_t(c))));
  return uniform01(h) + uniform01(hash32(h)) - 1.0f;
}

// Display-linear value -> integer code in [0, max_code]; alpha (is_alpha) skips transfer and dither.
GP_HD std::uint32_t quantize(float v, bool is_alpha, int x, int y, int c, float max_code, const EncodeParams& p) {
  const float encoded = is_alpha ? clamp01(v) : transfer(v, p);
  float q = encoded * max_code;
  if (p.dither && !is_alpha) q += tpdf_dither(x, y, c, p.seed);
  q = fminf(fmaxf(floorf(q + 0.5f), 0.0f), max_code);
  return std::uint32_t(q);
}

// Straight colour for 4-channel output of premultiplied data; v = {r, g, b, a}.
GP_HD void unpremultiply_for_output(float* v, int channels, const EncodeParams& p) {
  if (!p.unpremultiply || channels != 4 || v[3] >= 1.0f) return;
  const float inv = v[3] > 0.0f ? 1.0f / v[3] : 0.0f;
  v[0] *= inv;
  v[1] *= inv;
  v[2] *= inv;
}

// ---- resampling filters ------------------------------------------------------------------------

GP_HD float filter_radius(Filter f) { return f == Filter::box ? 0.5f : f == Filter::triangle ? 1.0f : 3.0f; }

GP_HD float sinc(float x) {
  if (fabsf(x) < 1e-6f) return 1.0f;
  const float px = 3.14159265358979f * x;
  return sinf(px) / px;
}

GP_HD float filter_weight(Filter f, float t) {
  switch (f) {
    case Filter::box: return (t >= -0.5f && t < 0.5f) ? 1.0f : 0.0f;
    case Filter::triangle: return fmaxf(0.0f, 1.0f - fabsf(t));
    case Filter::lanczos3: return fabsf(t) < 3.0f ? sinc(t) * sinc(t / 3.0f) : 0.0f;
  }
  return 0.0f;
}

// Source taps of output sample `o` along an axis of `src_n` -> `dst_n` samples: pixel centres at
// (i + 0.5) * scale; the filter widens by the scale when shrinking (antialiasing).
struct Taps {
  int first, last;  // inclusive, before clamping to the edge
  float centre, inv_width;
};
GP_HD Taps taps_for(int o, int src_n, int dst_n, Filter f) {
  const float scale = float(src_n) / float(dst_n);
  const float width = fmaxf(1.0f, scale);
  const float centre = (float(o) + 0.5f) * scale;
  const float support = filter_radius(f) * width;
  return {int(floorf(centre - support - 0.5f)), int(ceilf(centre + support - 0.5f)), centre, 1.0f / width};
}

// half -> float for the CPU path (the GPU uses the hardware conversion).
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf / nan
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exponent = 113;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace gp::tonemap::math
