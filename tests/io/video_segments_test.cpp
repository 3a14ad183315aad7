// plan_video_segments and VideoReaderOptions::segment: an MP4 cut at its IDR key frames decodes, part
// by part and on threads at once, into the very frames (numbers, times, pixels) one reader of the
// whole file gives; files that cannot be cut exactly (open groups of pictures, Matroska, too short)
// stay whole, saying why; a part of a truncated file fails naming the file and a frame of the part.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "io/video_reader.hpp"
#include "io/video_test_frames.hpp"
#include "io/video_writer.hpp"
#include "support/test_data.hpp"

namespace {

namespace fs = std::filesystem;
using gp::io::VideoFrame;
using gp::io::VideoReader;
using gp::io::VideoReaderOptions;
using gp::io::VideoSegment;
using gp::io::VideoWriterOptions;
using Catch::Matchers::Contains;

const gp::test::MovingScene kScene{160, 120};

// 150 frames at 25 fps, H.264 with B-frames, a key frame every 25.
std::string clip(const std::string& name, std::map<std::string, std::string> codec_options = {},
                 std::map<std::string, std::string> format_options = {}, int frames = 150) {
  const std::string path = (gp::test::scratch_dir("video-segments") / name).string();
  VideoWriterOptions options;
  options.frame_rate = {25, 1};
  options.crf = 23;
  options.preset = "veryfast";
  options.keyframe_interval = 25;
  options.codec_options = std::move(codec_options);
  options.format_options = std::move(format_options);
  return gp::test::write_scene_clip(path, kScene, options, frames);
}

struct Decoded {
  std::int64_t index;
  std::int64_t pts;
  std::uint64_t hash;
  bool operator==(const Decoded& o) const { return index == o.index && pts == o.pts && hash == o.hash; }
  bool operator<(const Decoded& o) const { return index < o.index; }
};

std::vector<Decoded> decode(const std::string& path, const VideoReaderOptions& options) {
  VideoReader reader(path, options);
  VideoFrame frame;
  std::vector<Decoded> out;
  while (reader.read(frame)) out.push_back({frame.index(), frame.pts(), gp::test::frame_hash(frame)});
  return out;
}

VideoReaderOptions part(const VideoSegment& segment) {
  VideoReaderOptions o;
  o.threads = 2;
  o.probe_stream = false;
  o.segment = segment;
  return o;
}

}  // namespace

TEST_CASE("video segments: an MP4 cut at its IDR frames decodes into the whole file's frames", "[video][io]") {
  const std::string path = clip("closed.mp4");
  const gp::io::VideoSegmentPlan plan = gp::io::plan_video_segments(path, 3, 25);
  INFO(plan.why_whole);
  REQUIRE(plan.segments.size() == 3);
  std::int64_t next = 0;
  for (std::size_t k = 0; k < plan.segments.size(); ++k) {
    const VideoSegment& s = plan.segments[k];
    CHECK(s.first_frame == next);
    CHECK(s.first_frame % 25 == 0);  // at key frames
    CHECK(s.packets == s.frames);
    CHECK(s.last == (k + 1 == plan.segments.size()));
    next += s.frames;
  }
  CHECK(next == 150);

  VideoReaderOptions whole_options;
  whole_options.threads = 2;
  const std::vector<Decoded> whole = decode(path, whole_options);
  REQUIRE(whole.size() == 150);
  {
    VideoReader reader(path);
    VideoFrame first;
    REQUIRE(reader.read(first));
    CHECK(plan.first_seconds == Approx(first.seconds()).margin(1e-9));
  }

  // Part by part, in order, and all parts on threads at once.
  std::vector<Decoded> in_order;
  for (const VideoSegment& s : plan.segments) {
    const std::vector<Decoded> frames = decode(path, part(s));
    CHECK(std::int64_t(frames.size()) == s.frames);
    in_order.insert(in_order.end(), frames.begin(), frames.end());
  }
  CHECK(in_order == whole);

  std::vector<Decoded> at_once;
  std::mutex mutex;
  std::vector<std::thread> threads;
  for (const VideoSegment& s : plan.segments)
    threads.emplace_back([&, s] {
      const std::vector<Decoded> frames = decode(path, part(s));
      std::lock_guard<std::mutex> lock(mutex);
      at_once.insert(at_once.end(), frames.begin(), frames.end());
    });
  for (std::thread& t : threads) t.join();
  std::sort(at_once.begin(), at_once.end());
  CHECK(at_once == whole);

  // Without the stream probe, the same frames and the pixel format from the first frame.
  VideoReaderOptions unprobed = whole_options;
  unprobed.probe_stream = false;
  VideoReader reader(path, unprobed);
  VideoFrame frame;
  REQUIRE(reader.read(frame));
  CHECK(reader.info().pixel_format == "yuv420p");
  CHECK(reader.info().frame_rate.value() == Approx(25));
  CHECK(decode(path, unprobed) == whole);
}

TEST_CASE("video segments: files that cannot be cut exactly stay whole, saying why", "[video][io]") {
  SECTION("open groups of pictures: key frames that are not IDR pictures") {
    const gp::io::VideoSegmentPlan plan =
        gp::io::plan_video_segments(clip("open_gop.mp4", {{"x264-params", "open-gop=1"}}), 3, 25);
    REQUIRE(plan.segments.size() == 1);
    CHECK_THAT(plan.why_whole, Contains("not an IDR picture"));
  }
  SECTION("Matroska: no index of every frame") {
    const gp::io::VideoSegmentPlan plan = gp::io::plan_video_segments(clip("closed.mkv"), 3, 25);
    REQUIRE(plan.segments.size() == 1);
    CHECK_THAT(plan.why_whole, Contains("not an MP4/MOV"));
  }
  SECTION("too short for parts of the least length") {
    const gp::io::VideoSegmentPlan plan = gp::io::plan_video_segments(clip("short.mp4", {}, {}, 40), 3, 25);
    REQUIRE(plan.segments.size() == 1);
    CHECK(plan.segments[0].last);
    CHECK(plan.segments[0].frames == 40);
    CHECK_THAT(plan.why_whole, Contains("too short"));
  }
  SECTION("one part asked") {
    CHECK(gp::io::plan_video_segments(clip("closed.mp4"), 1, 25).segments.size() == 1);
  }
}

TEST_CASE("video segments: a part of a truncated file fails naming the file and its frame", "[video][io]") {
  // The index first (faststart), then the frames cut off half-way through the file: the middle
  // part (frames 50..99) ends early, the last one has nothing.
  const std::string path = clip("cut.mp4", {}, {{"movflags", "+faststart"}});
  const gp::io::VideoSegmentPlan plan = gp::io::plan_video_segments(path, 3, 25);
  REQUIRE(plan.segments.size() == 3);
  const std::string cut = (gp::test::scratch_dir("video-segments") / "cut_short.mp4").string();
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK(decode(cut, part(plan.segments[0])).size() == 50);
  try {
    decode(cut, part(plan.segments[1]));
    FAIL("no error for the cut part");
  } catch (const gp::ItemError& e) {
    CHECK(e.file() == cut);
    // The demuxer's "partial file" at the frame it lacks, or the count against the index.
    CHECK_THAT(e.what(), Catch::Matchers::Matches(".*decode: frames? [5-9][0-9].*"));
  }
  CHECK_THROWS_AS(decode(cut, part(plan.segments[2])), gp::ItemError);
}
