// The sharpness score's kernel against its CPU reference: exact integer sums, pitched images;
// and stitch-360's use of it on decoded video frames (FrameSharpness, VideoFrameSource).
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/stitch/sharpness.hpp"
#include "io/video_reader.hpp"
#include "stitch/frame_sharpness.hpp"
#include "stitch/video_clips.hpp"
#include "stitch/video_frames.hpp"

TEST_CASE("laplacian sums: GPU equals the CPU exactly", "[stitch][gpu]") {
  gp::Runtime rt{gp::RuntimeOptions{}};
  gp::Stream stream = rt.make_stream();
  std::mt19937 rng(7);
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {3, 3}, {33, 9}, {1920, 1080}, {7680, 3840}}) {
    INFO(w << "x" << h);
    const std::size_t pitch = std::size_t(w) + 13;
    std::vector<std::uint8_t> pixels(pitch * std::size_t(h));
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = std::uint8_t((rng() >> 8) & (i % 3 ? 0xff : 0x0f));
    gp::ImageView host = gp::packed_view(pixels.data(), w, h, 1, gp::PixelType::u8);
    host.pitch = pitch;
    gp::DeviceBuffer image = rt.device_alloc(pixels.size(), stream, "sharpness test");
    gp::DeviceBuffer sums = rt.device_alloc(sizeof(gp::stitch::LaplacianSums), stream, "sharpness test");
    stream.copy_to_device(image.get(), pixels.data(), pixels.size());
    gp::ImageView device = host;
    device.data = image.get();
    gp::stitch::laplacian_sums_gpu(device, static_cast<gp::stitch::LaplacianSums*>(sums.get()), stream.get());
    gp::stitch::LaplacianSums got;
    stream.copy_to_host(&got, sums.get(), sizeof(got));
    stream.synchronize("sharpness test");
    const gp::stitch::LaplacianSums want = gp::stitch::laplacian_sums_cpu(host);
    CHECK(got.sum == want.sum);
    CHECK(got.sum_squares == want.sum_squares);
  }
}

// The score as stitch-360 computes it for select sharpest, on decoded frames of a real-looking
// 360 clip (the sample panorama turning, motion blur on all frames but three; the decoder's
// padded pitch): FrameSharpness on the GPU equals the CPU reference exactly on every frame, and
// VideoFrameSource picks the same frames either way, scoring every frame of the range on the GPU.
TEST_CASE("frame sharpness: GPU scores of decoded video frames equal the CPU's", "[stitch][gpu][video]") {
  const std::string clip =
      gp::stitch::test::turning_clip((gp::test::scratch_dir("sharpness-gpu") / "turning.mp4").string(), 20, {3, 7, 14});
  gp::Runtime rt{gp::RuntimeOptions{}};
  REQUIRE(rt.gpu());
  gp::stitch::FrameSharpness gpu(&rt), cpu(nullptr);
  CHECK(gpu.on_gpu());
  CHECK_FALSE(cpu.on_gpu());
  gp::io::VideoReader reader(clip);
  gp::io::VideoFrame frame;
  std::vector<double> scores;
  while (reader.read(frame)) {
    const gp::ImageView luma = frame.plane_view(0);
    INFO("frame " << frame.index() << ", pitch " << luma.pitch);
    gpu.submit(luma);
    cpu.submit(luma);
    const double g = gpu.collect(), c = cpu.collect();
    CHECK(g == c);
    scores.push_back(g);
  }
  REQUIRE(scores.size() == 20);
  for (const int sharp : {3, 7, 14}) CHECK(scores[std::size_t(sharp)] > 1.5 * scores[std::size_t(sharp) + 1]);

  gp::stitch::VideoSelection sharpest;
  sharpest.mode = gp::stitch::VideoSelection::Mode::sharpest;
  sharpest.interval_s = 0.5;
  std::vector<std::int64_t> picks[2];
  for (int on_gpu = 0; on_gpu < 2; ++on_gpu) {
    gp::stitch::VideoFrameSource source(clip, sharpest, on_gpu ? &rt : nullptr);
    CHECK(source.scores_on_gpu() == bool(on_gpu));
    while (auto f = source.next()) picks[on_gpu].push_back(f->index);
    CHECK(source.frames_scored() == 20);
  }
  CHECK(picks[1] == picks[0]);
  REQUIRE(picks[1].size() == 4);
  CHECK(picks[1][0] == 3);
  CHECK(picks[1][1] == 7);
  CHECK(picks[1][2] == 14);
}
