// CameraTracker on a synthetic face moving right at 4 px per frame: detector boxes on detection
// frames, face-mesh points (a grid inside the face, eye corners where the mesh has them) on the
// others. Checks the detection cadence, the ROIs handed to the landmark model, the box convention
// between detections and the stable ID.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "track_faces/camera_tracker.hpp"

using namespace gp::track;

namespace {

// The face at frame t: detector box 100 x 120 at x = 200 + 4t, y = 150.
FrameFace detection_at(int t) {
  FrameFace f;
  const float x = 200.0f + 4.0f * float(t);
  f.box = {x, 150, x + 100, 270};
  f.score = 0.95f;
  f.keypoints = {Keypoint{x + 30, 190}, Keypoint{x + 70, 190}, Keypoint{x + 50, 215}, Keypoint{x + 50, 240},
                 Keypoint{x + 5, 200}, Keypoint{x + 95, 200}};
  return f;
}

// Mesh points of the face at frame t: a grid over x + 10 .. x + 90, 160 .. 280 (not the detector's
// box: the mesh frames a face differently), eye corners 33 / 263 level at y 190.
FaceLandmarks landmarks_at(int t, float score = 0.99f) {
  FaceLandmarks l;
  const float x = 200.0f + 4.0f * float(t);
  l.score = score;
  l.xyz.resize(std::size_t(kFaceLandmarks) * 3);
  for (int i = 0; i < kFaceLandmarks; ++i) {
    l.xyz[std::size_t(3 * i)] = x + 10.0f + 80.0f * float(i % 18) / 17.0f;
    l.xyz[std::size_t(3 * i + 1)] = 160.0f + 120.0f * float(i / 18) / 25.0f;
    l.xyz[std::size_t(3 * i + 2)] = 0.0f;
  }
  l.xyz[3 * 33] = x + 20;
  l.xyz[3 * 33 + 1] = 190;
  l.xyz[3 * 263] = x + 80;
  l.xyz[3 * 263 + 1] = 190;
  return l;
}

}  // namespace

TEST_CASE("CameraTracker: detections every K frames, landmarks in between, one stable ID", "[track_faces]") {
  CameraTrackerOptions o;
  o.detect_every = 5;
  CameraTracker cam(o);
  for (int t = 0; t < 23; ++t) {
    INFO("frame " << t);
    const bool detect = cam.wants_detection();
    // Nothing followed before frame 0; then every 5th frame.
    CHECK(detect == (t % 5 == 0));
    const std::vector<FrameFace> dets = detect ? std::vector<FrameFace>{detection_at(t)} : std::vector<FrameFace>{};
    const std::vector<Roi> rois = cam.rois(dets);
    REQUIRE(rois.size() == 1);
    if (detect) {
      CHECK(rois[0].cx == Approx(250.0f + 4.0f * float(t)));  // around the detection
      CHECK(rois[0].size == Approx(180.0f));                  // long side 120 x 1.5
    } else {
      // Where the previous frame's points were: their box's centre, 4 px behind this frame's face.
      CHECK(rois[0].cx == Approx(250.0f + 4.0f * float(t - 1)).margin(1e-3));
    }
    CHECK(std::fabs(rois[0].rotation) < 1e-5f);  // eyes level
    const std::vector<TrackedFace> faces = cam.update(dets, {landmarks_at(t)}, detect);
    if (t == 0) {
      CHECK(faces.empty());  // tentative until its second match
      continue;
    }
    REQUIRE(faces.size() == 1);
    CHECK(faces[0].track_id == 1);
    CHECK(faces[0].detected == detect);
    CHECK(faces[0].landmarks.size() == std::size_t(kFaceLandmarks) * 3);
    // Between detections the box is the mesh's box mapped into the detector's convention.
    const FrameFace expected = detection_at(t);
    CHECK(faces[0].box.x0 == Approx(expected.box.x0).margin(0.01));
    CHECK(faces[0].box.y0 == Approx(expected.box.y0).margin(0.01));
    CHECK(faces[0].box.x1 == Approx(expected.box.x1).margin(0.01));
    CHECK(faces[0].box.y1 == Approx(expected.box.y1).margin(0.01));
  }
}

TEST_CASE("CameraTracker: a face the landmark model loses sends the next frame to the detector", "[track_faces]") {
  CameraTrackerOptions o;
  o.detect_every = 100;
  CameraTracker cam(o);
  cam.update({detection_at(0)}, {landmarks_at(0)}, true);
  REQUIRE_FALSE(cam.wants_detection());
  CHECK(cam.update({}, {landmarks_at(1)}, false).size() == 1);
  REQUIRE_FALSE(cam.wants_detection());
  // The face-present score drops: the face is not reported and the detector looks again.
  CHECK(cam.update({}, {landmarks_at(2, 0.2f)}, false).empty());
  REQUIRE(cam.wants_detection());
  CHECK(cam.rois({detection_at(3)}).size() == 1);
  const std::vector<TrackedFace> back = cam.update({detection_at(3)}, {landmarks_at(3)}, true);
  REQUIRE(back.size() == 1);
  CHECK(back[0].track_id == 1);  // re-found by the tracker: the same ID
  CHECK_FALSE(cam.wants_detection());
}

TEST_CASE("CameraTracker without landmarks detects on every frame", "[track_faces]") {
  CameraTrackerOptions o;
  o.landmarks = false;
  CameraTracker cam(o);
  for (int t = 0; t < 4; ++t) {
    REQUIRE(cam.wants_detection());
    CHECK(cam.rois({detection_at(t)}).empty());
    const auto faces = cam.update({detection_at(t)}, {}, true);
    CHECK(faces.size() == (t == 0 ? 0u : 1u));
    if (!faces.empty()) {
      CHECK(faces[0].landmarks.empty());
      CHECK(faces[0].landmark_score < 0);
    }
  }
}

TEST_CASE("CameraTracker: a detection phase shifts the periodic detections", "[track_faces]") {
  CameraTrackerOptions o;
  o.detect_every = 5;
  o.detect_phase = 2;
  CameraTracker cam(o);
  for (int t = 0; t < 16; ++t) {
    INFO("frame " << t);
    const bool detect = cam.wants_detection();
    // Frame 0 detects (nothing followed yet); then frames where (t + 2) % 5 == 0: 3, 8, 13.
    CHECK(detect == (t == 0 || (t + 2) % 5 == 0));
    const std::vector<FrameFace> dets = detect ? std::vector<FrameFace>{detection_at(t)} : std::vector<FrameFace>{};
    REQUIRE(cam.rois(dets).size() == 1);
    cam.update(dets, {landmarks_at(t)}, detect);
  }
}
