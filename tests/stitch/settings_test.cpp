// stitch-360's config: defaults, custom views, and errors that name the field.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "stitch/output_plan.hpp"
#include "stitch/stitch_settings.hpp"
#include "support/config_example.hpp"

using gp::config::json;

namespace {

gp::stitch::Settings settings_with(const json& overrides) {
  json user = {{"inputs", {"pano.jpg"}}};
  user.merge_patch(overrides);
  return gp::stitch::read_settings(gp::stitch::schema().validate(user, "job.json"));
}

}  // namespace

TEST_CASE("configs/stitch-360.json is valid and documents every field", "[stitch][config]") {
  const auto config = gp::test::check_documented_example("configs/stitch-360.json", gp::stitch::schema());
  CHECK_NOTHROW(gp::stitch::read_settings(config));
}

TEST_CASE("stitch-360 settings: the default is ring8 of 1920x1920 views at 90 degrees", "[stitch][config]") {
  const auto s = settings_with(json::object());
  REQUIRE(s.views.size() == 8);
  CHECK(s.views[2].yaw_deg == 90);
  CHECK(s.views[0].width == 1920);
  CHECK(s.views[0].hfov_deg == 90);
  CHECK(s.mode == "views");
  CHECK(s.format == "jpg");
  CHECK(s.jpeg_quality == 95);
  CHECK(s.batch == 16);
  CHECK(settings_with({{"views", {{"preset", "ring8+zenith+nadir"}}}}).views.size() == 10);
  CHECK(settings_with({{"views", {{"preset", "cube"}, {"width", 512}, {"height", 512}}}}).views.size() == 6);
}

TEST_CASE("stitch-360 settings: custom views", "[stitch][config]") {
  const auto s = settings_with({{"views",
                                 {{"preset", "custom"},
                                  {"width", 800},
                                  {"custom", {"name=door yaw=-30 pitch=10 hfov=60", "roll=5 focal=500 height=600"}}}}});
  REQUIRE(s.views.size() == 2);
  CHECK(s.views[0].name == "door");
  CHECK(s.views[0].yaw_deg == -30);
  CHECK(s.views[0].pitch_deg == 10);
  CHECK(s.views[0].hfov_deg == 60);
  CHECK(s.views[0].width == 800);
  CHECK(s.views[1].name == "view1");
  CHECK(s.views[1].focal_px == 500);
  CHECK(s.views[1].height == 600);
}

TEST_CASE("stitch-360 settings: errors name the field", "[stitch][config]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(settings_with({{"views", {{"preset", "custom"}}}}), Contains("/views/custom"));
  CHECK_THROWS_WITH(settings_with({{"views", {{"preset", "custom"}, {"custom", {"yaw=abc"}}}}}),
                    Contains("/views/custom/0") && Contains("yaw=abc"));
  CHECK_THROWS_WITH(settings_with({{"views", {{"preset", "custom"}, {"custom", {"tilt=3"}}}}}), Contains("tilt"));
  CHECK_THROWS_WITH(settings_with({{"views", {{"preset", "custom"}, {"custom", {"name=a", "name=a yaw=3"}}}}}),
                    Contains("two views"));
  CHECK_THROWS_WITH(settings_with({{"views", {{"custom", {"yaw=3"}}}}}), Contains("only used with"));
  CHECK_THROWS_WITH(settings_with({{"output", {{"name", "{stem}.jpg"}}}}), Contains("{view}"));
  CHECK_THROWS_WITH(settings_with({{"equirect", {{"width", 1001}}}}), Contains("/equirect/width"));
  CHECK_THROWS_AS(settings_with({{"views", {{"preset", "custom"}, {"custom", {"pitch=120"}}}}}), gp::UsageError);
}

TEST_CASE("stitch-360 masks: settings, errors and file names", "[stitch][config]") {
  using Catch::Matchers::Contains;
  const auto off = settings_with(json::object());
  CHECK_FALSE(off.mask.enabled);
  CHECK(gp::stitch::plan_outputs(off, gp::InputItem{"shots/p1.jpg", 0, ""}, 0, 0)[0].mask_path.empty());

  const auto s = settings_with({{"mask", {{"enabled", true}, {"nadir", 30}}}, {"output", {{"dir", "out"}}}});
  CHECK(s.mask.nadir_deg == 30);
  const auto plan = gp::stitch::plan_outputs(s, gp::InputItem{"shots/p1.jpg", 0, ""}, 0, 0);
  REQUIRE(plan.size() == 8);
  CHECK(plan[2].path == "out/yaw090/p1.jpg");  // a folder per view: a COLMAP camera each
  CHECK(plan[2].mask_path == "out/masks/yaw090/p1.jpg.png");  // COLMAP: mask of X.jpg is X.jpg.png
  const gp::stitch::FrameTag frame{"12", "0.400"};
  CHECK(gp::stitch::plan_outputs(s, gp::InputItem{"shots/clip.mp4", 0, ""}, 0, 0, &frame)[2].path ==
        "out/yaw090/clip_000012_0.400s.jpg");

  const auto named = settings_with({{"mask", {{"enabled", true}, {"nadir", 30}, {"name", "m/{stem}-{view}.png"}}},
                                    {"output", {{"dir", "out"}}}});
  CHECK(gp::stitch::plan_outputs(named, gp::InputItem{"p1.jpg", 0, ""}, 0, 0)[0].mask_path == "out/m/p1-yaw000.png");

  CHECK_THROWS_WITH(settings_with({{"mask", {{"enabled", true}}}}), Contains("/mask/image") && Contains("/mask/nadir"));
  CHECK_THROWS_WITH(settings_with({{"mode", "equirect_from_dual_fisheye"}, {"mask", {{"enabled", true}, {"nadir", 20}}}}),
                    Contains("/mask/enabled"));
  CHECK_THROWS_WITH(settings_with({{"mode", "cubemap"}, {"mask", {{"enabled", true}, {"nadir", 20}, {"apply", true}}}}),
                    Contains("/mask/apply"));
  CHECK_THROWS_WITH(settings_with({{"mask", {{"enabled", true}, {"nadir", 20}, {"name", "mask.png"}}}}),
                    Contains("/mask/name"));
  CHECK_NOTHROW(settings_with({{"mode", "cubemap"}, {"mask", {{"enabled", true}, {"nadir", 20}}}}));
}

