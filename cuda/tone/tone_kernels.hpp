#pragma once
// Launch API of the tone operators and their CPU references: a common module (cuda/tone, namespace
// gp::tone) that tonemap-exr and stitch-360's previews of float outputs both use. Every *_gpu
// function enqueues work on `stream` (device pointers in the views); its *_cpu twin does the same
// computation on host memory with gp::parallel_for. Same arguments, same results (within 1 LSB
// after quantisation).
//
// Data flow per image:  source (f16/f32, any channel count)
//   -> to_rgba_f32         RGBA float, scene-linear
//   -> auto_exposure       one float: the linear exposure scale (optional; else 2^EV)
//   -> tonemap             RGBA float, display-linear in [0,1], alpha passed through
//   -> resample            MIP levels / thumbnails, still display-linear (filtering in linear light)
//   -> encode              u8/u16 with the sRGB or gamma transfer and optional dither
#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "core/views.hpp"

namespace gp::tone {

// Tone curves (formulas and sources in tone_math.hpp): linear = clamp; reinhard = x/(1+x) per
// channel; reinhard_extended on luminance with white point; hable = Uncharted 2 with bias 2 and
// linear white; aces_narkowicz / aces_hill = the two ACES fits; agx = Wrensch's minimal AgX;
// pbr_neutral = Khronos PBR Neutral.
enum class Operator { linear, reinhard, reinhard_extended, hable, aces_narkowicz, aces_hill, agx, pbr_neutral };
// Their names in job configs (tonemap-exr's /tonemap/operator, stitch-360's previews), in the
// enum's order, and what each is.
constexpr const char* operator_names[] = {"linear", "reinhard", "reinhard_extended", "hable",
                                          "aces_narkowicz", "aces_hill", "agx", "pbr_neutral"};
constexpr const char* operator_doc =
    "operator: linear (clamp), reinhard, reinhard_extended, hable (Uncharted 2), aces_narkowicz, aces_hill (fitted "
    "RRT+ODT), agx, pbr_neutral (Khronos)";
// The operator of one of operator_names (a validated config's); others throw std::invalid_argument.
inline Operator operator_named(const std::string& name) {
  for (std::size_t i = 0; i < sizeof(operator_names) / sizeof(operator_names[0]); ++i)
    if (name == operator_names[i]) return Operator(i);
  throw std::invalid_argument("unknown tone-mapping operator " + name);
}
enum class Transfer { srgb, gamma, linear };
// box = pixel-area average (coverage weights), triangle = tent, lanczos3 = sinc-windowed sinc.
enum class Filter { box, triangle, lanczos3 };

// Which source channel feeds R, G, B, A; -1 for A means opaque (1.0). For a one-channel source
// pass {0, 0, 0, -1}.
struct ChannelMap {
  int index[4] = {0, 1, 2, -1};
};

struct ToneParams {
  Operator op = Operator::aces_hill;
  float white = 11.2f;  // reinhard_extended: scene value that maps to 1.0; hable: linear white W
  // Colours are premultiplied by alpha (the EXR convention): the curve is applied to the
  // un-premultiplied colour and the result premultiplied again, so filtering stays correct.
  bool premultiplied = true;
};

struct AutoExposureParams {
  float key = 0.18f;          // target log-average luminance (Reinhard's "key value")
  float percentile_low = 0;   // 0..100: log-luminances below this percentile are clamped to it
  float percentile_high = 100;  // (to the edge of its 1/16-stop histogram bin; exposure_math.hpp)
  float min_scale = 1.0f / 65536, max_scale = 65536;  // clamp of the resulting exposure scale
};

struct EncodeParams {
  Transfer transfer = Transfer::srgb;
  float gamma = 2.2f;          // for Transfer::gamma: out = in^(1/gamma)
  bool dither = false;         // triangular-PDF dither of +-1 LSB before rounding (meant for 8-bit
                               // output); exact black and white and alpha are never dithered
  unsigned seed = 0;           // dither pattern seed (deterministic; same on GPU and CPU)
  // Divide colour by alpha before encoding 4-channel output (PNG/TIFF store straight alpha);
  // 3-channel output keeps premultiplied colour, i.e. composited over black.
  bool unpremultiply = true;
};

// ---- source -> RGBA float ---------------------------------------------------------------------
// src: f16 or f32, src.channels >= 1; dst: f32, 4 channels, same size.
void to_rgba_f32_gpu(const ImageView& src, const ChannelMap& map, const ImageView& dst, cudaStream_t stream);
void to_rgba_f32_cpu(const ImageView& src, const ChannelMap& map, const ImageView& dst);

// ---- auto exposure ----------------------------------------------------------------------------
// Luminance Y = 0.2126 R + 0.7152 G + 0.0722 B of `rgba` (f32x4), log-average
// exp2(mean(log2(1e-6 + Y))) with optional percentile clamping (from a histogram of log2 Y),
// then  scale = clamp(base_scale * key / log_average, min_scale, max_scale)  written to
// out_scale[0] (device memory for _gpu, host for _cpu) and the log-average to out_scale[1].
// The result stays on the device so the tonemap kernel reads it without a host round trip.
std::size_t auto_exposure_scratch_bytes(int width, int height);
void auto_exposure_gpu(const ImageView& rgba, const AutoExposureParams& p, float base_scale, float* out_scale,
                       void* scratch, std::size_t scratch_bytes, cudaStream_t stream);
void auto_exposure_cpu(const ImageView& rgba, const AutoExposureParams& p, float base_scale, float* out_scale);

// ---- tone mapping -----------------------------------------------------------------------------
// dst = op(src.rgb * scale[0]) with alpha copied (see ToneParams::premultiplied); src and dst f32x4 of the same size and may alias.
// `scale` points to one float (device memory for _gpu).
void tonemap_gpu(const ImageView& src, const ImageView& dst, const ToneParams& p, const float* scale,
                 cudaStream_t stream);
void tonemap_cpu(const ImageView& src, const ImageView& dst, const ToneParams& p, const float* scale);

// ---- resampling (MIP levels, thumbnails) --------------------------------------------------------
// Separable resize of f32x4 `src` to the size of `dst`, antialiased: the filter is widened by the
// scale factor when shrinking (box at exactly 2x is the 2x2 average). `scratch` holds the
// intermediate (dst.width x src.height f32x4).
std::size_t resample_scratch_bytes(int src_width, int src_height, int dst_width, int dst_height);
void resample_gpu(const ImageView& src, const ImageView& dst, Filter filter, void* scratch, cudaStream_t stream);
void resample_cpu(const ImageView& src, const ImageView& dst, Filter filter);

// ---- quantisation -----------------------------------------------------------------------------
// src f32x4 display-linear -> dst u8 or u16 with dst.channels 3 (alpha dropped) or 4. Colour goes
// through the transfer; alpha is quantised linearly (no transfer, no dither). dst may start at
// any byte (outputs are packed back to back).
void encode_gpu(const ImageView& src, const ImageView& dst, const EncodeParams& p, cudaStream_t stream);
void encode_cpu(const ImageView& src, const ImageView& dst, const EncodeParams& p);

}  // namespace gp::tone
