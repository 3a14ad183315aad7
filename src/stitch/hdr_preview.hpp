#pragma once
// 8-bit previews of float (HDR) outputs, made with the tone operators tonemap-exr also uses (the
// common module cuda/tone: to RGBA, exposure, tone curve, sRGB encode with dither), on the GPU or
// the CPU.
#include <cstddef>

#include "core/gpu_stream.hpp"
#include "core/views.hpp"
#include "stitch/stitch_settings.hpp"

namespace gp::stitch {

class HdrPreviewer {
 public:
  explicit HdrPreviewer(const HdrOutputConfig& config);

  // rgb: f32, 3 channels; preview: u8, 3 channels, the same size. Host views.
  void run_cpu(const ImageView& rgb, const ImageView& preview) const;

  // Device memory run_gpu needs for a width x height output.
  std::size_t scratch_bytes(int width, int height) const;
  // Device views, queued on `stream`. `scale`: a device float holding exposure_scale() (read
  // only, shared by every preview; auto exposure writes its own into the scratch).
  void run_gpu(const ImageView& rgb, const ImageView& preview, const float* scale, void* scratch, std::size_t bytes,
               const Stream& stream) const;

  // The exposure multiplier, 2^ev.
  float exposure_scale() const;

 private:
  const HdrOutputConfig& config_;
};

}  // namespace gp::stitch
