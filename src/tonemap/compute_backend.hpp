#pragma once
// The compute stage runs the same sequence on the GPU or the CPU; a backend supplies memory and
// the kernel (or CPU reference) for each step.
#include <memory>

#include "core/gpu_runtime.hpp"
#include "core/gpu_timeline.hpp"
#include "cuda/exr/exr_kernels.hpp"
#include "cuda/png/png_kernels.hpp"
#include "cuda/tone/tone_kernels.hpp"

namespace gp::tonemap {

class ComputeBackend {
 public:
  virtual ~ComputeBackend() = default;
  // Working memory (device memory on the GPU), released by release() or, for the buffers
  // allocated since mark() returned `mark`, by release_to(mark); queued work that uses them
  // finishes first.
  virtual void* alloc(std::size_t bytes, const char* what) = 0;
  virtual std::size_t mark() const = 0;
  virtual void release_to(std::size_t mark) = 0;
  void release() { release_to(0); }
  // Host -> working memory and back (the GPU stages them through pinned chunks; the CPU copies).
  // download returns once host_dst holds the data.
  virtual void upload(void* dst, const void* host_src, std::size_t bytes) = 0;
  virtual void download(void* host_dst, const void* src, std::size_t bytes) = 0;
  // Sets scale[0] = value in working memory.
  virtual void set_scale(float* scale, float value) = 0;
  virtual float read_scale(const float* scale) = 0;  // after finish()
  virtual void to_rgba(const ImageView& src, const tone::ChannelMap& map, const ImageView& dst) = 0;
  virtual void auto_exposure(const ImageView& rgba, const tone::AutoExposureParams& p, float base, float* scale) = 0;
  virtual void tonemap(const ImageView& src, const ImageView& dst, const tone::ToneParams& p, const float* scale) = 0;
  virtual void resample(const ImageView& src, const ImageView& dst, tone::Filter f) = 0;
  virtual void encode(const ImageView& src, const ImageView& dst, const tone::EncodeParams& p) = 0;
  // The fast PNG path's steps (cuda/png/png_kernels.hpp) on working memory.
  virtual void png_filter(const ImageView& image, std::uint8_t* filtered) = 0;
  virtual void png_histogram(const std::uint8_t* filtered, std::size_t n, std::uint32_t* histogram,
                             png::AdlerPartial* partials) = 0;
  virtual void png_encode(const std::uint8_t* filtered, std::size_t n, const png::LitLenCode& code, std::uint64_t first_bit,
                          std::uint32_t* words, std::size_t word_count, std::uint64_t* end_bit) = 0;
  // OpenEXR blocks (cuda/exr/exr_kernels.hpp) in working memory: their stored bytes to unpacked
  // bytes, then into their files' pixels.
  virtual void exr_decompress(const exr::BlockBatch& batch) = 0;
  virtual void exr_unpack(const exr::BlockBatch& batch) = 0;
  // Waits for the queued work; stage times go to the report and trace.
  virtual void finish() = 0;
  // Brackets a stage for GPU timing (no-op on the CPU, where host stages are timed instead).
  virtual void begin_stage(const char* name) = 0;
  virtual void end_stage() = 0;
};

std::unique_ptr<ComputeBackend> make_gpu_backend(Runtime& runtime, int stream_id);
std::unique_ptr<ComputeBackend> make_cpu_backend();

}  // namespace gp::tonemap
