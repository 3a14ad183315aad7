// VideoFrameSource on the CPU path: select sharpest on a turning clip with known sharp frames
// (every decoded frame of the range scored, one frame in flight while the next decodes), the
// other selections' frames, the RGB conversion of a selected frame, and a video decoded in parts at
// once giving the frames (numbers, times) one decoder gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

#include "io/video_reader.hpp"
#include "io/video_test_frames.hpp"
#include "stitch/frame_sharpness.hpp"
#include "stitch/video_clips.hpp"
#include "stitch/video_frames.hpp"

using namespace gp::stitch;

namespace {

std::vector<std::int64_t> picks(const std::string& clip, const VideoSelection& selection, VideoFrameSource** keep = nullptr) {
  static std::unique_ptr<VideoFrameSource> last;
  last = std::make_unique<VideoFrameSource>(clip, selection);
  std::vector<std::int64_t> out;
  while (auto f = last->next()) {
    CHECK(f->frame.width() == 1024);
    out.push_back(f->index);
  }
  if (keep) *keep = last.get();
  return out;
}

}  // namespace

TEST_CASE("video frames: sharpest per interval picks the sharp frames", "[stitch][video]") {
  const std::string clip =
      test::turning_clip((gp::test::scratch_dir("video-frames") / "turning.mp4").string(), 20, {3, 7, 14});
  VideoSelection sharpest;
  sharpest.mode = VideoSelection::Mode::sharpest;
  sharpest.interval_s = 0.5;
  VideoFrameSource* source = nullptr;
  const std::vector<std::int64_t> got = picks(clip, sharpest, &source);
  REQUIRE(got.size() == 4);  // [0, 0.5) [0.5, 1) [1, 1.5) [1.5, 2)
  CHECK(got[0] == 3);
  CHECK(got[1] == 7);
  CHECK(got[2] == 14);
  CHECK(got[3] >= 15);
  CHECK(source->frames_scored() == 20);
  CHECK(source->frames_decoded() == 20);
  CHECK_FALSE(source->scores_on_gpu());

  sharpest.interval_s = 1.0;
  CHECK(picks(clip, sharpest) == std::vector<std::int64_t>{3, 14});
  sharpest.start_s = 0.5;  // frames 5..11: frame 7 the only sharp one, scored until end_s
  sharpest.end_s = 1.2;
  CHECK(picks(clip, sharpest, &source) == std::vector<std::int64_t>{7});
  CHECK(source->frames_scored() == 7);

  VideoSelection every;
  every.mode = VideoSelection::Mode::every;
  every.every = 6;
  CHECK(picks(clip, every) == std::vector<std::int64_t>{0, 6, 12, 18});
}

TEST_CASE("video frames: a selected frame converts to RGB", "[stitch][video]") {
  const std::string clip = test::turning_clip((gp::test::scratch_dir("video-frames") / "rgb.mp4").string(), 2, {0, 1});
  VideoFrameSource source(clip, VideoSelection{});
  auto f = source.next();
  REQUIRE(f);
  std::vector<std::uint8_t> pixels;
  const gp::ImageView rgb = frame_rgb(f->frame, pixels);
  CHECK(rgb.width == 1024);
  CHECK(rgb.height == 512);
  CHECK(rgb.channels == 3);
  // Against the frame's own luma (limited range BT.601, what the writer tagged below 720 lines).
  const gp::ImageView luma = f->frame.plane_view(0);
  double error = 0;
  for (int y = 0; y < rgb.height; y += 7)
    for (int x = 0; x < rgb.width; x += 5) {
      const std::uint8_t* p = rgb.row<std::uint8_t>(y) + 3 * x;
      const double expected = 16 + 219.0 / 255.0 * (0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]);
      error += std::abs(expected - luma.row<std::uint8_t>(y)[x]);
    }
  error /= double((rgb.height + 6) / 7) * ((rgb.width + 4) / 5);
  INFO("mean |Y - Y(RGB)| " << error);
  CHECK(error < 1.5);
}

TEST_CASE("video frames: the CPU score tells the sharp frames of the clip from the blurred", "[stitch][video]") {
  const std::string clip =
      test::turning_clip((gp::test::scratch_dir("video-frames") / "scores.mp4").string(), 16, {3, 7, 14});
  FrameSharpness cpu(nullptr);
  gp::io::VideoReader reader(clip);
  gp::io::VideoFrame frame;
  std::vector<double> scores;
  while (reader.read(frame)) {
    cpu.submit(frame.plane_view(0));
    scores.push_back(cpu.collect());
  }
  REQUIRE(scores.size() == 16);
  for (const int sharp : {3, 7, 14}) {
    INFO("frame " << sharp << ": " << scores[std::size_t(sharp)] << ", the next " << scores[std::size_t(sharp) + 1]);
    CHECK(scores[std::size_t(sharp)] > 1.5 * scores[std::size_t(sharp) + 1]);
  }
}

TEST_CASE("video frames: decoded in parts at once, the same frames and times as in order", "[stitch][video]") {
  // 200 frames of 512x256 at 25 fps, a key frame every 30 (x264: IDR pictures): three parts.
  gp::io::VideoWriterOptions options;
  options.frame_rate = {25, 1};
  options.preset = "veryfast";
  options.keyframe_interval = 30;
  const std::string clip = gp::test::write_scene_clip((gp::test::scratch_dir("video-frames") / "parts.mp4").string(),
                                                      gp::test::MovingScene{512, 256}, options, 200);
  const auto frames = [&](const VideoSelection& selection, int decoders) {
    VideoFrameSource source(clip, selection, nullptr, decoders);
    std::vector<std::tuple<std::int64_t, double, std::int64_t>> out;  // index, time, pts
    while (auto f = source.next()) out.emplace_back(f->index, f->time_s, f->frame.pts());
    std::sort(out.begin(), out.end());
    CHECK(source.frames_decoded() == (selection.end_s > 0 ? 101 : 200));  // to the first frame past end_s
    // The readers are closed once ended; what the video is stays known, the first frame's pixel
    // format included (not probed from the header), and the end stays the end.
    const gp::io::VideoStreamInfo info = source.info();
    CHECK(info.width == 512);
    CHECK(info.height == 256);
    CHECK(info.pixel_format == "yuv420p");
    CHECK_FALSE(source.next());
    return std::make_pair(out, source.decoders());
  };
  VideoSelection all;
  const auto [in_order, one] = frames(all, 1);
  const auto [in_parts, three] = frames(all, 3);
  CHECK(one == 1);
  CHECK(three == 3);
  REQUIRE(in_order.size() == 200);
  CHECK(in_parts == in_order);
  CHECK(std::get<1>(in_order[25]) == Approx(1.0));

  VideoSelection every;
  every.mode = VideoSelection::Mode::every;
  every.every = 7;
  const auto [every_in_parts, every_decoders] = frames(every, 3);
  CHECK(every_decoders == 3);
  CHECK(every_in_parts == frames(every, 1).first);
  CHECK(every_in_parts.size() == 29);  // 0, 7, ..., 196

  // A time range or a per-interval selection follows the frames in order: one decoder.
  VideoSelection range;
  range.end_s = 4;
  CHECK(frames(range, 3).second == 1);
}
