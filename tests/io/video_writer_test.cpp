// VideoWriter: synthetic moving clips written with each kind of encoder and read back with
// VideoReader. Lossless codecs (FFV1, libx264 qp 0, PNG, QuickTime RLE, Ut Video) give back every
// byte of grey, YUV 4:2:0, RGB and RGBA frames; libx264 at crf 18 stays above a PSNR bound; frame
// counts, sizes, frame rates and timestamps (constant and variable rate) survive; the output
// appears only when finished; choices that cannot work are usage errors.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/video_reader.hpp"
#include "io/video_test_frames.hpp"
#include "io/video_writer.hpp"
#include "support/test_data.hpp"

namespace {

namespace fs = std::filesystem;
using gp::io::VideoFrame;
using gp::io::VideoPixels;
using gp::io::VideoReader;
using gp::io::VideoReaderOptions;
using gp::io::VideoWriter;
using gp::io::VideoWriterOptions;
using gp::test::MovingScene;
using gp::test::VideoImage;
using Catch::Matchers::Contains;

constexpr int kFrames = 24;
const MovingScene kScene{160, 120};

VideoImage frame_of(VideoPixels pixels, int t) {
  if (pixels == VideoPixels::gray8) return gp::test::scene_mask(kScene, t);
  return gp::test::scene_rgb(kScene, t, pixels == VideoPixels::rgba);
}

// Writes kFrames of the scene as `options.input` pixels.
void write_clip(const std::string& path, const VideoWriterOptions& options, int frames = kFrames) {
  VideoWriter writer(path, kScene.width, kScene.height, options);
  for (int t = 0; t < frames; ++t) {
    if (options.input == VideoPixels::yuv420p) {
      gp::test::YuvImage yuv = gp::test::scene_yuv(kScene, t);
      writer.write_yuv420(yuv.y.row(0), int(yuv.y.pitch), yuv.u.row(0), int(yuv.u.pitch), yuv.v.row(0), int(yuv.v.pitch));
    } else {
      VideoImage image = frame_of(options.input, t);
      writer.write(image.view());
    }
  }
  CHECK(writer.frames_written() == frames);
  writer.finish();
}

// Reads the clip as `pixels` and checks every frame against the scene: bit-exact when `min_psnr`
// is 0, else each plane's PSNR at least `min_psnr`. Returns the lowest PSNR seen.
double check_clip(const std::string& path, VideoPixels pixels, double min_psnr, int frames = kFrames) {
  VideoReaderOptions options;
  options.pixels = pixels;
  VideoReader reader(path, options);
  CHECK(reader.info().width == kScene.width);
  CHECK(reader.info().height == kScene.height);
  VideoFrame frame;
  double lowest = 99, last_seconds = -1;
  int t = 0;
  for (; reader.read(frame); ++t) {
    REQUIRE(t < frames);
    CHECK(frame.index() == t);
    CHECK(frame.seconds() > last_seconds);
    last_seconds = frame.seconds();
    REQUIRE(frame.pixels() == pixels);
    REQUIRE(frame.width() == kScene.width);
    if (pixels == VideoPixels::yuv420p) {
      gp::test::YuvImage expected = gp::test::scene_yuv(kScene, t);
      const VideoImage* planes[3] = {&expected.y, &expected.u, &expected.v};
      for (int p = 0; p < 3; ++p) {
        const double psnr = gp::test::plane_psnr(frame.plane(p), std::size_t(frame.pitch(p)), planes[p]->bytes.data(),
                                                 planes[p]->pitch, frame.plane_width(p), frame.plane_height(p));
        lowest = std::min(lowest, psnr);
        if (min_psnr == 0) CHECK(psnr == 99);
      }
    } else {
      const VideoImage expected = frame_of(pixels, t);
      const double psnr = gp::test::plane_psnr(frame.plane(0), std::size_t(frame.pitch(0)), expected.bytes.data(),
                                               expected.pitch, expected.width * expected.channels, expected.height);
      lowest = std::min(lowest, psnr);
      if (min_psnr == 0) CHECK(psnr == 99);
    }
  }
  CHECK(t == frames);
  if (min_psnr > 0) CHECK(lowest >= min_psnr);
  return lowest;
}

std::string scratch(const std::string& name) { return (gp::test::scratch_dir("video-writer") / name).string(); }

}  // namespace

