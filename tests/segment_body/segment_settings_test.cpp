// segment-body's config: the documented example, defaults, and UsageErrors that name the field.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "segment_body/segment_settings.hpp"
#include "infer/model_files.hpp"
#include "support/config_example.hpp"

namespace {

using gp::config::json;

json config_with(const std::string& assignment = {}) {
  json c = json::object();
  c["inputs"] = json::array({"data-samples/video/moving_shapes.mp4"});
  if (!assignment.empty()) gp::config::apply_override(c, assignment);
  return gp::segbody::schema().validate(c, "test.json");
}

// The UsageError's message of read_settings for the config with `assignments`.
std::string usage_error(std::initializer_list<std::string> assignments) {
  json c = json::object();
  c["inputs"] = json::array({"data-samples/video/moving_shapes.mp4"});
  for (const std::string& a : assignments) gp::config::apply_override(c, a);
  try {
    gp::segbody::read_settings(gp::segbody::schema().validate(c, "test.json"));
  } catch (const gp::UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("segment-body: configs/segment-body.json documents every field and reads", "[segment_body]") {
  if (!gp::test::find_model("selfie_segmentation.tflite")) return;
  const json c = gp::test::check_documented_example("configs/segment-body.json", gp::segbody::schema());
  const gp::segbody::Settings s = gp::segbody::read_settings(c);
  CHECK(s.model_variant == "general");
  CHECK(s.model_path.find("selfie_segmentation.tflite") != std::string::npos);
  CHECK(s.fp16);
  CHECK(s.resize == gp::segbody::ResizeMode::stretch);  // MediaPipe's selfie graph
  CHECK(s.filter == gp::segbody::ResizeFilter::bilinear);
  CHECK(s.mask_video.enabled);
  CHECK(s.mask_video.codec == "ffv1");
  CHECK(s.mask_png.coverage == gp::segbody::Coverage::images);
  CHECK(s.batch == 16);
  CHECK_FALSE(s.streaming);
}

TEST_CASE("segment-body settings: streaming forces batch 1; colours parse", "[segment_body]") {
  if (!gp::test::find_model("selfie_segmentation.tflite")) return;
  if (!gp::test::find_model("selfie_segmentation_landscape.tflite")) return;
  CHECK(gp::segbody::read_settings(config_with("run.mode=streaming")).batch == 1);
  CHECK(gp::segbody::read_settings(config_with("run.batch=64")).batch == 64);
  const auto s = gp::segbody::read_settings(config_with("output.background.colour=#10a0FF"));
  CHECK(int(s.background_colour[0]) == 0x10);
  CHECK(int(s.background_colour[1]) == 0xa0);
  CHECK(int(s.background_colour[2]) == 0xff);
  const auto landscape = gp::segbody::read_settings(config_with("model.variant=landscape"));
  CHECK(landscape.model_path.find("selfie_segmentation_landscape.tflite") != std::string::npos);
}

TEST_CASE("segment-body settings: errors name the field", "[segment_body]") {
  if (!gp::test::find_model("selfie_segmentation.tflite")) return;
  CHECK_THAT(usage_error({"output.background.colour=0,300,0"}), Catch::Contains("/output/background/colour"));
  CHECK_THAT(usage_error({"output.background.colour=#12345"}), Catch::Contains("/output/background/colour"));
  CHECK_THAT(usage_error({"output.mask_video.name={stem}.mp4"}), Catch::Contains("/output/mask_video/name: ffv1 needs"));
  CHECK_THAT(usage_error({"output.background.video.name={stem}.avi"}),
             Catch::Contains("/output/background/video/name: libx264 needs"));
  CHECK_THAT(usage_error({"output.mask_png.enabled=all", "output.mask_png.frame_name=masks.png"}),
             Catch::Contains("/output/mask_png/frame_name") && Catch::Contains("needs {frame}"));
  CHECK_THAT(usage_error({"output.rgba_png.name={stem}.jpg"}), Catch::Contains("/output/rgba_png"));
  CHECK_THAT(usage_error({"output.mask_png.name=../{stem}.png"}), Catch::Contains("/output/mask_png/name"));
  CHECK_THAT(usage_error({"output.mask_png.name={colour}.png"}), Catch::Contains("colour"));
  CHECK_THAT(usage_error({"model.path=/nonexistent/model.tflite"}), Catch::Contains("/model/path"));
  CHECK_THAT(usage_error({"output.background.enabled=true", "output.background.kind=image"}),
             Catch::Contains("/output/background/image"));
  CHECK_THAT(usage_error({"output.mask_video.enabled=false", "output.mask_png.enabled=off"}),
             Catch::Contains("every output is off"));
  CHECK_THAT(usage_error({"output.dir=\"\""}), Catch::Contains("/output/dir"));
}

TEST_CASE("segment-body: the default model is looked up in GPUPROC_MODELS first", "[segment_body]") {
  const std::string dir = gp::test::scratch_dir("sb-models").string();
  const char* old = std::getenv("GPUPROC_MODELS");
  const std::string saved = old ? old : "";
  ::setenv("GPUPROC_MODELS", dir.c_str(), 1);
  // Not there: the source tree's .models is next.
  CHECK(gp::segbody::resolve_model_path("", "general") != dir + "/selfie_segmentation.tflite");
  { std::ofstream(dir + "/selfie_segmentation.tflite") << "x"; }
  CHECK(gp::segbody::resolve_model_path("", "general") == dir + "/selfie_segmentation.tflite");
  if (old) ::setenv("GPUPROC_MODELS", saved.c_str(), 1);
  else ::unsetenv("GPUPROC_MODELS");
}
