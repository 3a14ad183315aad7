#include "track_faces/camera_tracker.hpp"

#include <algorithm>

namespace gp::track {
namespace {

PixelBox landmark_box(const std::vector<float>& xyz) {
  PixelBox b{xyz[0], xyz[1], xyz[0], xyz[1]};
  for (std::size_t i = 3; i + 2 < xyz.size(); i += 3) {
    b.x0 = std::min(b.x0, xyz[i]);
    b.x1 = std::max(b.x1, xyz[i]);
    b.y0 = std::min(b.y0, xyz[i + 1]);
    b.y1 = std::max(b.y1, xyz[i + 1]);
  }
  return b;
}

std::vector<float> landmark_xy(const std::vector<float>& xyz) {
  std::vector<float> xy(xyz.size() / 3 * 2);
  for (std::size_t i = 0; i < xyz.size() / 3; ++i) {
    xy[2 * i] = xyz[3 * i];
    xy[2 * i + 1] = xyz[3 * i + 1];
  }
  return xy;
}

// The detector's six keypoints from face-mesh points (MediaPipe's mesh indices): eye centres from
// their corners, nose tip, mouth centre from the inner lips, the ear tragions.
std::array<Keypoint, kMaxKeypoints> keypoints_from_landmarks(const std::vector<float>& xyz) {
  auto p = [&](int i) { return Keypoint{xyz[std::size_t(3 * i)], xyz[std::size_t(3 * i + 1)]}; };
  auto mid = [&](int a, int b) { return Keypoint{0.5f * (p(a).x + p(b).x), 0.5f * (p(a).y + p(b).y)}; };
  return {mid(33, 133), mid(362, 263), p(1), mid(13, 14), p(234), p(454)};
}

}  // namespace

CameraTracker::CameraTracker(const CameraTrackerOptions& options) : options_(options), tracker_(options.tracker) {}

bool CameraTracker::wants_detection() const {
  // As MediaPipe's face mesh graph: while no face is followed the detector runs on every frame.
  return !options_.landmarks || lost_face_ || followed_.empty() ||
         (frame_ + options_.detect_phase) % std::max(1, options_.detect_every) == 0;
}

std::vector<Roi> CameraTracker::rois(const std::vector<FrameFace>& detections) const {
  std::vector<Roi> out;
  if (!options_.landmarks) return out;
  if (wants_detection()) {
    for (const FrameFace& d : detections) out.push_back(roi_from_face(d, options_.roi_scale));
  } else {
    for (const Followed& f : followed_) out.push_back(f.roi);
  }
  return out;
}

std::vector<TrackedFace> CameraTracker::update(const std::vector<FrameFace>& detections,
                                               const std::vector<FaceLandmarks>& landmarks, bool detection_frame) {
  // What the tracker sees, with where each entry came from.
  struct Candidate {
    PixelBox box;
    float score = 0;
    std::array<Keypoint, kMaxKeypoints> keypoints{};
    const FaceLandmarks* mesh = nullptr;  // its landmarks, when good enough
    const Followed* followed = nullptr;   // follow frames: the face it continues
  };
  std::vector<Candidate> candidates;
  lost_face_ = false;
  const auto good = [&](const FaceLandmarks* l) { return l && l->score >= options_.min_landmark_score; };
  if (detection_frame) {
    for (std::size_t k = 0; k < detections.size(); ++k) {
      const FaceLandmarks* l = k < landmarks.size() ? &landmarks[k] : nullptr;
      candidates.push_back({detections[k].box, detections[k].score, detections[k].keypoints, good(l) ? l : nullptr, nullptr});
    }
  } else {
    for (std::size_t k = 0; k < landmarks.size() && k < followed_.size(); ++k) {
      if (!good(&landmarks[k])) {
        lost_face_ = true;  // look again with the detector in the next frame
        continue;
      }
      const Followed& f = followed_[k];
      PixelBox box = landmark_box(landmarks[k].xyz);
      if (f.has_offsets) {
        const float w = box.x1 - box.x0, h = box.y1 - box.y0;
        box = {box.x0 + f.box_offsets[0] * w, box.y0 + f.box_offsets[1] * h, box.x1 + f.box_offsets[2] * w,
               box.y1 + f.box_offsets[3] * h};
      }
      candidates.push_back({box, landmarks[k].score, keypoints_from_landmarks(landmarks[k].xyz), &landmarks[k], &f});
    }
  }

  std::vector<TrackerDetection> inputs;
  for (const Candidate& c : candidates) inputs.push_back({c.box, c.score});
  const TrackerFrame result = tracker_.update(inputs);

  // Faces followed into the next frame: every live track matched now whose landmarks are good.
  std::vector<Followed> next;
  for (const TrackView& t : tracker_.tracks()) {
    if (t.detection < 0 || t.state == TrackState::removed) continue;
    const Candidate& c = candidates[std::size_t(t.detection)];
    if (!c.mesh) continue;
    Followed f;
    const std::vector<float> xy = landmark_xy(c.mesh->xyz);
    f.roi = roi_from_landmarks(xy.data(), int(xy.size() / 2), options_.roi_scale);
    if (detection_frame) {
      const PixelBox lm = landmark_box(c.mesh->xyz);
      const float w = std::max(1.0f, lm.x1 - lm.x0), h = std::max(1.0f, lm.y1 - lm.y0);
      f.box_offsets[0] = (c.box.x0 - lm.x0) / w;
      f.box_offsets[1] = (c.box.y0 - lm.y0) / h;
      f.box_offsets[2] = (c.box.x1 - lm.x1) / w;
      f.box_offsets[3] = (c.box.y1 - lm.y1) / h;
      f.has_offsets = true;
    } else if (c.followed) {
      std::copy(c.followed->box_offsets, c.followed->box_offsets + 4, f.box_offsets);
      f.has_offsets = c.followed->has_offsets;
    }
    next.push_back(f);
  }
  // A followed face the tracker did not take back is lost too.
  if (!detection_frame && next.size() < followed_.size()) lost_face_ = true;
  followed_ = std::move(next);

  std::vector<TrackedFace> faces;
  for (const TrackView& t : result.confirmed) {
    const Candidate& c = candidates[std::size_t(t.detection)];
    TrackedFace f;
    f.track_id = t.id;
    f.box = c.box;
    f.score = c.score;
    f.keypoints = c.keypoints;
    if (c.mesh) {
      f.landmarks = c.mesh->xyz;
      f.landmark_score = c.mesh->score;
    }
    f.detected = detection_frame;
    faces.push_back(std::move(f));
  }
  ++frame_;
  return faces;
}

}  // namespace gp::track
