// Person masks on real content (issue 6): MediaPipe selfie segmentation on the CPU engine with the
// segment-body pre/postprocessing references (preprocess_cpu, upsample_mask_cpu to a binary mask
// at frame size) against the hand-annotated boxes of people_truth.hpp on OpenCV's vtest.avi and
// messi5.jpg. Measured values are printed (WARN) so the thresholds below stay documented.
// The configuration checked: the general model (256x256), whole frame letterboxed (the landscape
// model letterboxed finds nothing in vtest's 4:3 frames: 0 mask pixels in all six; stretched it
// finds less than the general one). Thresholds and their measurements: people_mask_measure.hpp.
// gpuproc_tests "[.people_measure]" prints every variant (general/landscape, letterbox/stretch,
// whole frame and 2x2/3x3 tiles); with GPUPROC_PEOPLE_MASK_DIR=<dir> it also writes each mask over
// the frame with the boxes as PPM, to look at.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <vector>

#include "cuda/segment_body/mask.hpp"
#include "cuda/frames/preprocess.hpp"
#include "infer/cpu_engine.hpp"
#include "infer/model_files.hpp"
#include "segment_body/people_mask_measure.hpp"
#include "segment_body/people_truth.hpp"
#include "core/gpu_runtime.hpp"
#include "segment_body/mask_processor.hpp"
#include "segment_body/segment_settings.hpp"

namespace {

using gp::test::MaskVariant;
using gp::test::TruthImage;

// The binary person mask of one image at frame size: preprocess_cpu -> CpuEngine ->
// upsample_mask_cpu (bilinear, threshold 0.5). tiles > 1 runs the model on each of tiles x tiles
// parts of the frame (people appear larger to it) and puts the masks side by side.
std::vector<std::uint8_t> cpu_person_mask(gp::infer::CpuEngine& engine, const TruthImage& image,
                                          gp::segbody::ResizeMode mode, int tiles = 1) {
  const gp::infer::Shape in = engine.input_shapes().at(0);  // NHWC
  gp::segbody::PreprocessParams p;
  p.height = in[1];
  p.width = in[2];
  p.mode = mode;
  std::vector<float> tensor(static_cast<std::size_t>(gp::infer::element_count(in)));
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(image.width) * image.height);
  gp::segbody::MaskOutput binary;
  binary.kind = gp::segbody::MaskOutput::Kind::binary;
  binary.threshold = 0.5f;
  const gp::segbody::FrameSource frame = image.frame();
  for (int ty = 0; ty < tiles; ++ty)
    for (int tx = 0; tx < tiles; ++tx) {
      const int x0 = (image.width * tx / tiles) & ~1, x1 = tx + 1 == tiles ? image.width : (image.width * (tx + 1) / tiles) & ~1;
      const int y0 = (image.height * ty / tiles) & ~1, y1 = ty + 1 == tiles ? image.height : (image.height * (ty + 1) / tiles) & ~1;
      const gp::segbody::Rect content =
          gp::segbody::preprocess_cpu(gp::frames::crop_frame(frame, {x0, y0, x1 - x0, y1 - y0}), p, tensor.data(), 0, nullptr);
      std::vector<std::vector<float>> out = engine.run({tensor});
      const gp::ImageView model_mask = gp::packed_view(out[0].data(), p.width, p.height, 1, gp::PixelType::f32);
      gp::ImageView part = gp::packed_view(mask.data() + std::size_t(y0) * image.width + x0, x1 - x0, y1 - y0, 1,
                                           gp::PixelType::u8);
      part.pitch = std::size_t(image.width);
      gp::segbody::upsample_mask_cpu(model_mask, content, part, binary);
    }
  return mask;
}

std::string describe(const gp::test::MaskScore& s, const gp::test::TruthFrame& truth) {
  std::ostringstream text;
  text.precision(2);
  text << std::fixed << "precision " << s.precision << " (" << s.mask_pixels << " mask px), worst background "
       << s.worst_background << ", coverage (box height: fraction):";
  for (std::size_t i = 0; i < s.coverage.size(); ++i) text << ' ' << truth.people[i].height() << ':' << s.coverage[i];
  return text.str();
}

}  // namespace

TEST_CASE("people_truth: the hand-annotated boxes are consistent with the frames", "[segment_body][people]") {
  const std::vector<TruthImage> frames = gp::test::load_vtest_truth();
  for (const TruthImage& image : frames) gp::test::check_truth_consistent(image);
  for (const TruthImage& image : gp::test::load_messi_truth()) gp::test::check_truth_consistent(image);
  // The GPU test's frames (the ffmpeg command) are VideoReader's, byte for byte.
  const std::vector<TruthImage> piped = gp::test::load_vtest_truth_ffmpeg();
  if (frames.empty() || piped.empty()) return;
  REQUIRE(piped.size() == frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) {
    INFO(frames[i].name);
    for (int p = 0; p < 3; ++p) CHECK(piped[i].planes[p] == frames[i].planes[p]);
  }
}

