#include "segment_body/pose_model.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace gp::segbody {
namespace {

constexpr float kPi = 3.14159265358979f;
constexpr float kRoiScale = 1.25f;           // RectTransformationCalculator in both ROI graphs
constexpr int kHeatmapKernel = 7;            // RefineLandmarksFromHeatmapCalculator
constexpr float kMinConfidenceToRefine = 0.5f;

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

namespace {

// Even starts of `count` spans of `side` covering [0, extent), evenly spread.
std::vector<int> tile_starts(int extent, int side) {
  if (side >= extent) return {0};
  const int count = int(std::ceil(double(extent - side) / (0.75 * side))) + 1;
  std::vector<int> starts;
  for (int i = 0; i < count; ++i) {
    const int at = int(std::lround(double(extent - side) * i / (count - 1))) & ~1;
    if (starts.empty() || at != starts.back()) starts.push_back(at);
  }
  return starts;
}

}  // namespace

std::vector<frames::Rect> detector_views(int w, int h, int tile_levels) {
  std::vector<frames::Rect> views{{0, 0, w, h}};
  for (int level = 1; level <= tile_levels; ++level) {
    // Level 1: half the short side, at least the detector's input; level 2: a quarter, at least
    // 128 px (the detector then sees the tile enlarged up to 1.75x).
    const int floor = level == 1 ? kPoseDetectorInput : 128;
    const int side = std::max(floor, std::min(w, h) >> level) & ~1;
    if (side >= std::min(w, h)) continue;
    const std::vector<int> xs = tile_starts(w, side), ys = tile_starts(h, side);
    // The last tile of a row or column reaches the frame's edge (its start was made even).
    for (int y : ys)
      for (int x : xs) views.push_back({x, y, x == xs.back() ? w - x : side, y == ys.back() ? h - y : side});
  }
  return views;
}

detect::Detection detection_in_frame(const detect::Detection& d, const frames::Rect& view, int frame_width,
                                     int frame_height) {
  const float sx = float(view.width) / float(frame_width), sy = float(view.height) / float(frame_height);
  const float ox = float(view.x) / float(frame_width), oy = float(view.y) / float(frame_height);
  detect::Detection f = d;
  f.xmin = ox + d.xmin * sx;
  f.ymin = oy + d.ymin * sy;
  f.width = d.width * sx;
  f.height = d.height * sy;
  for (detect::Keypoint& k : f.keypoints) k = {ox + k.x * sx, oy + k.y * sy};
  return f;
}

detect::Roi pose_roi_from_detection(const detect::Detection& d, int frame_width, int frame_height) {
  const float w = float(frame_width), h = float(frame_height);
  const detect::Keypoint& hips = d.keypoints[0];
  const detect::Keypoint& reach = d.keypoints[1];
  return detect::alignment_roi(hips.x * w, hips.y * h, reach.x * w, reach.y * h, kPi / 2, kRoiScale);
}

detect::Roi pose_roi_from_landmarks(const PersonPose& pose) {
  const PoseLandmark& a = pose.auxiliary[0];
  const PoseLandmark& b = pose.auxiliary[1];
  return detect::alignment_roi(a.x, a.y, b.x, b.y, kPi / 2, kRoiScale);
}

PersonPose decode_pose(const float* landmarks, const float* heatmap, const float* world, float flag,
                       const detect::Roi& roi) {
  // TensorsToLandmarks: normalised to the ROI's 256 x 256 input.
  struct Normalised {
    float x, y, z, visibility, presence;
  };
  std::array<Normalised, kPoseModelLandmarks> n{};
  for (int i = 0; i < kPoseModelLandmarks; ++i) {
    const float* v = landmarks + 5 * i;
    n[i] = {v[0] / kPoseInput, v[1] / kPoseInput, v[2] / kPoseInput, sigmoid(v[3]), sigmoid(v[4])};
  }
  // RefineLandmarksFromHeatmap, as MediaPipe writes it (its integer truncation and bounds test).
  const int offset = (kHeatmapKernel - 1) / 2;
  for (int i = 0; i < kPoseModelLandmarks; ++i) {
    const int centre_col = int(n[i].x * kPoseHeatmap), centre_row = int(n[i].y * kPoseHeatmap);
    if (centre_col < 0 || centre_col >= kPoseHeatmap || centre_row < 0 || centre_col >= kPoseHeatmap) continue;
    const int col0 = std::max(0, centre_col - offset), col1 = std::min(kPoseHeatmap, centre_col + offset + 1);
    const int row0 = std::max(0, centre_row - offset), row1 = std::min(kPoseHeatmap, centre_row + offset + 1);
    float sum = 0, weighted_col = 0, weighted_row = 0, max_confidence = 0;
    for (int row = row0; row < row1; ++row)
      for (int col = col0; col < col1; ++col) {
        const float c = sigmoid(heatmap[(row * kPoseHeatmap + col) * kPoseModelLandmarks + i]);
        sum += c;
        max_confidence = std::max(max_confidence, c);
        weighted_col += float(col) * c;
        weighted_row += float(row) * c;
      }
    if (max_confidence >= kMinConfidenceToRefine && sum > 0) {
      n[i].x = weighted_col / kPoseHeatmap / sum;
      n[i].y = weighted_row / kPoseHeatmap / sum;
    }
  }
  // LandmarkProjection: ROI-normalised -> frame pixels (the rotated square), z scaled like x.
  PersonPose p;
  p.presence = flag;
  p.roi = roi;
  auto project = [&](const Normalised& l) {
    const detect::RoiPoint q = detect::tensor_to_frame(roi, 1, l.x, l.y);
    return PoseLandmark{q.x, q.y, l.z * roi.size, l.visibility, l.presence};
  };
  for (int i = 0; i < kPoseLandmarks; ++i) p.landmarks[i] = project(n[i]);
  for (int i = 0; i < 2; ++i) p.auxiliary[i] = project(n[kPoseLandmarks + i]);
  // WorldLandmarkProjection: rotated by the ROI's rotation about the hips, z kept.
  const float c = std::cos(roi.rotation), s = std::sin(roi.rotation);
  for (int i = 0; i < kPoseLandmarks; ++i) {
    const float* v = world + 3 * i;
    p.world[i] = {c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]};
  }
  update_box(p);
  return p;
}

