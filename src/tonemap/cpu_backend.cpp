#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "core/trace.hpp"
#include "tonemap/compute_backend.hpp"

namespace gp::tonemap {
namespace {

// The CPU path: the same steps through the CPU references (multithreaded), host memory throughout.
class CpuBackend final : public ComputeBackend {
 public:
  void* alloc(std::size_t bytes, const char*) override {
    buffers_.emplace_back(new unsigned char[bytes ? bytes : 1]);  // not zeroed: every step writes its output
    return buffers_.back().get();
  }
  std::size_t mark() const override { return buffers_.size(); }
  void release_to(std::size_t mark) override {
    if (mark < buffers_.size()) buffers_.resize(mark);
  }
  void upload(void* dst, const void* host_src, std::size_t bytes) override { std::memcpy(dst, host_src, bytes); }
  void download(void* host_dst, const void* src, std::size_t bytes) override { std::memcpy(host_dst, src, bytes); }
  void set_scale(float* scale, float value) override { scale[0] = value; }
  float read_scale(const float* scale) override { return scale[0]; }
  void to_rgba(const ImageView& src, const tone::ChannelMap& map, const ImageView& dst) override {
    ScopedStage t("cpu.convert");
    tone::to_rgba_f32_cpu(src, map, dst);
  }
  void auto_exposure(const ImageView& rgba, const tone::AutoExposureParams& p, float base, float* scale) override {
    ScopedStage t("cpu.auto_exposure");
    tone::auto_exposure_cpu(rgba, p, base, scale);
  }
  void tonemap(const ImageView& src, const ImageView& dst, const tone::ToneParams& p, const float* scale) override {
    ScopedStage t("cpu.tonemap");
    tone::tonemap_cpu(src, dst, p, scale);
  }
  void resample(const ImageView& src, const ImageView& dst, tone::Filter f) override {
    ScopedStage t("cpu.resample");
    tone::resample_cpu(src, dst, f);
  }
  void encode(const ImageView& src, const ImageView& dst, const tone::EncodeParams& p) override {
    ScopedStage t("cpu.quantize");
    tone::encode_cpu(src, dst, p);
  }
  void png_filter(const ImageView& image, std::uint8_t* filtered) override {
    ScopedStage t("cpu.png_filter");
    png::filter_rows_cpu(image, filtered);
  }
  void png_histogram(const std::uint8_t* filtered, std::size_t n, std::uint32_t* histogram,
                     png::AdlerPartial* partials) override {
    ScopedStage t("cpu.png_histogram");
    png::token_histogram_cpu(filtered, n, histogram, partials);
  }
  void png_encode(const std::uint8_t* filtered, std::size_t n, const png::LitLenCode& code, std::uint64_t first_bit,
                  std::uint32_t* words, std::size_t word_count, std::uint64_t* end_bit) override {
    ScopedStage t("cpu.png_encode");
    png::encode_segments_cpu(filtered, n, code, first_bit, words, word_count, end_bit);
  }
  void exr_decompress(const exr::BlockBatch& batch) override {
    ScopedStage t("cpu.exr_decompress");
    exr::decompress_blocks_cpu(batch, int(std::thread::hardware_concurrency()));
  }
  void exr_unpack(const exr::BlockBatch& batch) override {
    ScopedStage t("cpu.exr_unpack");
    exr::unpack_blocks_cpu(batch, int(std::thread::hardware_concurrency()));
  }
  void finish() override {}
  void begin_stage(const char*) override {}
  void end_stage() override {}

 private:
  std::vector<std::unique_ptr<unsigned char[]>> buffers_;
};

}  // namespace

std::unique_ptr<ComputeBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace gp::tonemap
