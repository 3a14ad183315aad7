// segment-body's CPU path end to end (the GPU test compares the GPU path with it): the sample
// video to a mask video and per-frame PNG masks, an image to mask / RGBA / background PNGs, and
// a person photo whose mask covers the person.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/batch_job.hpp"
#include "infer/model_files.hpp"
#include "io/video_reader.hpp"
#include "frames/rgb_image.hpp"
#include "segment_body/segment_command.hpp"
#include "support/test_data.hpp"

namespace fs = std::filesystem;

namespace {

const char* kMessi = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg";

// Runs the command on the CPU with the example config; returns the exit code, the report in `report`.
int run_cpu(const std::vector<std::string>& inputs, const std::vector<std::string>& sets, const fs::path& out,
            nlohmann::json& report, const std::string& trace = "") {
  gp::CommonOptions o;
  o.config_path = gp::test::source_path("configs/segment-body.json");
  o.inputs = inputs;
  o.overrides = sets;
  o.overrides.push_back("output.dir=" + out.string());
  o.device = "cpu";
  o.progress = "none";
  o.report_path = (out.parent_path() / (out.filename().string() + "-report.json")).string();
  o.trace_path = trace;
  auto command = gp::segbody::make_command();
  const int rc = gp::run_batch_job(*command, o);
  std::ifstream f(o.report_path);
  report = nlohmann::json::parse(f);
  return rc;
}

// Fraction of pixels >= 128 of a grey PNG (read as RGB, grey repeated) and its size.
double coverage(const std::string& png, int& width, int& height) {
  gp::frames::RgbImage image = gp::frames::load_rgb_image(png);
  width = image.width;
  height = image.height;
  std::size_t on = 0;
  for (std::size_t i = 0; i < image.pixels.size(); i += 3) on += image.pixels[i] >= 128;
  return double(on) / double(std::size_t(width) * height);
}

}  // namespace

TEST_CASE("segment-body CPU: the sample video to an FFV1 mask video equal to its per-frame PNG masks",
          "[segment_body][segment_body_cpu]") {
  if (!gp::test::find_model("selfie_segmentation.tflite")) return;
  const fs::path out = gp::test::scratch_dir("sb-video") / "out";
  nlohmann::json report;
  const std::string video = gp::test::source_path("data-samples/video/moving_shapes.mp4");
  REQUIRE(run_cpu({video}, {"output.mask_png.enabled=all", "run.batch=4"}, out, report) == 0);
  CHECK(report["extra"]["frames"] == 60);
  CHECK(report["extra"]["path"] == "cpu");
  CHECK(report["extra"]["latency_ms"]["frames"] == 60);
  CHECK(report["extra"]["compute_latency_ms"]["frames"] == 60);
  // The compute stage's part of a frame's latency cannot exceed the whole.
  CHECK(report["extra"]["compute_latency_ms"]["max"].get<double>() <= report["extra"]["latency_ms"]["max"].get<double>());
  CHECK(report["extra"]["latency_ms"]["p99"].get<double>() >= report["extra"]["latency_ms"]["p50"].get<double>());
  CHECK(report["stages"].contains("model"));
  CHECK(report["stages"].contains("postprocess"));

  const fs::path mask_video = out / "moving_shapes_mask.mkv";
  REQUIRE(fs::is_regular_file(mask_video));
  const nlohmann::json manifest = nlohmann::json::parse(std::ifstream(out / "moving_shapes_frames.json"));
  CHECK(manifest["frames"] == 60);
  CHECK(manifest["files"].size() == 60);

  gp::io::VideoReaderOptions ro;
  ro.pixels = gp::io::VideoPixels::gray8;
  gp::io::VideoReader reader(mask_video.string(), ro);
  CHECK(reader.info().codec == "ffv1");
  CHECK(reader.info().width == 320);
  CHECK(reader.info().height == 240);
  gp::io::VideoFrame frame;
  int frames = 0;
  std::size_t differing = 0;
  while (reader.read(frame)) {
    char name[32];
    std::snprintf(name, sizeof name, "%05d.png", frames);
    const gp::frames::RgbImage png = gp::frames::load_rgb_image((out / "moving_shapes_mask" / name).string());
    REQUIRE(png.width == 320);
    REQUIRE(png.height == 240);
    for (int y = 0; y < 240; ++y)
      for (int x = 0; x < 320; ++x)
        differing += frame.plane(0)[std::size_t(y) * frame.pitch(0) + x] != png.pixels[(std::size_t(y) * 320 + x) * 3];
    ++frames;
  }
  CHECK(frames == 60);
  CHECK(differing == 0);  // FFV1 is lossless: the video holds the PNGs' bytes
}

