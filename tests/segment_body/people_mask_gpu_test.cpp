// Person masks on real content on the GPU (issue 6): preprocess_gpu -> CudaEngine (FP32 and FP16)
// -> upsample_mask_gpu, general selfie model letterboxed, threshold 0.5, as people_mask_test.cpp
// does on the CPU. The GPU masks must pass the same checks against the hand-annotated boxes
// (people_mask_measure.hpp) and agree with the CPU masks up to a bounded fraction of flipped pixels.
//
// vtest.avi frames are decoded here by the ffmpeg command (load_vtest_truth_ffmpeg), not by
// VideoReader: this executable does not link libav. people_mask_test.cpp checks that both give
// the same bytes. Without ffmpeg or opencv-doc the vtest part skips (WARN).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/segment_body/mask.hpp"
#include "cuda/frames/preprocess.hpp"
#include "infer/cpu_engine.hpp"
#include "infer/cuda_engine.hpp"
#include "infer/model_files.hpp"
#include "segment_body/people_mask_measure.hpp"
#include "segment_body/people_truth.hpp"

namespace {

using gp::test::TruthImage;

// The GPU pipeline of one image, on `engine` (batch 1): the binary mask at frame size on the host.
class GpuMasker {
 public:
  GpuMasker(gp::Runtime& runtime, gp::infer::CudaEngine& engine)
      : runtime_(runtime), engine_(engine), stream_(runtime.make_stream()) {}

  std::vector<std::uint8_t> mask(const TruthImage& image) {
    std::vector<gp::DeviceBuffer> keep;
    gp::segbody::FrameSource frame = image.frame();
    const int planes = image.format == gp::segbody::FrameFormat::yuv420 ? 3 : 1;
    for (int p = 0; p < planes; ++p) {
      keep.push_back(runtime_.device_alloc(image.planes[p].size(), stream_, "people mask test frame"));
      stream_.copy_to_device(keep.back().get(), image.planes[p].data(), image.planes[p].size());
      frame.planes[p] = keep.back().as<std::uint8_t>();
    }
    const gp::infer::Shape in = engine_.input_shapes().at(0);  // NHWC
    gp::segbody::PreprocessParams p;
    p.height = in[1];
    p.width = in[2];
    p.mode = gp::segbody::ResizeMode::letterbox;
    p.type = gp::segbody::TensorType::f32;  // the engine's input buffer is float32 in both precisions
    const gp::segbody::Rect content =
        gp::segbody::preprocess_gpu(frame, p, engine_.input_device(0), 0, nullptr, stream_.get());
    engine_.run({engine_.input_device(0)}, {const_cast<float*>(engine_.output_device(0))}, stream_);
    const gp::ImageView model_mask =
        gp::packed_view(const_cast<float*>(engine_.output_device(0)), p.width, p.height, 1, gp::PixelType::f32);
    keep.push_back(runtime_.device_alloc(std::size_t(image.width) * image.height, stream_, "people mask test mask"));
    const gp::ImageView device_mask = gp::packed_view(keep.back().get(), image.width, image.height, 1, gp::PixelType::u8);
    gp::segbody::MaskOutput binary;
    binary.kind = gp::segbody::MaskOutput::Kind::binary;
    binary.threshold = 0.5f;
    gp::segbody::upsample_mask_gpu(model_mask, content, device_mask, binary, stream_.get());
    std::vector<std::uint8_t> host(std::size_t(image.width) * image.height);
    stream_.copy_to_host(host.data(), device_mask.data, host.size());
    stream_.synchronize("people mask test");
    return host;
  }

