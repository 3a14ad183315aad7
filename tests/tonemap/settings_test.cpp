#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "support/config_example.hpp"
#include "tonemap/output_plan.hpp"
#include "tonemap/tonemap_settings.hpp"

using gp::tonemap::Size;

namespace {

gp::config::json validated(gp::config::json user) {
  if (!user.contains("inputs")) user["inputs"] = {"x.exr"};
  return gp::tonemap::schema().validate(user, "job.json");
}

}  // namespace

TEST_CASE("MIP chains halve down to 1x1", "[tonemap]") {
  auto chain = gp::tonemap::mip_chain({3840, 2160});
  REQUIRE(chain.size() == 12);
  CHECK(chain[1].width == 1920);
  CHECK(chain[1].height == 1080);
  CHECK(chain[4].width == 240);
  CHECK(chain[4].height == 135);
  CHECK(chain[5].height == 67);
  CHECK(chain.back().width == 1);
  CHECK(chain.back().height == 1);
  CHECK(gp::tonemap::mip_chain({1, 1}).size() == 1);
  CHECK(gp::tonemap::mip_chain({5, 1}).size() == 3);
}

TEST_CASE("thumbnails keep the aspect ratio and never upscale", "[tonemap]") {
  auto t = gp::tonemap::thumbnail_size({3840, 2160}, 256);
  CHECK(t.width == 256);
  CHECK(t.height == 144);
  t = gp::tonemap::thumbnail_size({100, 400}, 256);
  CHECK(t.width == 64);
  CHECK(t.height == 256);
  t = gp::tonemap::thumbnail_size({100, 50}, 256);
  CHECK(t.width == 100);
  CHECK(t.height == 50);
}

TEST_CASE("output plans name every file under the output folder", "[tonemap]") {
  auto s = gp::tonemap::read_settings(validated({{"output", {{"dir", "out"}, {"format", "png"}}},
                                                 {"mip", {{"enabled", true}}},
                                                 {"thumbnail", {{"size", 64}}}}));
  auto plan = gp::tonemap::plan_outputs(s, gp::InputItem{"shots/a.exr", 7, ""}, gp::tonemap::Size{8, 4});
  CHECK(plan.main == "out/a.png");
  REQUIRE(plan.mip_files.size() == 3);
  CHECK(plan.mip_files[0] == "out/a_mip1.png");
  CHECK(plan.mip_files[2] == "out/a_mip3.png");
  CHECK(plan.thumbnail == "out/a_thumb.jpg");
  CHECK(plan.all().size() == 5);
  // Before the input is read, the levels are one pattern.
  const auto planned = gp::tonemap::plan_outputs(s, gp::InputItem{"shots/a.exr", 7, ""}, std::nullopt);
  REQUIRE(planned.mip_files.size() == 1);
  CHECK(planned.mip_files[0] == "out/a_mip{level}.png");

  s = gp::tonemap::read_settings(validated({{"output", {{"dir", "out"}, {"name", "{index:04}_{stem}.{ext}"}}},
                                            {"mip", {{"enabled", true}, {"layout", "tiled"}}}}));
  plan = gp::tonemap::plan_outputs(s, gp::InputItem{"a.exr", 7, ""}, gp::tonemap::Size{8, 4});
  CHECK(plan.main == "out/0007_a.png");
  CHECK(plan.mip_files.empty());
  CHECK(plan.mip_tiled == "out/a.mip.tif");
}

TEST_CASE("alpha is written only where the format and the setting allow", "[tonemap]") {
  CHECK(gp::tonemap::output_channels("a.png", true, "auto") == 4);
  CHECK(gp::tonemap::output_channels("a.PNG", true, "drop") == 3);
  CHECK(gp::tonemap::output_channels("a.jpg", true, "auto") == 3);
  CHECK(gp::tonemap::output_channels("a.png", false, "auto") == 3);
}

TEST_CASE("settings reject combinations the schema cannot express", "[tonemap]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(gp::tonemap::read_settings(validated({{"output", {{"bits", 12}}}})),
                    Contains("/output/bits: expected 8 or 16"));
  CHECK_THROWS_WITH(gp::tonemap::read_settings(validated({{"output", {{"bits", 16}, {"format", "jpg"}}}})),
                    Contains("16-bit output needs format png or tif"));
  CHECK_THROWS_WITH(
      gp::tonemap::read_settings(validated({{"exposure", {{"percentile_low", 50}, {"percentile_high", 40}}}})),
      Contains("/exposure/percentile_low"));
  CHECK_THROWS_WITH(gp::tonemap::read_settings(validated({{"input", {{"channels", {"R", "G"}}}}})),
                    Contains("/input/channels"));
  CHECK_THROWS_AS(gp::tonemap::read_settings(validated({{"output", {{"name", "../{stem}.png"}}}})), gp::UsageError);
  CHECK_THROWS_AS(gp::tonemap::read_settings(validated({{"mip", {{"name", "/abs/{stem}.png"}}}})), gp::UsageError);
}

TEST_CASE("schema errors use the documented message format", "[tonemap]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(validated({{"output", {{"quality", "high"}}}}),
                    Contains("job.json: /output/quality: expected integer 1..100, got \"high\""));
  CHECK_THROWS_WITH(validated({{"tonemap", {{"operater", "agx"}}}}), Contains("did you mean \"operator\""));
  CHECK_THROWS_WITH(gp::tonemap::schema().validate(gp::config::json::object(), "job.json"), Contains("/inputs"));
}

TEST_CASE("configs/tonemap-exr.json is valid and documents every field", "[tonemap]") {
  const auto config = gp::test::check_documented_example("configs/tonemap-exr.json", gp::tonemap::schema());
  CHECK_NOTHROW(gp::tonemap::read_settings(config));
}