TEST_CASE("segment-body CPU: a person photo gives a mask over the person, RGBA and a replaced background",
          "[segment_body][segment_body_cpu]") {
  if (!gp::test::find_model("selfie_segmentation.tflite")) return;
  if (!fs::is_regular_file(kMessi)) {
    WARN("skipped: " << kMessi << " not found (Debian package opencv-doc)");
    return;
  }
  const fs::path out = gp::test::scratch_dir("sb-image") / "out";
  nlohmann::json report;
  REQUIRE(run_cpu({kMessi}, {"output.rgba_png.enabled=images", "output.background.enabled=true"}, out, report) == 0);
  CHECK(report["extra"]["images"] == 1);
  int w = 0, h = 0;
  const double covered = coverage((out / "messi5_mask.png").string(), w, h);
  CHECK(w == 548);
  CHECK(h == 342);
  // The player fills about a fifth of the photo (21% with the raw model mask, engine tests).
  CHECK(covered > 0.10);
  CHECK(covered < 0.50);
  const gp::frames::RgbImage background = gp::frames::load_rgb_image((out / "messi5_background.png").string());
  // Top-left corner: grass and stands, replaced by the default green.
  CHECK(int(background.pixels[0]) == 0);
  CHECK(int(background.pixels[1]) == 255);
  CHECK(int(background.pixels[2]) == 0);
  CHECK(fs::file_size(out / "messi5_rgba.png") > 0);
}

TEST_CASE("segment-body CPU: a corrupt video fails alone; --resume skips finished inputs",
          "[segment_body][segment_body_cpu]") {
  if (!gp::test::find_model("selfie_segmentation.tflite")) return;
  const fs::path dir = gp::test::scratch_dir("sb-corrupt");
  const std::string video = gp::test::source_path("data-samples/video/moving_shapes.mp4");
  // The first half of the file: the container declares 60 frames.
  {
    std::ifstream in(video, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir / "cut.mp4", std::ios::binary).write(bytes.data(), std::streamsize(bytes.size() / 2));
  }
  nlohmann::json report;
  const fs::path out = dir / "out";
  const int rc = run_cpu({video, (dir / "cut.mp4").string()}, {"mask.refine.enabled=false"}, out, report);
  CHECK(rc == 1);
  CHECK(report["items"]["succeeded"] == 1);
  CHECK(report["items"]["failed"] == 1);
  CHECK(fs::is_regular_file(out / "moving_shapes_mask.mkv"));
  CHECK_FALSE(fs::exists(out / "cut_mask.mkv"));
  int leftovers = 0;
  for (const auto& e : fs::directory_iterator(out)) leftovers += e.path().filename().string().rfind(".cut", 0) == 0;
  CHECK(leftovers == 0);  // the failed video's temporary is gone

  gp::CommonOptions o;
  o.config_path = gp::test::source_path("configs/segment-body.json");
  o.inputs = {video};
  o.overrides = {"output.dir=" + out.string()};
  o.device = "cpu";
  o.progress = "none";
  o.resume = true;
  o.report_path = (dir / "resume.json").string();
  auto command = gp::segbody::make_command();
  CHECK(gp::run_batch_job(*command, o) == 0);
  const nlohmann::json resumed = nlohmann::json::parse(std::ifstream(o.report_path));
  CHECK(resumed["items"]["skipped_complete"] == 1);
}

TEST_CASE("segment-body CPU pose_lite: a photo and the sample video give masks and poses as JSON and CSV",
          "[segment_body][segment_body_cpu][pose]") {
  if (!gp::test::find_model("pose_detection.tflite") || !gp::test::find_model("pose_landmark_lite.tflite")) return;
  if (!fs::is_regular_file(kMessi)) {
    WARN("skipped: " << kMessi << " not found (Debian package opencv-doc)");
    return;
  }
  const fs::path out = gp::test::scratch_dir("sb-pose") / "out";
  const std::string video = gp::test::source_path("data-samples/video/moving_shapes.mp4");
  nlohmann::json report;
  REQUIRE(run_cpu({kMessi, video}, {"model.variant=pose_lite", "pose.detector_tiles=0"}, out, report) == 0);
  // The photo: one person, as JSON and as a CSV row under its header (9 + 33 x 5 + 33 x 3 columns).
  std::ifstream json_file(out / "messi5_pose.json");
  const nlohmann::json photo = nlohmann::json::parse(json_file);
  REQUIRE(photo["people"].size() == 1);
  CHECK(photo["people"][0]["landmarks"].size() == 33);
  CHECK(photo["people"][0]["id"] == 0);  // IDs are for videos
  std::ifstream csv(out / "messi5_pose.csv");
  std::string header, row, extra;
  REQUIRE(std::getline(csv, header));
  REQUIRE(std::getline(csv, row));
  CHECK_FALSE(std::getline(csv, extra));
  CHECK(std::count(header.begin(), header.end(), ',') == 9 + 33 * 5 + 33 * 3 - 1);
  CHECK(std::count(row.begin(), row.end(), ',') == 9 + 33 * 5 + 33 * 3 - 1);
  CHECK(row.rfind("0,,0,", 0) == 0);  // frame 0, no time, ID 0
  int w = 0, h = 0;
  CHECK(coverage((out / "messi5_mask.png").string(), w, h) > 0.10);
  // The sample video (moving shapes, nobody): a JSON line per frame, each with no people, and the
  // mask video; the CSV has its header only.
  std::ifstream lines(out / "moving_shapes_pose.jsonl");
  int frames = 0;
  for (std::string line; std::getline(lines, line); ++frames) {
    const nlohmann::json j = nlohmann::json::parse(line);
    CHECK(j["frame"] == frames);
    CHECK(j["people"].empty());
  }
  gp::io::VideoReader reader(video);
  gp::io::VideoFrame frame;
  int decoded = 0;
  while (reader.read(frame)) ++decoded;
  CHECK(frames == decoded);
  CHECK(fs::is_regular_file(out / "moving_shapes_mask.mkv"));
  std::ifstream video_csv(out / "moving_shapes_pose.csv");
  REQUIRE(std::getline(video_csv, header));
  CHECK_FALSE(std::getline(video_csv, extra));
}

