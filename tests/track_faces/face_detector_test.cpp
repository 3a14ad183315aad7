// BlazeFace through the CPU engine on real content: Megamind.avi from Debian's opencv-doc (720x528,
// 270 frames: the main character's face in nearly every frame, a man's small face in the background
// of the first 100), every 10th frame, with both detectors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "infer/model_files.hpp"
#include "io/video_reader.hpp"
#include "frames/video_frame_source.hpp"
#include "track_faces/face_detector.hpp"

namespace {

const char* const megamind = "/usr/share/doc/opencv-doc/examples/data/Megamind.avi";

}  // namespace

TEST_CASE("CpuFaceDetector finds Megamind's face in the sample clip", "[track_faces][detector]") {
  if (!std::filesystem::exists(megamind)) {
    WARN("skipped: " << megamind << " missing (Debian package opencv-doc)");
    return;
  }
  for (gp::track::DetectorModel model : {gp::track::DetectorModel::short_range, gp::track::DetectorModel::full_range}) {
    const auto path = gp::test::find_model(gp::track::detector_model_file(model));
    if (!path) return;
    gp::track::DetectorOptions options;
    options.model = model;
    gp::track::CpuFaceDetector detector(path->string(), options);
    gp::io::VideoReader reader(megamind);
    gp::io::VideoFrame frame;
    int frames = 0, with_face = 0, unexplained = 0;
    while (reader.read(frame)) {
      if (frame.index() % 10 != 0) continue;
      ++frames;
      const std::vector<gp::track::FrameFace> faces = detector.detect(gp::frames::video_frame_source(frame));
      INFO("frame " << frame.index());
      if (faces.empty()) continue;
      ++with_face;
      // The main character's face, the largest (full range scores the man behind her higher in
      // frame 80): inside the frame (a little margin) and face-sized, right eye (keypoint 0) left of
      // the left eye in the image, both inside the box.
      // The main face: the larger of two only when the other is not confident.
      const auto width = [](const gp::track::FrameFace& face) { return face.box.x1 - face.box.x0; };
      const std::size_t main =
          faces.size() == 2 && faces[1].score > 0.6f && width(faces[1]) > width(faces[0]) ? 1 : 0;
      const gp::track::FrameFace& f = faces[main];
      CHECK(f.score > 0.65f);
      CHECK(f.box.x0 > -40);
      CHECK(f.box.x1 < frame.width() + 40);
      CHECK(f.box.x1 - f.box.x0 > 100);
      CHECK(f.box.x1 - f.box.x0 < 320);
      CHECK(f.keypoints[0].x < f.keypoints[1].x);
      CHECK(f.keypoints[0].x > f.box.x0);
      CHECK(f.keypoints[1].x < f.box.x1);
      // A second face only where there is one: the man at the table behind her in frames 0-99
      // (annotated by eye: his face's centre within x 430-530, y 190-260 of the 720x528 frame).
      CHECK(faces.size() <= 2);
      if (faces.size() == 2) {
        const gp::track::FrameFace& g = faces[1 - main];
        const float cx = (g.box.x0 + g.box.x1) / 2, cy = (g.box.y0 + g.box.y1) / 2;
        if (g.score < 0.6f && cx > f.box.x0 && cx < f.box.x1 && cy > f.box.y0 && cy < f.box.y1) continue;  // her face again
        const bool the_man = frame.index() < 100 && cx > 430 && cx < 530 && cy > 190 && cy < 260;
        if (!the_man) {
          // Frame 190: her hand and glass at about (160, 400), score 0.51 with MediaPipe's bilinear input
          // (issue 25 measured Google's MediaPipe build finding a 0.50 detection there).
          WARN("frame " << frame.index() << ": a second detection at " << cx << "," << cy << " score " << g.score);
          CHECK(g.score < f.score);
          ++unexplained;
        }
      }
    }
    INFO((model == gp::track::DetectorModel::short_range ? "short" : "full") << " range: " << with_face << " of "
                                                                             << frames << " sampled frames with a face");
    CHECK(frames == 27);
    CHECK(with_face >= 25);  // frame 0 has none (the clip fades in)
    CHECK(unexplained <= 1);
  }
}

TEST_CASE("CpuFaceDetector finds nothing in a grey frame and rejects a model of the wrong size", "[track_faces][detector]") {
  gp::track::DetectorOptions options;
  const auto path = gp::test::find_model(gp::track::detector_model_file(options.model));
  if (!path) return;
  const std::string short_path = path->string();
  gp::track::CpuFaceDetector detector(short_path, options);
  const int w = 320, h = 240;
  std::vector<std::uint8_t> grey(std::size_t(w) * h * 3, 128);
  CHECK(detector.detect(gp::frames::packed_frame(gp::frames::FrameFormat::rgb, grey.data(), std::size_t(w) * 3, w, h))
            .empty());

  options.model = gp::track::DetectorModel::full_range;  // the short-range file is 128x128
  CHECK_THROWS_AS(gp::track::CpuFaceDetector(short_path, options), gp::UsageError);
}
