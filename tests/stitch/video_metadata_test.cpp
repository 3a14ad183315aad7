// A video's 360 metadata against the job (video_metadata_problem): what agrees passes, what
// contradicts names the field to set; what the report says about it; and real files carrying it
// through the gpuproc binary.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/video_writer.hpp"
#include "stitch/video_frames.hpp"
#include "support/test_data.hpp"

using namespace gp::stitch;
using gp::io::VideoSpherical;
using gp::io::VideoStereo;
using gp::io::VideoStreamInfo;
using Catch::Matchers::Contains;

namespace {

VideoStreamInfo video(int w, int h, std::optional<VideoSpherical> spherical, std::optional<VideoStereo> stereo) {
  VideoStreamInfo info;
  info.width = w;
  info.height = h;
  info.spherical = spherical;
  info.stereo = stereo;
  return info;
}

VideoSpherical projection(VideoSpherical::Projection p) {
  VideoSpherical s;
  s.projection = p;
  return s;
}

VideoStereo stereo(VideoStereo::Layout layout, const char* name, bool right_first = false) {
  return VideoStereo{layout, right_first, name};
}

Settings mode(const std::string& m, Stereo st = Stereo::mono) {
  Settings s;
  s.mode = m;
  s.stereo = st;
  s.cube_layout = "3x2";
  return s;
}

}  // namespace

TEST_CASE("video metadata: agreeing with the job", "[stitch][video]") {
  const auto equirect = projection(VideoSpherical::Projection::equirect);
  CHECK(video_metadata_problem(mode("views"), video(3840, 1920, std::nullopt, std::nullopt)).empty());
  CHECK(video_metadata_problem(mode("views"), video(3840, 1920, equirect, std::nullopt)).empty());
  CHECK(video_metadata_problem(mode("cubemap"), video(3840, 1920, equirect, stereo(VideoStereo::Layout::mono, "2D"))).empty());
  CHECK(video_metadata_problem(mode("views", Stereo::top_bottom),
                               video(3840, 3840, equirect, stereo(VideoStereo::Layout::top_bottom, "top and bottom")))
            .empty());
  // VR180: half the longitudes, two square eyes side by side.
  VideoSpherical half = projection(VideoSpherical::Projection::equirect_tile);
  half.bound_left = half.bound_right = 0.25;
  CHECK(video_metadata_problem(mode("views", Stereo::side_by_side),
                               video(4096, 2048, half, stereo(VideoStereo::Layout::side_by_side, "side by side")))
            .empty());
  CHECK(video_metadata_problem(mode("equirect_from_cubemap"),
                               video(3072, 2048, projection(VideoSpherical::Projection::cubemap), std::nullopt))
            .empty());
  CHECK(video_metadata_problem(mode("equirect_from_dual_fisheye"), video(5760, 2880, std::nullopt, std::nullopt)).empty());
}

TEST_CASE("video metadata: contradicting the job names the field", "[stitch][video]") {
  const auto equirect = projection(VideoSpherical::Projection::equirect);
  const auto cube = projection(VideoSpherical::Projection::cubemap);
  CHECK_THAT(video_metadata_problem(mode("views"), video(3840, 3840, equirect, stereo(VideoStereo::Layout::top_bottom, "top and bottom"))),
             Contains("/input/stereo is mono: set /input/stereo top_bottom"));
  CHECK_THAT(video_metadata_problem(mode("views", Stereo::top_bottom),
                                    video(7680, 1920, equirect, stereo(VideoStereo::Layout::side_by_side, "side by side"))),
             Contains("set /input/stereo side_by_side"));
  CHECK_THAT(video_metadata_problem(mode("views", Stereo::top_bottom), video(3840, 3840, equirect, stereo(VideoStereo::Layout::mono, "2D"))),
             Contains("set /input/stereo mono"));
  CHECK_THAT(video_metadata_problem(mode("views"), video(3840, 1920, equirect, stereo(VideoStereo::Layout::other, "frame alternate"))),
             Contains("frame alternate"));
  CHECK_THAT(video_metadata_problem(mode("views", Stereo::top_bottom),
                                    video(3840, 3840, equirect, stereo(VideoStereo::Layout::top_bottom, "top and bottom", true))),
             Contains("right eye first"));
  CHECK_THAT(video_metadata_problem(mode("views"), video(3072, 2048, cube, std::nullopt)),
             Contains("set /mode equirect_from_cubemap"));
  CHECK_THAT(video_metadata_problem(mode("cubemap"), video(3072, 2048, cube, std::nullopt)),
             Contains("set /mode equirect_from_cubemap"));
  VideoSpherical part = projection(VideoSpherical::Projection::equirect_tile);
  part.bound_top = part.bound_bottom = 0.25;
  CHECK_THAT(video_metadata_problem(mode("views"), video(3840, 960, part, std::nullopt)),
             Contains("360 x 90 degrees") && Contains("whole 360 x 180"));
  VideoSpherical half = projection(VideoSpherical::Projection::equirect_tile);
  half.bound_left = half.bound_right = 0.25;
  CHECK_THAT(video_metadata_problem(mode("views"), video(4096, 2048, half, std::nullopt)),
             Contains("VR180") && Contains("set /input/stereo side_by_side or top_bottom"));
  CHECK_THAT(video_metadata_problem(mode("equirect_from_cubemap"), video(3840, 1920, equirect, std::nullopt)),
             Contains("set /mode views or cubemap"));
  Settings faces = mode("equirect_from_cubemap");
  faces.cube_layout = "1x6";
  CHECK_THAT(video_metadata_problem(faces, video(3072, 2048, cube, std::nullopt)), Contains("set /cubemap/layout 3x2"));
  VideoSpherical padded = cube;
  padded.padding = 8;
  CHECK_THAT(video_metadata_problem(mode("equirect_from_cubemap"), video(3072, 2048, padded, std::nullopt)),
             Contains("padded by 8 pixels"));
  CHECK_THAT(video_metadata_problem(mode("equirect_from_dual_fisheye"), video(5760, 2880, equirect, std::nullopt)),
             Contains("/mode equirect_from_dual_fisheye") && Contains("set /mode views or cubemap"));
  CHECK_THAT(video_metadata_problem(mode("equirect_from_dual_fisheye"),
                                    video(5760, 2880, std::nullopt, stereo(VideoStereo::Layout::side_by_side, "side by side"))),
             Contains("stereo is read in /mode views and cubemap"));
}