TEST_CASE("VideoWriter: lossless codecs give every byte back", "[video][io]") {
  struct Case {
    const char* file;
    const char* codec;
    VideoPixels pixels;
    bool lossless;  // libx264 needs asking
  };
  const Case cases[] = {
      {"mask_ffv1.mkv", "ffv1", VideoPixels::gray8, false},
      {"mask_x264.mp4", "libx264", VideoPixels::gray8, true},
      {"mask_x264.mkv", "libx264", VideoPixels::gray8, true},
      {"mask_png.mov", "png", VideoPixels::gray8, false},
      {"mask_utvideo.avi", "utvideo", VideoPixels::gray8, true},  // through yuv420p with neutral chroma
      {"yuv_ffv1.avi", "ffv1", VideoPixels::yuv420p, true},
      {"yuv_x264.mp4", "libx264", VideoPixels::yuv420p, true},
      {"rgb_ffv1.mkv", "ffv1", VideoPixels::rgb24, true},
      {"rgb_x264rgb.mkv", "libx264rgb", VideoPixels::rgb24, true},
      {"rgb_qtrle.mov", "qtrle", VideoPixels::rgb24, false},
      {"rgba_ffv1.mkv", "ffv1", VideoPixels::rgba, true},
      {"rgba_png.mov", "png", VideoPixels::rgba, false},
      {"rgba_qtrle.mov", "qtrle", VideoPixels::rgba, false},
      {"rgba_utvideo.mkv", "utvideo", VideoPixels::rgba, false},
  };
  for (const Case& c : cases) {
    SECTION(c.file) {
      VideoWriterOptions options;
      options.codec = c.codec;
      options.input = c.pixels;
      options.lossless = c.lossless;
      options.frame_rate = {25, 1};
      const std::string path = scratch(c.file);
      write_clip(path, options);
      check_clip(path, c.pixels, 0);
      VideoReader reader(path);
      CHECK(reader.info().frame_rate.value() == Approx(25.0));
    }
  }
}

TEST_CASE("VideoWriter: grey masks read back as YUV keep their values in Y and neutral chroma", "[video][io]") {
  for (const char* file : {"mask.mkv", "mask.mp4"}) {
    CAPTURE(file);
    VideoWriterOptions options;
    options.input = VideoPixels::gray8;
    options.codec = std::string(file).back() == 'v' ? "ffv1" : "libx264";
    options.lossless = true;
    const std::string path = scratch(file);
    write_clip(path, options, 6);
    VideoReader reader(path);  // yuv420p
    VideoFrame frame;
    for (int t = 0; reader.read(frame); ++t) {
      const VideoImage mask = gp::test::scene_mask(kScene, t);
      CHECK(gp::test::planes_equal(frame.plane(0), std::size_t(frame.pitch(0)), mask.bytes.data(), mask.pitch,
                                   kScene.width, kScene.height));
      for (int p = 1; p < 3; ++p)
        for (int y = 0; y < frame.plane_height(p); ++y)
          for (int x = 0; x < frame.plane_width(p); ++x) REQUIRE(int(frame.plane(p)[y * frame.pitch(p) + x]) == 128);
    }
  }
}

