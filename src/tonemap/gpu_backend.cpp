#include <vector>

#include "core/staging_buffer.hpp"
#include "tonemap/compute_backend.hpp"

namespace gp::tonemap {
namespace {

// Pinned chunk size for staged copies: big enough to keep the DMA engine busy, small enough that
// pinning two per stream at start-up is cheap.
constexpr std::size_t kStagingChunk = std::size_t(8) << 20;

class GpuBackend final : public ComputeBackend {
 public:
  GpuBackend(Runtime& rt, int stream_id)
      : rt_(rt),
        stream_(rt.make_stream()),
        timeline_(stream_, stream_id),
        scale_host_(rt.pinned_alloc(2 * sizeof(float))),
        staging_(rt, kStagingChunk) {}

  void* alloc(std::size_t bytes, const char* what) override {
    buffers_.push_back(rt_.device_alloc(bytes, stream_, what));
    return buffers_.back().get();
  }
  std::size_t mark() const override { return buffers_.size(); }
  void release_to(std::size_t mark) override {
    if (mark >= buffers_.size()) return;
    if (mark == 0) stream_.synchronize("release working memory");  // (after an error part-way, too)
    // Otherwise stream-ordered frees: after the work queued so far.
    while (buffers_.size() > mark) buffers_.pop_back();
  }
  void upload(void* dst, const void* host_src, std::size_t bytes) override { staging_.upload(stream_, dst, host_src, bytes); }
  void download(void* host_dst, const void* src, std::size_t bytes) override {
    staging_.download(stream_, host_dst, src, bytes);
  }
  void set_scale(float* scale, float value) override {
    scale_host_.as<float>()[0] = value;
    stream_.copy_to_device(scale, scale_host_.get(), sizeof(float));
  }
  float read_scale(const float* scale) override {
    stream_.copy_to_host(scale_host_.get(), scale, sizeof(float));
    stream_.synchronize("read exposure scale");
    return scale_host_.as<float>()[0];
  }
  void to_rgba(const ImageView& src, const tone::ChannelMap& map, const ImageView& dst) override {
    tone::to_rgba_f32_gpu(src, map, dst, stream_.get());
  }
  void auto_exposure(const ImageView& rgba, const tone::AutoExposureParams& p, float base, float* scale) override {
    const std::size_t bytes = tone::auto_exposure_scratch_bytes(rgba.width, rgba.height);
    tone::auto_exposure_gpu(rgba, p, base, scale, alloc(bytes, "auto-exposure scratch"), bytes, stream_.get());
  }
  void tonemap(const ImageView& src, const ImageView& dst, const tone::ToneParams& p, const float* scale) override {
    tone::tonemap_gpu(src, dst, p, scale, stream_.get());
  }
  void resample(const ImageView& src, const ImageView& dst, tone::Filter f) override {
    const std::size_t bytes = tone::resample_scratch_bytes(src.width, src.height, dst.width, dst.height);
    tone::resample_gpu(src, dst, f, alloc(bytes, "resample scratch"), stream_.get());
  }
  void encode(const ImageView& src, const ImageView& dst, const tone::EncodeParams& p) override {
    tone::encode_gpu(src, dst, p, stream_.get());
  }
  void png_filter(const ImageView& image, std::uint8_t* filtered) override {
    png::filter_rows_gpu(image, filtered, stream_.get());
  }
  void png_histogram(const std::uint8_t* filtered, std::size_t n, std::uint32_t* histogram,
                     png::AdlerPartial* partials) override {
    png::token_histogram_gpu(filtered, n, histogram, partials, stream_.get());
  }
  void png_encode(const std::uint8_t* filtered, std::size_t n, const png::LitLenCode& code, std::uint64_t first_bit,
                  std::uint32_t* words, std::size_t word_count, std::uint64_t* end_bit) override {
    const std::size_t bytes = png::encode_scratch_bytes(n);
    png::encode_segments_gpu(filtered, n, code, first_bit, words, word_count, end_bit, alloc(bytes, "png scratch"), bytes,
                             stream_.get());
  }
  void exr_decompress(const exr::BlockBatch& batch) override { exr::decompress_blocks_gpu(batch, stream_.get()); }
  void exr_unpack(const exr::BlockBatch& batch) override { exr::unpack_blocks_gpu(batch, stream_.get()); }
  void finish() override {
    stream_.synchronize("tonemap-exr compute");
    timeline_.collect();
  }
  void begin_stage(const char* name) override { timeline_.begin(name); }
  void end_stage() override { timeline_.end(); }

 private:
  Runtime& rt_;
  Stream stream_;
  GpuTimeline timeline_;
  PinnedBuffer scale_host_;
  StagingBuffer staging_;
  std::vector<DeviceBuffer> buffers_;
};

}  // namespace

std::unique_ptr<ComputeBackend> make_gpu_backend(Runtime& runtime, int stream_id) {
  return std::make_unique<GpuBackend>(runtime, stream_id);
}

}  // namespace gp::tonemap