TEST_CASE("stitch-360 stereo inputs: each eye's half, eye names, sizes that are refused", "[stitch][config]") {
  using gp::stitch::Stereo;
  std::vector<std::uint8_t> pixels(std::size_t(8) * 8 * 3);
  const gp::ImageView pano = gp::packed_view(pixels.data(), 8, 8, 3, gp::PixelType::u8);
  const gp::ImageView top = gp::stitch::eye_view(pano, Stereo::top_bottom, 0);
  const gp::ImageView bottom = gp::stitch::eye_view(pano, Stereo::top_bottom, 1);
  CHECK((top.width == 8 && top.height == 4 && top.data == pixels.data()));
  CHECK((bottom.height == 4 && bottom.data == pixels.data() + 4 * 8 * 3 && bottom.pitch == 8 * 3));
  const gp::ImageView right = gp::stitch::eye_view(pano, Stereo::side_by_side, 1);
  CHECK((right.width == 4 && right.height == 8 && right.data == pixels.data() + 4 * 3 && right.pitch == 8 * 3));
  CHECK(gp::stitch::eye_view(pano, Stereo::mono, 1).data == pano.data);

  const auto mono = settings_with(json::object());
  CHECK(gp::stitch::equirect_size_problem(mono, 4096, 2048).empty());
  CHECK_THAT(gp::stitch::equirect_size_problem(mono, 2048, 2048),
             Catch::Contains("not a 2:1 equirect") && Catch::Contains("/input/stereo top_bottom"));
  CHECK_THAT(gp::stitch::equirect_size_problem(mono, 8192, 2048), Catch::Contains("side_by_side"));
  const auto tb = settings_with({{"input", {{"stereo", "top_bottom"}, {"eye", "both"}}}});
  CHECK(gp::stitch::equirect_size_problem(tb, 4096, 4096).empty());
  CHECK_THAT(gp::stitch::equirect_size_problem(tb, 4096, 2048), Catch::Contains("each eye is 4096x1024"));
  const auto sbs = settings_with({{"input", {{"stereo", "side_by_side"}}}});
  CHECK(gp::stitch::equirect_size_problem(sbs, 8192, 2048).empty());
  CHECK(gp::stitch::equirect_size_problem(sbs, 4096, 2048).empty());  // VR180: two square 180-degree eyes
  CHECK(gp::stitch::hemisphere_eye(sbs, 2048, 2048));
  CHECK(!gp::stitch::hemisphere_eye(mono, 2048, 2048));
  CHECK_THAT(gp::stitch::equirect_size_problem(sbs, 6000, 2048), Catch::Contains("each eye is 3000x2048"));
  // Not an equirect input: no check.
  CHECK(gp::stitch::equirect_size_problem(settings_with({{"mode", "equirect_from_dual_fisheye"}}), 3000, 1500).empty());

  // Both eyes: every view once per eye, the eye added to {view} (or given by {eye}).
  const auto outputs = gp::stitch::plan_outputs(tb, gp::InputItem{"shots/p.jpg", 0, ""}, 4096, 4096);
  REQUIRE(outputs.size() == 16);
  CHECK(outputs[0].label == "yaw000_left");
  CHECK(outputs[0].eye == 0);
  CHECK(outputs[8].label == "yaw000_right");
  CHECK(outputs[8].eye == 1);
  CHECK(outputs[8].width == 1920);
  const auto named = settings_with({{"input", {{"stereo", "top_bottom"}, {"eye", "both"}}},
                                    {"output", {{"name", "{eye}/{stem}_{view}.{ext}"}}}});
  const auto by_folder = gp::stitch::plan_outputs(named, gp::InputItem{"p.jpg", 0, ""}, 0, 0);
  CHECK(by_folder[8].label == "yaw000");
  CHECK_THAT(by_folder[8].path, Catch::Contains("right/p_yaw000.jpg"));
  // One eye: its views only, named as for mono.
  const auto right_eye = settings_with({{"input", {{"stereo", "top_bottom"}, {"eye", "right"}}}});
  const auto one = gp::stitch::plan_outputs(right_eye, gp::InputItem{"p.jpg", 0, ""}, 4096, 4096);
  REQUIRE(one.size() == 8);
  CHECK((one[0].label == "yaw000" && one[0].eye == 1));
  // Cube faces of a stereo eye: a quarter of the eye's width.
  const auto cube = settings_with({{"mode", "cubemap"}, {"input", {{"stereo", "top_bottom"}}}});
  CHECK(gp::stitch::plan_outputs(cube, gp::InputItem{"p.jpg", 0, ""}, 4096, 4096)[0].width == 1024);

  CHECK_THROWS_WITH(settings_with({{"mode", "equirect_from_cubemap"}, {"input", {{"stereo", "top_bottom"}}}}),
                    Catch::Contains("/input/stereo"));
  CHECK_THROWS_WITH(settings_with({{"mode", "cubemap"}, {"cubemap", {{"layout", "3x2"}}},
                                   {"input", {{"stereo", "top_bottom"}, {"eye", "both"}}},
                                   {"output", {{"name", "{stem}.{ext}"}}}}),
                    Catch::Contains("needs {eye}"));
}