TEST_CASE("VideoWriter: libx264 at crf 18 stays close to its input", "[video][io]") {
  SECTION("yuv420p") {
    VideoWriterOptions options;  // libx264, crf 18, yuv420p
    const std::string path = scratch("hq.mp4");
    write_clip(path, options);
    const double psnr = check_clip(path, VideoPixels::yuv420p, 38);
    INFO("lowest plane PSNR " << psnr);
    CHECK(psnr < 99);  // lossy after all: the bound means something
    VideoReader reader(path);
    CHECK(reader.info().codec == "h264");
    CHECK(reader.info().pixel_format == "yuv420p");
  }
  SECTION("rgb24 through BT.601 YUV") {
    VideoWriterOptions options;
    options.input = VideoPixels::rgb24;
    options.crf = 16;
    const std::string path = scratch("hq_rgb.mkv");
    write_clip(path, options);
    // Chroma at half resolution on a texture with sharp colour edges: lower than the planes above.
    check_clip(path, VideoPixels::rgb24, 28);
  }
  SECTION("a higher crf gives a smaller file and a lower PSNR") {
    VideoWriterOptions good, poor;
    poor.crf = 35;
    const std::string a = scratch("crf18.mp4"), b = scratch("crf35.mp4");
    write_clip(a, good);
    write_clip(b, poor);
    CHECK(fs::file_size(b) < fs::file_size(a));
    CHECK(check_clip(b, VideoPixels::yuv420p, 20) < check_clip(a, VideoPixels::yuv420p, 38));
  }
}

TEST_CASE("VideoWriter: timestamps and frame rates survive the container", "[video][io]") {
  SECTION("constant rate 30000/1001 in mp4, mkv, avi, mov") {
    for (const char* file : {"ntsc.mp4", "ntsc.mkv", "ntsc.avi", "ntsc.mov"}) {
      CAPTURE(file);
      VideoWriterOptions options;
      const std::string name = file;
      options.codec = name.find(".mp4") != std::string::npos ? "libx264" : name.find(".mov") != std::string::npos ? "png" : "ffv1";
      options.frame_rate = {30000, 1001};
      const std::string path = scratch(file);
      write_clip(path, options, 10);
      VideoReader reader(path);
      CHECK(reader.info().frame_rate.value() == Approx(30000.0 / 1001).epsilon(1e-3));
      VideoFrame frame;
      int t = 0;
      for (; reader.read(frame); ++t) CHECK(frame.seconds() == Approx(t * 1001.0 / 30000).margin(1.5e-3));
      CHECK(t == 10);
    }
  }
  SECTION("variable rate with explicit timestamps") {
    VideoWriterOptions options;
    options.codec = "ffv1";
    options.frame_rate = {25, 1};
    options.time_base = {1, 1000};
    const std::vector<std::int64_t> pts = {0, 40, 80, 200, 240, 1000, 1040};
    const std::string path = scratch("vfr.mkv");
    {
      VideoWriter writer(path, kScene.width, kScene.height, options);
      for (std::size_t i = 0; i < pts.size(); ++i) {
        gp::test::YuvImage yuv = gp::test::scene_yuv(kScene, int(i));
        writer.write_yuv420(yuv.y.row(0), int(yuv.y.pitch), yuv.u.row(0), int(yuv.u.pitch), yuv.v.row(0),
                            int(yuv.v.pitch), pts[i]);
      }
      writer.finish();
    }
    VideoReader reader(path);
    VideoFrame frame;
    std::size_t i = 0;
    for (; reader.read(frame); ++i) {
      REQUIRE(i < pts.size());
      CHECK(frame.seconds() == Approx(pts[i] / 1000.0).margin(1e-6));
    }
    CHECK(i == pts.size());
  }
  SECTION("timestamps that do not increase are an error") {
    VideoWriterOptions options;
    options.input = VideoPixels::gray8;
    options.codec = "ffv1";
    VideoWriter writer(scratch("bad_pts.mkv"), kScene.width, kScene.height, options);
    VideoImage mask = gp::test::scene_mask(kScene, 0);
    writer.write(mask.view(), 5);
    CHECK_THROWS_AS(writer.write(mask.view(), 5), gp::ItemError);
  }
}