TEST_CASE("Person masks measured on vtest.avi and messi5.jpg, every model variant", "[.people_measure]") {
  const std::vector<TruthImage> frames = gp::test::load_vtest_truth();
  const std::vector<TruthImage> photos = gp::test::load_messi_truth();
  for (const MaskVariant variant : {MaskVariant{"selfie_segmentation.tflite", gp::segbody::ResizeMode::letterbox},
                                    MaskVariant{"selfie_segmentation.tflite", gp::segbody::ResizeMode::stretch},
                                    MaskVariant{"selfie_segmentation_landscape.tflite", gp::segbody::ResizeMode::letterbox},
                                    MaskVariant{"selfie_segmentation_landscape.tflite", gp::segbody::ResizeMode::stretch}}) {
    const auto path = gp::test::find_model(variant.model_file);
    if (!path) continue;
    gp::infer::CpuEngine engine(gp::infer::Model::load(*path), 1);
    for (const auto* set : {&frames, &photos})
      for (const TruthImage& image : *set) {
        for (int tiles = 1; tiles <= (set == &frames ? 3 : 1); ++tiles) {
          std::vector<std::uint8_t> mask = cpu_person_mask(engine, image, variant.mode, tiles);
          const auto view = gp::packed_view(mask.data(), image.width, image.height, 1, gp::PixelType::u8);
          const gp::test::MaskScore s = gp::test::score_mask(view, image.truth, 4);
          const std::string tag = gp::test::variant_name(variant) + " tiles " + std::to_string(tiles);
          gp::test::dump_mask_overlay(image, view, tag);
          WARN(tag << ", " << image.name << ": " << describe(s, image.truth));
          if (image.truth.frame_index < 0)
            for (const gp::test::PixelBox& b : gp::test::messi_solid_parts())
              WARN(tag << ", messi solid part " << b.x0 << ',' << b.y0 << ": " << gp::test::mask_fraction(view, b));
        }
      }
  }
}

TEST_CASE("Person masks on vtest.avi and messi5.jpg cover the annotated people and little else (CPU)",
          "[segment_body][people]") {
  const auto path = gp::test::find_model("selfie_segmentation.tflite");
  if (!path) return;
  gp::infer::CpuEngine engine(gp::infer::Model::load(*path), 1);
  const std::vector<TruthImage> frames = gp::test::load_vtest_truth();
  if (!frames.empty()) {
    std::vector<gp::test::MaskScore> scores;
    for (const TruthImage& image : frames) {
      std::vector<std::uint8_t> mask = cpu_person_mask(engine, image, gp::segbody::ResizeMode::letterbox);
      scores.push_back(gp::test::score_mask(gp::packed_view(mask.data(), image.width, image.height, 1, gp::PixelType::u8),
                                            image.truth, 4));
    }
    gp::test::check_vtest_scores(frames, scores);
  }
  for (const TruthImage& photo : gp::test::load_messi_truth()) {
    std::vector<std::uint8_t> mask = cpu_person_mask(engine, photo, gp::segbody::ResizeMode::letterbox);
    gp::test::check_messi_score(photo, gp::packed_view(mask.data(), photo.width, photo.height, 1, gp::PixelType::u8));
  }
}

// BlazePose (issue 25) on the same six annotated frames: a pedestrian is found when a person's
// landmark box (grown by 10 px) holds the centre of their annotated box; the masks are scored like
// the selfie model's.
TEST_CASE("BlazePose finds vtest.avi's annotated pedestrians (CPU, pose_full with two tile levels)",
          "[segment_body][people][pose]") {
  if (!gp::test::find_model("pose_detection.tflite") || !gp::test::find_model("pose_landmark_full.tflite")) return;
  const std::vector<TruthImage> frames = gp::test::load_vtest_truth();
  if (frames.empty()) return;
  gp::config::json c = gp::config::json::object();
  c["inputs"] = gp::config::json::array({"x.avi"});
  gp::config::apply_override(c, "model.variant=pose_full");
  gp::config::apply_override(c, "pose.detector_tiles=2");  // level 1 alone: 20 of 33
  gp::Runtime rt(gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")});
  gp::segbody::MaskProcessor processor(rt, gp::segbody::read_settings(gp::segbody::schema().validate(c, "test")), 1);
  int people = 0, found = 0, covered = 0, extra = 0;
  for (const TruthImage& image : frames) {
    std::vector<gp::segbody::FrameResult> out;
    processor.run({image.frame()}, nullptr, gp::segbody::FrameWants{}, out);
    std::vector<std::uint8_t> binary(out[0].mask.size());
    for (std::size_t i = 0; i < binary.size(); ++i) binary[i] = out[0].mask[i] >= 128 ? 255 : 0;
    const gp::test::MaskScore s =
        gp::test::score_mask(gp::packed_view(binary.data(), image.width, image.height, 1, gp::PixelType::u8), image.truth, 4);
    std::vector<bool> matched(out[0].people.size(), false);
    for (std::size_t k = 0; k < image.truth.people.size(); ++k) {
      const gp::test::PixelBox& t = image.truth.people[k];
      const float cx = 0.5f * float(t.x0 + t.x1), cy = 0.5f * float(t.y0 + t.y1);
      ++people;
      covered += s.coverage[k] >= 0.25;
      for (std::size_t j = 0; j < out[0].people.size(); ++j) {
        const auto& b = out[0].people[j].box;
        if (cx >= b[0] - 10 && cx <= b[2] + 10 && cy >= b[1] - 10 && cy <= b[3] + 10) {
          ++found;
          matched[j] = true;
          break;
        }
      }
    }
    extra += int(std::count(matched.begin(), matched.end(), false));
    INFO(image.name);
    CHECK(s.worst_background <= 0.05);
  }
  WARN("BlazePose on vtest.avi, " << frames.size() << " annotated frames: " << found << " of " << people
       << " pedestrians found (" << covered << " with >= 25% of their box as mask); " << extra
       << " people found outside the annotation");
  CHECK(people == 33);
  CHECK(found >= 27);    // issue 25's target: 80% of the 33; measured 30 (the selfie model: 10)
  CHECK(covered >= 27);  // measured 30
  CHECK(extra <= 10);    // measured 7 (the rag on the lawn, a person split in two, people the annotation leaves out)
}