TEST_CASE("video metadata: the report's description", "[stitch][video]") {
  VideoSpherical sp = projection(VideoSpherical::Projection::equirect_tile);
  sp.yaw_deg = 30;
  sp.bound_left = sp.bound_right = 0.25;
  const auto j = video_metadata_json(video(4096, 2048, sp, stereo(VideoStereo::Layout::side_by_side, "side by side")));
  CHECK(j["spherical"]["projection"] == "equirect tile");
  CHECK(j["spherical"]["pose_deg"]["yaw"] == 30.0);
  CHECK(j["spherical"]["pose_applied"] == false);
  CHECK(j["spherical"]["bounds"]["left"] == 0.25);
  CHECK(j["stereo"]["layout"] == "side by side");
  const auto none = video_metadata_json(video(100, 50, std::nullopt, std::nullopt));
  CHECK(none["spherical"].is_null());
  CHECK(none["stereo"].is_null());
}

// End to end: files carrying the metadata (MP4 sv3d/st3d boxes, written by VideoWriter) through
// the gpuproc binary on the CPU path, its report read back.
TEST_CASE("video metadata: real files through stitch-360", "[stitch][video]") {
  const auto dir = gp::test::scratch_dir("video-metadata-cli");
  const auto write = [&](const std::string& name, int w, int h, const gp::io::VideoWriterOptions& options) {
    const std::string path = (dir / name).string();
    std::vector<std::uint8_t> rgb(std::size_t(w) * h * 3);
    for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = std::uint8_t((i * 7) % 251);
    gp::io::VideoWriterOptions o = options;
    o.input = gp::io::VideoPixels::rgb24;
    gp::io::VideoWriter writer(path, w, h, o);
    for (int t = 0; t < 2; ++t) writer.write(gp::packed_view(rgb.data(), w, h, 3, gp::PixelType::u8));
    writer.finish();
    return path;
  };
  gp::io::VideoWriterOptions cube;
  cube.spherical = projection(VideoSpherical::Projection::cubemap);
  const std::string cube_mp4 = write("cube.mp4", 96, 64, cube);
  gp::io::VideoWriterOptions vr180;
  vr180.spherical = projection(VideoSpherical::Projection::equirect_tile);
  vr180.spherical->bound_left = vr180.spherical->bound_right = 0.25;
  vr180.spherical->yaw_deg = 90;
  vr180.stereo = stereo(VideoStereo::Layout::side_by_side, "");
  const std::string vr180_mp4 = write("vr180.mp4", 128, 64, vr180);

  const auto run = [&](const std::string& inputs, const std::string& options, const std::string& report) {
    const std::string command = std::string(GPUPROC_BINARY) + " stitch-360 -c " + gp::test::source_path("configs/stitch-360.json") +
                                " " + inputs + " --device cpu --progress none --set views.width=32 --set views.height=32" +
                                " --set output.rig=false --set output.dir=" + (dir / report).string() + " --report " +
                                (dir / (report + ".json")).string() + " " + options + " >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream in(dir / (report + ".json"));
    REQUIRE(in);
    return std::make_pair(status, nlohmann::json::parse(in));
  };
  // As a mono equirect job: both fail, each naming the field to set.
  const auto [status, report] = run(cube_mp4 + " " + vr180_mp4, "", "mono");
  CHECK(status != 0);
  REQUIRE(report["item_records"].size() == 2);
  for (const auto& r : report["item_records"]) {
    CHECK(r["status"] == "failed");
    const std::string message = r["error"]["message"];
    if (message.find("cube.mp4") != std::string::npos)
      CHECK_THAT(message, Contains("set /mode equirect_from_cubemap"));
    else
      CHECK_THAT(message, Contains("vr180.mp4") && Contains("set /input/stereo side_by_side"));
  }
  // VR180 read as side-by-side stereo: done, the metadata reported, the pose not applied.
  const auto [ok_status, ok_report] = run(vr180_mp4, "--set input.stereo=side_by_side", "vr180");
  CHECK(ok_status == 0);
  REQUIRE(ok_report["extra"]["videos"].size() == 1);
  const auto& video = ok_report["extra"]["videos"][0];
  CHECK(video["frames_selected"] == 2);
  CHECK(video["metadata"]["spherical"]["projection"] == "equirect tile");
  CHECK(video["metadata"]["spherical"]["bounds"]["left"].get<double>() == Approx(0.25));
  CHECK(video["metadata"]["spherical"]["pose_deg"]["yaw"].get<double>() == Approx(90));
  CHECK(video["metadata"]["spherical"]["pose_applied"] == false);
  CHECK(video["metadata"]["stereo"]["layout"] == "side by side");
}
