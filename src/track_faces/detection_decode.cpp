#include "track_faces/detection_decode.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gp::track {

DecodeOptions short_range_decode_options() {
  DecodeOptions o;
  o.num_boxes = 896;
  o.x_scale = o.y_scale = o.w_scale = o.h_scale = 128.0f;
  o.min_score_thresh = 0.5f;
  return o;
}

DecodeOptions full_range_decode_options() {
  DecodeOptions o;
  o.num_boxes = 2304;
  o.x_scale = o.y_scale = o.w_scale = o.h_scale = 192.0f;
  o.min_score_thresh = 0.6f;
  return o;
}

std::vector<FaceDetection> decode_face_detections(const float* raw_boxes, const float* raw_scores,
                                                  const std::vector<Anchor>& anchors,
                                                  const DecodeOptions& o) {
  if (static_cast<int>(anchors.size()) != o.num_boxes)
    throw std::invalid_argument("face decoding: " + std::to_string(anchors.size()) +
                                " anchors for " + std::to_string(o.num_boxes) + " boxes");
  if (o.keypoint_coord_offset + 2 * kFaceKeypoints > o.num_coords || o.box_coord_offset + 4 > o.num_coords)
    throw std::invalid_argument("face decoding: num_coords too small for a box and 6 keypoints");
  std::vector<FaceDetection> out;
  for (int i = 0; i < o.num_boxes; ++i) {
    float score = raw_scores[i];
    if (o.sigmoid_score) {
      score = std::clamp(score, -o.score_clipping_thresh, o.score_clipping_thresh);
      score = 1.0f / (1.0f + std::exp(-score));
    }
    if (score < o.min_score_thresh) continue;
    const Anchor& anchor = anchors[i];
    const float* raw = raw_boxes + static_cast<std::size_t>(i) * o.num_coords;
    const float* box = raw + o.box_coord_offset;
    float y_center = box[0], x_center = box[1], h = box[2], w = box[3];
    if (o.reverse_output_order) {
      x_center = box[0];
      y_center = box[1];
      w = box[2];
      h = box[3];
    }
    x_center = x_center / o.x_scale * anchor.w + anchor.x_center;
    y_center = y_center / o.y_scale * anchor.h + anchor.y_center;
    if (o.apply_exponential_on_box_size) {
      h = std::exp(h / o.h_scale) * anchor.h;
      w = std::exp(w / o.w_scale) * anchor.w;
    } else {
      h = h / o.h_scale * anchor.h;
      w = w / o.w_scale * anchor.w;
    }
    // MediaPipe drops boxes that decode to a negative size.
    if (w < 0 || h < 0) continue;
    FaceDetection d;
    d.xmin = x_center - w / 2.0f;
    d.ymin = y_center - h / 2.0f;
    d.width = w;
    d.height = h;
    d.score = score;
    for (int k = 0; k < kFaceKeypoints; ++k) {
      const float* kp = raw + o.keypoint_coord_offset + 2 * k;
      float kx = kp[1], ky = kp[0];
      if (o.reverse_output_order) {
        kx = kp[0];
        ky = kp[1];
      }
      d.keypoints[k].x = kx / o.x_scale * anchor.w + anchor.x_center;
      d.keypoints[k].y = ky / o.y_scale * anchor.h + anchor.y_center;
    }
    out.push_back(d);
  }
  return out;
}

float box_iou(const FaceDetection& a, const FaceDetection& b) {
  const float ix0 = std::max(a.xmin, b.xmin), iy0 = std::max(a.ymin, b.ymin);
  const float ix1 = std::min(a.xmin + a.width, b.xmin + b.width);
  const float iy1 = std::min(a.ymin + a.height, b.ymin + b.height);
  if (ix1 <= ix0 || iy1 <= iy0) return 0.0f;
  const float inter = (ix1 - ix0) * (iy1 - iy0);
  const float uni = a.width * a.height + b.width * b.height - inter;
  return uni > 0.0f ? inter / uni : 0.0f;
}

std::vector<FaceDetection> weighted_non_max_suppression(const std::vector<FaceDetection>& detections,
                                                        const NmsOptions& options) {
  // Decreasing score; equal scores keep anchor order so the result does not depend on the sort.
  std::vector<int> remaining(detections.size());
  std::iota(remaining.begin(), remaining.end(), 0);
  std::stable_sort(remaining.begin(), remaining.end(),
                   [&](int a, int b) { return detections[a].score > detections[b].score; });
  std::vector<FaceDetection> out;
  std::vector<int> rest;
  while (!remaining.empty()) {
    if (options.max_num_detections >= 0 && static_cast<int>(out.size()) >= options.max_num_detections) break;
    const FaceDetection& best = detections[remaining.front()];
    rest.clear();
    double total = 0, xmin = 0, ymin = 0, xmax = 0, ymax = 0;
    std::array<double, 2 * kFaceKeypoints> kps{};
    for (int index : remaining) {  // includes the best one itself
      const FaceDetection& d = detections[index];
      if (box_iou(d, best) > options.min_suppression_threshold) {
        const double s = d.score;
        total += s;
        xmin += d.xmin * s;
        ymin += d.ymin * s;
        xmax += (d.xmin + d.width) * s;
        ymax += (d.ymin + d.height) * s;
        for (int k = 0; k < kFaceKeypoints; ++k) {
          kps[2 * k] += d.keypoints[k].x * s;
          kps[2 * k + 1] += d.keypoints[k].y * s;
        }
      } else {
        rest.push_back(index);
      }
    }
    FaceDetection merged = best;
    if (total > 0) {
      merged.xmin = static_cast<float>(xmin / total);
      merged.ymin = static_cast<float>(ymin / total);
      merged.width = static_cast<float>((xmax - xmin) / total);
      merged.height = static_cast<float>((ymax - ymin) / total);
      for (int k = 0; k < kFaceKeypoints; ++k) {
        merged.keypoints[k].x = static_cast<float>(kps[2 * k] / total);
        merged.keypoints[k].y = static_cast<float>(kps[2 * k + 1] / total);
      }
    }
    out.push_back(merged);
    // A zero-size best box overlaps nothing, not even itself: it is emitted alone (as MediaPipe,
    // which then stops; dropping only it keeps the others instead).
    if (rest.size() == remaining.size()) rest.erase(rest.begin());
    remaining.swap(rest);
  }
  return out;
}

}  // namespace gp::track