TEST_CASE("VideoWriter: the file appears only when finished", "[video][io]") {
  const fs::path dir = gp::test::scratch_dir("video-atomic");
  const fs::path path = dir / "sub" / "out.mkv";
  auto entries = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir / "sub")) names.push_back(e.path().filename().string());
    return names;
  };
  VideoWriterOptions options;
  options.input = VideoPixels::gray8;
  options.codec = "ffv1";
  {
    VideoWriter writer(path.string(), kScene.width, kScene.height, options);
    VideoImage mask = gp::test::scene_mask(kScene, 0);
    writer.write(mask.view());
    CHECK_FALSE(fs::exists(path));
    const auto names = entries();
    REQUIRE(names.size() == 1);
    CHECK_THAT(names[0], Contains(".out.mkv.part-"));
  }  // destroyed unfinished: nothing stays
  CHECK(entries().empty());
  write_clip(path.string(), options, 3);
  CHECK(fs::exists(path));
  CHECK(entries() == std::vector<std::string>{"out.mkv"});
}

TEST_CASE("VideoWriter: encoder threads change nothing in lossless output", "[video][io]") {
  for (const char* codec : {"ffv1", "libx264"}) {
    for (int threads : {1, 4}) {
      CAPTURE(codec, threads);
      VideoWriterOptions options;
      options.codec = codec;
      options.lossless = true;
      options.threads = threads;
      const std::string path = scratch(std::string(codec) + "_threads.mkv");
      write_clip(path, options, 12);
      check_clip(path, VideoPixels::yuv420p, 0, 12);
    }
  }
}

TEST_CASE("VideoWriter: bitexact output is byte-identical run to run", "[video][io]") {
  // FFV1 in Matroska: without the flag the muxer writes a random segment UID and its version.
  // (libx264 is not used here: in one process its third encode with identical settings and input
  // came out different on this AVX-512 machine, identical under valgrind; one encode per process,
  // as gpuproc-make-samples does, is byte-identical run to run.)
  auto clip_bytes = [](bool bitexact) {
    VideoWriterOptions options;
    options.codec = "ffv1";
    options.threads = 1;
    options.bitexact = bitexact;
    const std::string path = scratch("same.mkv");
    write_clip(path, options, 8);
    CHECK(gp::io::VideoReader(path).info().codec == "ffv1");  // a valid file
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  const std::string a = clip_bytes(true), b = clip_bytes(true);
  CHECK(a.size() > 1000);
  CHECK(a == b);
  CHECK(clip_bytes(false) != clip_bytes(false));  // the flag is what makes them equal
}

TEST_CASE("VideoWriter: choices that cannot work are usage errors naming the problem", "[video][io]") {
  auto usage_error = [](const std::string& name, VideoWriterOptions options, int width = 160, int height = 120) {
    const fs::path dir = gp::test::scratch_dir("video-usage");
    try {
      VideoWriter writer((dir / name).string(), width, height, options);
    } catch (const gp::UsageError& e) {
      CHECK_THAT(e.what(), Contains(name));
      CHECK(fs::is_empty(dir));  // no temporary left behind
      return std::string(e.what());
    }
    FAIL("no gp::UsageError for " << name);
    return std::string();
  };
  VideoWriterOptions options;
  CHECK_THAT(usage_error("clip.xyz", options), Contains("extension"));
  options.codec = "no-such-encoder";
  CHECK_THAT(usage_error("clip.mkv", options), Contains("no-such-encoder"));
  options.codec = "ffv1";
  CHECK_THAT(usage_error("clip.mp4", options), Contains("cannot hold"));
  options.codec = "libx264";
  options.input = VideoPixels::rgba;
  CHECK_THAT(usage_error("alpha.mkv", options), Contains("alpha"));
  options.input = VideoPixels::rgb24;
  options.lossless = true;
  CHECK_THAT(usage_error("lossless.mkv", options), Contains("lossless"));
  options.input = VideoPixels::yuv420p;
  options.lossless = false;
  CHECK_THAT(usage_error("odd.mkv", options, 161, 120), Contains("even"));
  options.codec_options = {{"no_such_option", "1"}};
  CHECK_THAT(usage_error("option.mkv", options), Contains("no_such_option"));
  options.codec_options.clear();
  options.codec = "mpeg4";
  options.lossless = true;
  CHECK_THAT(usage_error("mpeg4.avi", options), Contains("not lossless"));
}