TEST_CASE("segment-body CPU: videos in flight give the same files as one video at a time, byte for byte",
          "[segment_body][segment_body_cpu]") {
  if (!gp::test::find_model("selfie_segmentation.tflite")) return;
  const fs::path dir = gp::test::scratch_dir("sb-in-flight");
  const fs::path sample = gp::test::source_path("data-samples/video/moving_shapes.mp4");
  std::vector<std::string> clips;
  for (const char* name : {"a.mp4", "b.mp4"}) {
    fs::copy_file(sample, dir / name, fs::copy_options::overwrite_existing);
    clips.push_back((dir / name).string());
  }
  nlohmann::json one_report, two_report;
  REQUIRE(run_cpu(clips, {"run.videos_in_flight=1", "output.mask_png.enabled=all"}, dir / "one", one_report) == 0);
  REQUIRE(run_cpu(clips, {"run.videos_in_flight=2", "output.mask_png.enabled=all"}, dir / "two", two_report) == 0);
  CHECK(one_report["extra"]["videos_in_flight"] == 1);
  CHECK(two_report["extra"]["videos_in_flight"] == 2);
  CHECK(two_report["extra"]["frames"] == one_report["extra"]["frames"]);
  auto bytes = [](const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  std::size_t compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "one")) {
    if (!entry.is_regular_file()) continue;
    const fs::path rel = fs::relative(entry.path(), dir / "one");
    // The manifests and completion records name their output folder.
    if (rel.extension() == ".json" || *rel.begin() == ".gpuproc") continue;
    INFO(rel.string());
    REQUIRE(fs::is_regular_file(dir / "two" / rel));
    CHECK(bytes(entry.path()) == bytes(dir / "two" / rel));
    ++compared;
  }
  CHECK(compared > 2 * 2);  // per video: the mask video and the frame PNGs
}

TEST_CASE("segment-body CPU: images and videos of one batch move at once", "[segment_body][segment_body_cpu]") {
  if (!gp::test::find_model("selfie_segmentation.tflite") || !fs::is_regular_file(kMessi)) return;
  const fs::path dir = gp::test::scratch_dir("sb-mixed");
  std::vector<std::string> inputs;
  for (int k = 0; k < 4; ++k) {
    const fs::path photo = dir / ("photo" + std::to_string(k) + ".jpg");
    fs::copy_file(kMessi, photo, fs::copy_options::overwrite_existing);
    inputs.push_back(photo.string());
  }
  inputs.push_back(gp::test::source_path("data-samples/video/moving_shapes.mp4"));
  nlohmann::json report;
  const std::string trace = (dir / "trace.json").string();
  REQUIRE(run_cpu(inputs, {}, dir / "out", report, trace) == 0);
  CHECK(report["items"]["succeeded"] == 5);
  // The video's decoder starts before the last photo is read: the video does not wait for the images.
  std::ifstream f(trace);
  const nlohmann::json t = nlohmann::json::parse(f);
  const nlohmann::json& events = t.is_object() ? t["traceEvents"] : t;
  std::map<long long, std::string> thread_names;
  for (const auto& e : events)
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names[e["tid"].get<long long>()] = e["args"]["name"];
  double first_decode = 1e18, last_photo_read = 0;
  for (const auto& e : events) {
    if (e["ph"] != "X") continue;
    if (thread_names[e["tid"].get<long long>()] == "decode") first_decode = std::min(first_decode, e["ts"].get<double>());
    if (e["name"] == "read+decode") last_photo_read = std::max(last_photo_read, e["ts"].get<double>());
  }
  INFO("first video decode at " << first_decode << " us, last photo read at " << last_photo_read << " us");
  CHECK(first_decode < last_photo_read);
}
