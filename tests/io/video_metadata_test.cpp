// 360 video metadata: VideoWriter writes spherical and stereo side data (MP4: sv3d/st3d boxes at
// "unofficial" strictness; Matroska: Projection and StereoMode elements) and VideoReader reads it
// back into VideoStreamInfo; a file without it has none.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "io/video_reader.hpp"
#include "io/video_writer.hpp"
#include "support/test_data.hpp"

using gp::io::VideoSpherical;
using gp::io::VideoStereo;

namespace {

std::string clip(const std::string& name, const gp::io::VideoWriterOptions& options) {
  const std::string path = (gp::test::scratch_dir("video-metadata") / name).string();
  std::vector<std::uint8_t> rgb(64 * 32 * 3, 90);
  gp::io::VideoWriterOptions o = options;
  o.input = gp::io::VideoPixels::rgb24;
  gp::io::VideoWriter writer(path, 64, 32, o);
  for (int t = 0; t < 3; ++t) writer.write(gp::packed_view(rgb.data(), 64, 32, 3, gp::PixelType::u8));
  writer.finish();
  return path;
}

}  // namespace

TEST_CASE("video metadata: spherical and stereo side data round trip", "[io][video]") {
  for (const std::string ext : {".mp4", ".mkv"}) {
    INFO(ext);
    gp::io::VideoWriterOptions none;
    const gp::io::VideoStreamInfo plain = gp::io::VideoReader(clip("plain" + ext, none)).info();
    CHECK_FALSE(plain.spherical);
    CHECK_FALSE(plain.stereo);

    gp::io::VideoWriterOptions equirect;
    equirect.spherical = VideoSpherical{};
    equirect.spherical->yaw_deg = 90;
    equirect.spherical->pitch_deg = -10.5;
    equirect.spherical->roll_deg = 3;
    equirect.stereo = VideoStereo{VideoStereo::Layout::top_bottom, false, ""};
    const gp::io::VideoStreamInfo e = gp::io::VideoReader(clip("equirect" + ext, equirect)).info();
    REQUIRE(e.spherical);
    CHECK(e.spherical->projection == VideoSpherical::Projection::equirect);
    CHECK(e.spherical->whole_sphere());
    CHECK(e.spherical->yaw_deg == Approx(90).margin(1e-4));
    CHECK(e.spherical->pitch_deg == Approx(-10.5).margin(1e-4));
    CHECK(e.spherical->roll_deg == Approx(3).margin(1e-4));
    REQUIRE(e.stereo);
    CHECK(e.stereo->layout == VideoStereo::Layout::top_bottom);
    CHECK(e.stereo->name == "top and bottom");
    CHECK_FALSE(e.stereo->right_first);

    // VR180: a tile of the sphere (the middle half of the longitudes), side by side.
    gp::io::VideoWriterOptions tile;
    tile.spherical = VideoSpherical{};
    tile.spherical->projection = VideoSpherical::Projection::equirect_tile;
    tile.spherical->bound_left = tile.spherical->bound_right = 0.25;
    tile.stereo = VideoStereo{VideoStereo::Layout::side_by_side, false, ""};
    const gp::io::VideoStreamInfo t = gp::io::VideoReader(clip("tile" + ext, tile)).info();
    REQUIRE(t.spherical);
    CHECK(t.spherical->projection == VideoSpherical::Projection::equirect_tile);
    CHECK(t.spherical->bound_left == Approx(0.25).margin(1e-6));
    CHECK(t.spherical->bound_right == Approx(0.25).margin(1e-6));
    CHECK(t.spherical->bound_top == 0);
    CHECK(t.spherical->bound_bottom == 0);
    REQUIRE(t.stereo);
    CHECK(t.stereo->layout == VideoStereo::Layout::side_by_side);

    gp::io::VideoWriterOptions cube;
    cube.spherical = VideoSpherical{};
    cube.spherical->projection = VideoSpherical::Projection::cubemap;
    cube.spherical->padding = 2;
    cube.stereo = VideoStereo{VideoStereo::Layout::mono, false, ""};
    const gp::io::VideoStreamInfo c = gp::io::VideoReader(clip("cube" + ext, cube)).info();
    REQUIRE(c.spherical);
    CHECK(c.spherical->projection == VideoSpherical::Projection::cubemap);
    CHECK(c.spherical->padding == 2);
    REQUIRE(c.stereo);
    CHECK(c.stereo->layout == VideoStereo::Layout::mono);
  }
}