void update_box(PersonPose& p) {
  p.box[0] = p.box[2] = p.landmarks[0].x;
  p.box[1] = p.box[3] = p.landmarks[0].y;
  for (const PoseLandmark& l : p.landmarks) {
    p.box[0] = std::min(p.box[0], l.x);
    p.box[1] = std::min(p.box[1], l.y);
    p.box[2] = std::max(p.box[2], l.x);
    p.box[3] = std::max(p.box[3], l.y);
  }
}

PoseOutputs pose_outputs(const std::vector<long long>& elements, const std::string& path) {
  PoseOutputs o;
  for (int i = 0; i < int(elements.size()); ++i) {
    const long long e = elements[std::size_t(i)];
    int* slot = e == kPoseModelLandmarks * 5                                      ? &o.landmarks
                : e == 1                                                          ? &o.flag
                : e == kPoseInput * kPoseInput                                    ? &o.segmentation
                : e == kPoseHeatmap * kPoseHeatmap * kPoseModelLandmarks          ? &o.heatmap
                : e == kPoseModelLandmarks * 3                                    ? &o.world
                                                                                  : nullptr;
    if (slot && *slot < 0) *slot = i;
  }
  if (o.landmarks < 0 || o.flag < 0 || o.segmentation < 0 || o.heatmap < 0 || o.world < 0)
    throw UsageError("/model/path: " + path +
                     " is not a BlazePose landmark model (expected outputs of 195 landmark values, a pose flag, a "
                     "256x256 mask, a 64x64x39 heatmap and 117 world values)");
  return o;
}

}  // namespace gp::segbody
