#pragma once
// Per-pixel math of the tone operators (tonemap-exr, stitch-360's previews; stitch-360 also decodes
// sRGB with it), shared by the kernels and their CPU references, so both compute the same thing;
// tests check it against hand-computed values. Tone curves take exposed scene-linear Rec.709 RGB
// (negative values are treated as 0) and return display-linear RGB in [0, 1].
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "cuda/common/host_device.hpp"
#include "cuda/tone/tone_kernels.hpp"

namespace gp::tone::math {

struct Rgb {
  float r, g, b;
};

GP_HD float clamp01(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }  // NaN -> 0
GP_HD Rgb clamp01(Rgb c) { return {clamp01(c.r), clamp01(c.g), clamp01(c.b)}; }
GP_HD Rgb scaled(Rgb c, float k) { return {c.r * k, c.g * k, c.b * k}; }

// x^e for x in [0, 1] and e > 0, as exp2(e log2 x): a few ulp like powf but without its general
// case handling, which made the transfer and AgX kernels compute-bound. pow_unit(0, e) = 0.
GP_HD float pow_unit(float x, float e) { return exp2f(e * log2f(x)); }

// Rec.709 luminance. Written with explicit fmaf so that host and device round identically (nvcc
// would otherwise fuse the multiply-adds and g++ would not): auto exposure bins this value.
GP_HD float luminance(Rgb c) { return fmaf(0.0722f, c.b, fmaf(0.7152f, c.g, 0.2126f * c.r)); }

// ---- tone curves -------------------------------------------------------------------------------

// Reinhard 2002, eq. 3, per channel: x / (1 + x).
GP_HD float reinhard(float x) { return x / (1.0f + x); }

// Reinhard 2002, eq. 4, on luminance L with white point W: L (1 + L/W^2) / (1 + L), and the RGB
// scaled by the same factor so hue and saturation are kept (L = W maps to 1). Saturated colours
// can leave [0, 1] and are clipped per channel.
GP_HD Rgb reinhard_extended(Rgb c, float white) {
  const float l = luminance(c);
  if (!(l > 0.0f)) return {0, 0, 0};
  return clamp01(scaled(c, (1.0f + l / (white * white)) / (1.0f + l)));
}

// John Hable's Uncharted 2 filmic curve ("Filmic Tonemapping Operators", 2010), per channel:
// f(bias * x) / f(W) with his exposure bias 2.0, so scene value W/2 maps to 1.
GP_HD float hable_curve(float x) {
  constexpr float A = 0.15f, B = 0.50f, C = 0.10f, D = 0.20f, E = 0.02f, F = 0.30f;
  return (x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F) - E / F;
}
GP_HD Rgb hable(Rgb c, float white) {
  constexpr float exposure_bias = 2.0f;
  const float white_scale = 1.0f / hable_curve(white);
  return clamp01(Rgb{hable_curve(exposure_bias * c.r) * white_scale, hable_curve(exposure_bias * c.g) * white_scale,
                     hable_curve(exposure_bias * c.b) * white_scale});
}

// Krzysztof Narkowicz's 2015 fit of the ACES RRT+ODT, per channel. The fit is pre-exposed
// (1.0 maps to about 0.8); his note's "multiply by 0.6" for the original curve is left to the
// exposure setting.
GP_HD float aces_narkowicz(float x) {
  return clamp01((x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f));
}

// Stephen Hill's fit of the ACES RRT+ODT for sRGB displays (MJP's BakingLab, ACES.hlsl):
// ACESInputMat (sRGB -> AP1 with the RRT's saturation), RRTAndODTFit per channel, ACESOutputMat.
GP_HD float rrt_and_odt_fit(float v) {
  const float a = v * (v + 0.0245786f) - 0.000090537f;
  const float b = v * (0.983729f * v + 0.4329510f) + 0.238081f;
  return a / b;
}
GP_HD Rgb aces_hill(Rgb c) {
  const Rgb i{0.59719f * c.r + 0.35458f * c.g + 0.04823f * c.b,  //
              0.07600f * c.r + 0.90834f * c.g + 0.01566f * c.b,  //
              0.02840f * c.r + 0.13383f * c.g + 0.83777f * c.b};
  const Rgb f{rrt_and_odt_fit(i.r), rrt_and_odt_fit(i.g), rrt_and_odt_fit(i.b)};
  return clamp01(Rgb{1.60475f * f.r - 0.53108f * f.g - 0.07367f * f.b,   //
                     -0.10208f * f.r + 1.10813f * f.g - 0.00605f * f.b,  //
                     -0.00327f * f.r - 0.07276f * f.g + 1.07602f * f.b});
}

// AgX, Benjamin Wrensch's "minimal AgX" (2024): inset matrix, log2 encoding between
// min_ev = -12.47393 and max_ev = 4.026069, the 6th-order fit of the default contrast sigmoid, then
// his agxEotf (outset matrix, 2.2 power) so the result is display-linear like the other curves.
// The GLSL matrices are column-major; the rows below are their transposes.
// The sigmoid fit 15.5 x^6 - 40.14 x^5 + 31.96 x^4 - 6.868 x^3 + 0.4298 x^2 + 0.1191 x - 0.00232,
// in Horner form with explicit fmaf: its terms cancel near x = 1 (they are ~40 for a result ~1), so
// the evaluation order matters, and this way host and device round alike.
GP_HD float agx_contrast(float x) {
  float p = fmaf(15.5f, x, -40.14f);
  p = fmaf(p, x, 31.96f);
  p = fmaf(p, x, -6.868f);
  p = fmaf(p, x, 0.4298f);
  p = fmaf(p, x, 0.1191f);
  return fmaf(p, x, -0.00232f);
}
GP_HD float agx_log_encode(float v) {
  constexpr float min_ev = -12.47393f, max_ev = 4.026069f;
  const float ev = fminf(fmaxf(log2f(fmaxf(v, 1e-10f)), min_ev), max_ev);  // log2(0) would be -inf
  return agx_contrast((ev - min_ev) / (max_ev - min_ev));
}
GP_HD Rgb agx(Rgb c) {
  const Rgb inset{0.842479062253094f * c.r + 0.0784335999999992f * c.g + 0.0792237451477643f * c.b,
                  0.0423282422610123f * c.r + 0.878468636469772f * c.g + 0.0791661274605434f * c.b,
                  0.0423756549057051f * c.r + 0.0784336f * c.g + 0.879142973793104f * c.b};
  const Rgb e{agx_log_encode(inset.r), agx_log_encode(inset.g), agx_log_encode(inset.b)};
  const Rgb outset{1.19687900512017f * e.r - 0.0980208811401368f * e.g - 0.0990297440797205f * e.b,
                   -0.0528968517574562f * e.r + 1.15190312990417f * e.g - 0.0989611768448433f * e.b,
                   -0.0529716355144438f * e.r - 0.0980434501171241f * e.g + 1.15107367264116f * e.b};
  return {pow_unit(clamp01(outset.r), 2.2f), pow_unit(clamp01(outset.g), 2.2f), pow_unit(clamp01(outset.b), 2.2f)};
}

// Khronos PBR Neutral (KhronosGroup/ToneMapping, PBR_Neutral/pbrNeutral.glsl): subtracts the 4%
// Fresnel offset (less near black), is linear below the compression start 0.76 and compresses and
// desaturates peaks above it.
GP_HD Rgb pbr_neutral(Rgb c) {
  constexpr float start_compression = 0.8f - 0.04f, desaturation = 0.15f;
  const float x = fminf(c.r, fminf(c.g, c.b));
  const float offset = x < 0.08f ? x - 6.25f * x * x : 0.04f;
  c = {c.r - offset, c.g - offset, c.b - offset};
  const float peak = fmaxf(c.r, fmaxf(c.g, c.b));
  if (peak < start_compression) return clamp01(c);
  constexpr float d = 1.0f - start_compression;
  const float new_peak = 1.0f - d * d / (peak + d - start_compression);
  c = scaled(c, new_peak / peak);
  const float g = 1.0f - 1.0f / (desaturation * (peak - new_peak) + 1.0f);  // mix(c, new_peak, g)
  return clamp01(Rgb{c.r + (new_peak - c.r) * g, c.g + (new_peak - c.g) * g, c.b + (new_peak - c.b) * g});
}

// The curve chosen at compile time (kernels are instantiated per operator, so no switch per pixel).
// Inputs are limited to [0, 1e9]: negative light (from filtering or bad data) and NaN become 0;
// inf and huge values saturate every curve long before 1e9, where each formula is still finite
// (Hable's squares its input; inf / inf would be NaN, shown as black).
GP_HD float curve_input(float x) { return fminf(fmaxf(x, 0.0f), 1e9f); }

template <Operator Op>
GP_HD Rgb tone_curve(Rgb c, float white) {
  c = {curve_input(c.r), curve_input(c.g), curve_input(c.b)};
  if constexpr (Op == Operator::linear) return clamp01(c);
  else if constexpr (Op == Operator::reinhard) return {reinhard(c.r), reinhard(c.g), reinhard(c.b)};
  else if constexpr (Op == Operator::reinhard_extended) return reinhard_extended(c, white);
  else if constexpr (Op == Operator::hable) return hable(c, white);
  else if constexpr (Op == Operator::aces_narkowicz) return {aces_narkowicz(c.r), aces_narkowicz(c.g), aces_narkowicz(c.b)};
  else if constexpr (Op == Operator::aces_hill) return aces_hill(c);
  else if constexpr (Op == Operator::agx) return agx(c);
  else return pbr_neutral(c);
}

// Straight colour of a premultiplied pixel (alpha 0 carries no colour: black); alpha unchanged.
GP_HD float4 unpremultiplied(float4 v) {
  const float inv = v.w > 0.0f ? 1.0f / v.w : 0.0f;
  return float4{v.x * inv, v.y * inv, v.z * inv, v.w};
}

// One RGBA pixel: rgb * scale through the curve, alpha copied. Premultiplied colour goes through
// the curve straight (the curve is not linear) and is premultiplied again afterwards, so MIP
// filtering keeps averaging premultiplied values.
template <Operator Op>
GP_HD float4 tonemap_pixel(float4 v, float scale, const ToneParams& p) {
  const bool straighten = p.premultiplied && v.w != 1.0f;
  const float4 s = straighten ? unpremultiplied(v) : v;
  const Rgb c = tone_curve<Op>(Rgb{s.x * scale, s.y * scale, s.z * scale}, p.white);
  const float k = straighten ? clamp01(v.w) : 1.0f;
  return float4{c.r * k, c.g * k, c.b * k, v.w};
}

// Calls f(std::integral_constant<Operator, op>{}) so a runtime choice selects a specialised loop
// or kernel.
template <class F>
decltype(auto) with_operator(Operator op, F&& f) {
  using O = Operator;
  switch (op) {
    case O::linear: return f(std::integral_constant<O, O::linear>{});
    case O::reinhard: return f(std::integral_constant<O, O::reinhard>{});
    case O::reinhard_extended: return f(std::integral_constant<O, O::reinhard_extended>{});
    case O::hable: return f(std::integral_constant<O, O::hable>{});
    case O::aces_narkowicz: return f(std::integral_constant<O, O::aces_narkowicz>{});
    case O::aces_hill: return f(std::integral_constant<O, O::aces_hill>{});
    case O::agx: return f(std::integral_constant<O, O::agx>{});
    case O::pbr_neutral: return f(std::integral_constant<O, O::pbr_neutral>{});
  }
  throw Error("unknown tone-mapping operator " + std::to_string(int(op)));
}

// Runtime-dispatched curve, for tests and one-off values.
inline Rgb apply_tone_curve(Rgb c, const ToneParams& p) {
  return with_operator(p.op, [&](auto op) { return tone_curve<decltype(op)::value>(c, p.white); });
}

// ---- output transfer and quantisation ----------------------------------------------------------

// IEC 61966-2-1 sRGB encoding of a linear value in [0, 1].
GP_HD float srgb_oetf(float x) { return x <= 0.0031308f ? 12.92f * x : 1.055f * pow_unit(x, 1.0f / 2.4f) - 0.055f; }

GP_HD float transfer_encode(float x, const EncodeParams& p) {
  x = clamp01(x);
  switch (p.transfer) {
    case Transfer::srgb: return srgb_oetf(x);
    case Transfer::gamma: return pow_unit(x, 1.0f / p.gamma);
    case Transfer::linear: return x;
  }
  return x;
}

// The inverse of transfer_encode: display-encoded [0, 1] back to linear light (an EXR holds
// linear values, so a tiled MIP EXR is written from these).
GP_HD float transfer_decode(float v, const EncodeParams& p) {
  v = clamp01(v);
  switch (p.transfer) {
    case Transfer::srgb: return v <= 0.04045f ? v / 12.92f : pow_unit((v + 0.055f) / 1.055f, 2.4f);
    case Transfer::gamma: return pow_unit(v, p.gamma);
    case Transfer::linear: return v;
  }
  return v;
}

// lowbias32 (Chris Wellons' hash-prospector): a well-mixed 32-bit integer hash; integer-only, so
// host and device agree bit for bit.
GP_HD std::uint32_t lowbias32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
GP_HD float unit_uniform(std::uint32_t h) { return float(h >> 8) * (1.0f / 16777216.0f); }  // [0, 1)

// Triangular-PDF noise in (-1, 1) (LSB units) for pixel (x, y), channel c: the sum of two
// independent uniforms minus 1, keyed on (x, y, c, seed) so the pattern is deterministic.
GP_HD float tpdf_noise(int x, int y, int c, unsigned seed) {
  std::uint32_t h = lowbias32(seed ^ 0x9e3779b9U);
  h = lowbias32(h ^ std::uint32_t(x));
  h = lowbias32(h ^ std::uint32_t(y));
  h = lowbias32(h ^ std::uint32_t(c));
  return unit_uniform(h) + unit_uniform(lowbias32(h ^ 0x68e31da4U)) - 1.0f;
}

// Rounds code + noise to the nearest integer in [0, max_code].
GP_HD std::uint32_t round_to_code(float code, float max_code) {
  return std::uint32_t(fminf(fmaxf(floorf(code + 0.5f), 0.0f), max_code));
}

// Integer codes of one display-linear RGBA pixel. For output with alpha, premultiplied colour is
// made straight first (p.unpremultiply; PNG and TIFF store straight alpha); output without alpha
// keeps premultiplied colour, i.e. composited over black. Colour channels go through the transfer
// and the optional dither; exact black and white are not dithered (noise there could only go one
// way: it would lift blacks and dim whites). Alpha (a linear coverage value) is only clamped and
// quantised: no transfer, and no dither, which would add noise to edges and make opaque pixels
// non-opaque.
struct Codes {
  std::uint32_t c[4];
};
GP_HD Codes encode_pixel(float4 v, int x, int y, const EncodeParams& p, float max_code, bool with_alpha) {
  if (with_alpha && p.unpremultiply && v.w < 1.0f) v = unpremultiplied(v);
  const float rgb[3] = {v.x, v.y, v.z};
  Codes out;
  for (int c = 0; c < 3; ++c) {
    const float linear = clamp01(rgb[c]);
    const bool dither = p.dither && linear > 0.0f && linear < 1.0f;
    const float noise = dither ? tpdf_noise(x, y, c, p.seed) : 0.0f;
    out.c[c] = round_to_code(transfer_encode(linear, p) * max_code + noise, max_code);
  }
  out.c[3] = round_to_code(clamp01(v.w) * max_code, max_code);
  return out;
}

}  // namespace gp::tone::math