 private:
  gp::Runtime& runtime_;
  gp::infer::CudaEngine& engine_;
  gp::Stream stream_;
};

// The CPU reference of the same pipeline (as people_mask_test.cpp, whole frame).
std::vector<std::uint8_t> cpu_mask(gp::infer::CpuEngine& engine, const TruthImage& image) {
  const gp::infer::Shape in = engine.input_shapes().at(0);
  gp::segbody::PreprocessParams p;
  p.height = in[1];
  p.width = in[2];
  p.mode = gp::segbody::ResizeMode::letterbox;
  std::vector<float> tensor(static_cast<std::size_t>(gp::infer::element_count(in)));
  const gp::segbody::Rect content = gp::segbody::preprocess_cpu(image.frame(), p, tensor.data(), 0, nullptr);
  std::vector<std::vector<float>> out = engine.run({tensor});
  std::vector<std::uint8_t> mask(std::size_t(image.width) * image.height);
  gp::segbody::MaskOutput binary;
  binary.kind = gp::segbody::MaskOutput::Kind::binary;
  binary.threshold = 0.5f;
  gp::segbody::upsample_mask_cpu(gp::packed_view(out[0].data(), p.width, p.height, 1, gp::PixelType::f32), content,
                                 gp::packed_view(mask.data(), image.width, image.height, 1, gp::PixelType::u8), binary);
  return mask;
}

gp::ImageView view_of(std::vector<std::uint8_t>& mask, const TruthImage& image) {
  return gp::packed_view(mask.data(), image.width, image.height, 1, gp::PixelType::u8);
}

}  // namespace

TEST_CASE("Person masks on vtest.avi and messi5.jpg on the GPU (FP32, FP16): annotated people, agreement with the CPU",
          "[segment_body][people][gpu]") {
  const auto path = gp::test::find_model("selfie_segmentation.tflite");
  if (!path) return;
  const gp::infer::Model model = gp::infer::Model::load(*path);
  gp::infer::CpuEngine cpu(model, 1);
  std::vector<TruthImage> images = gp::test::load_vtest_truth_ffmpeg();
  const std::size_t frame_count = images.size();
  for (TruthImage& photo : gp::test::load_messi_truth()) images.push_back(std::move(photo));
  if (images.empty()) return;
  std::vector<std::vector<std::uint8_t>> cpu_masks;
  for (const TruthImage& image : images) cpu_masks.push_back(cpu_mask(cpu, image));

  gp::RuntimeOptions options;
  options.device = gp::DeviceChoice::parse("cuda:0");
  gp::Runtime runtime(options);
  for (const gp::infer::Precision precision : {gp::infer::Precision::fp32, gp::infer::Precision::fp16}) {
    INFO(gp::infer::precision_name(precision));
    gp::infer::CudaEngineOptions engine_options;
    engine_options.precision = precision;
    gp::infer::CudaEngine engine(runtime, model, 1, engine_options);
    GpuMasker masker(runtime, engine);
    std::vector<gp::test::MaskScore> frame_scores;
    for (std::size_t i = 0; i < images.size(); ++i) {
      const TruthImage& image = images[i];
      INFO(image.name);
      std::vector<std::uint8_t> mask = masker.mask(image);
      const gp::ImageView gpu_view = view_of(mask, image);
      // Agreement with the CPU engine and kernels: FP32 differs from the CPU only in rounding
      // (preprocess and upsample are bit-identical by design; the engine within 1e-5), so only
      // pixels whose value is within rounding of 0.5 may flip. FP16 rounds every activation: the
      // GPU engine test saw 24 of 65536 model pixels flip on messi5.jpg; bounded here at 1% of
      // the frame and 10% of the CPU mask.
      const double flipped = gp::test::flipped_fraction(gpu_view, view_of(cpu_masks[i], image));
      long cpu_pixels = 0;
      for (std::uint8_t v : cpu_masks[i]) cpu_pixels += v != 0;
      WARN(gp::infer::precision_name(precision) << ", " << image.name << ": " << flipped * 100
                                                << "% of pixels differ from the CPU mask (" << cpu_pixels
                                                << " CPU mask pixels)");
      const double frame_pixels = double(image.width) * image.height;
      if (precision == gp::infer::Precision::fp32) {
        CHECK(flipped <= 0.001);
        CHECK(flipped * frame_pixels <= 0.02 * double(cpu_pixels) + 50);
      } else {
        CHECK(flipped <= 0.01);
        CHECK(flipped * frame_pixels <= 0.10 * double(cpu_pixels) + 200);
      }
      if (i < frame_count) {
        frame_scores.push_back(gp::test::score_mask(gpu_view, image.truth, 4));
      } else {
        gp::test::check_messi_score(image, gpu_view);
      }
    }
    if (frame_count > 0) {
      const std::vector<TruthImage> frames(images.begin(), images.begin() + std::ptrdiff_t(frame_count));
      gp::test::check_vtest_scores(frames, frame_scores);
    }
  }
}
