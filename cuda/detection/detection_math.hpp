#pragma once
// SSD detection decoding (BlazeFace, BlazePose's detector) and weighted NMS arithmetic, one formula for the GPU kernel
// (detection_gpu.cu) and the CPU path (src/detection/detection_decode.cpp). A detection is a
// record of 17 floats: xmin, ymin, width, height (normalized), score, then kMaxKeypoints keypoints
// (x, y; the ones a model does not have are 0) -- Detection's field order.
//
// Both sides round every float product on its own (--fmad=false; g++ on x86-64 without -mfma
// contracts nothing), so boxes decode bit for bit alike. exp() is evaluated in double on both
// sides (CUDA's and glibc's double exp are within 1 ulp) and rounded to float: the scores agree
// exactly unless a 1-ulp double difference straddles a float rounding boundary (~2^-28 odds).
#include <cmath>

#include "cuda/common/host_device.hpp"
#include "cuda/detection/detection_types.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace gp::detect::detmath {

constexpr int kRecordFloats = 5 + 2 * kMaxKeypoints;  // 17
// Weighted-mean accumulators of one NMS cluster: total weight, xmin, ymin, xmax, ymax, keypoints.
constexpr int kMergeSums = kRecordFloats;

struct Record {
  float v[kRecordFloats];
};

// The options' coordinates hold a box and num_keypoints (at most kMaxKeypoints) keypoints.
GP_HD bool coords_fit(const DecodeOptions& o) {
  return o.num_keypoints >= 0 && o.num_keypoints <= kMaxKeypoints && o.box_coord_offset >= 0 &&
         o.keypoint_coord_offset >= 0 && o.box_coord_offset + 4 <= o.num_coords &&
         o.keypoint_coord_offset + 2 * o.num_keypoints <= o.num_coords;
}

// The model's logit -> score (clipped sigmoid when the options ask for it).
GP_HD float decoded_score(float raw, const DecodeOptions& o) {
  if (!o.sigmoid_score) return raw;
  const float c = o.score_clipping_thresh;
  const float x = raw < -c ? -c : (c < raw ? c : raw);  // std::clamp, NaN kept
  return float(1.0 / (1.0 + exp(-double(x))));
}

// As MediaPipe: a score under the threshold is dropped (NaN is not under it).
GP_HD bool passes_threshold(float score, const DecodeOptions& o) { return !(score < o.min_score_thresh); }

// Decodes anchor (ax, ay, aw, ah)'s raw values (num_coords floats) into `out`; false when the box
// has a negative size (MediaPipe drops those).
GP_HD bool decode_record(const float* raw, float ax, float ay, float aw, float ah, float score,
                         const DecodeOptions& o, float* out) {
  const float* box = raw + o.box_coord_offset;
  float y_center = box[0], x_center = box[1], h = box[2], w = box[3];
  if (o.reverse_output_order) {
    x_center = box[0];
    y_center = box[1];
    w = box[2];
    h = box[3];
  }
  x_center = x_center / o.x_scale * aw + ax;
  y_center = y_center / o.y_scale * ah + ay;
  if (o.apply_exponential_on_box_size) {
    h = float(exp(double(h / o.h_scale))) * ah;
    w = float(exp(double(w / o.w_scale))) * aw;
  } else {
    h = h / o.h_scale * ah;
    w = w / o.w_scale * aw;
  }
  if (w < 0 || h < 0) return false;
  out[0] = x_center - w / 2.0f;
  out[1] = y_center - h / 2.0f;
  out[2] = w;
  out[3] = h;
  out[4] = score;
  for (int k = o.num_keypoints; k < kMaxKeypoints; ++k) out[5 + 2 * k] = out[5 + 2 * k + 1] = 0.0f;
  for (int k = 0; k < o.num_keypoints; ++k) {
    const float* kp = raw + o.keypoint_coord_offset + 2 * k;
    float kx = kp[1], ky = kp[0];
    if (o.reverse_output_order) {
      kx = kp[0];
      ky = kp[1];
    }
    out[5 + 2 * k] = kx / o.x_scale * aw + ax;
    out[5 + 2 * k + 1] = ky / o.y_scale * ah + ay;
  }
  return true;
}

// IoU of two boxes (xmin, ymin, width, height); 0 when they do not overlap.
GP_HD float box_iou(const float* a, const float* b) {
  const float ix0 = a[0] > b[0] ? a[0] : b[0], iy0 = a[1] > b[1] ? a[1] : b[1];
  const float ax1 = a[0] + a[2], bx1 = b[0] + b[2], ay1 = a[1] + a[3], by1 = b[1] + b[3];
  const float ix1 = ax1 < bx1 ? ax1 : bx1, iy1 = ay1 < by1 ? ay1 : by1;
  if (ix1 <= ix0 || iy1 <= iy0) return 0.0f;
  const float inter = (ix1 - ix0) * (iy1 - iy0);
  const float uni = a[2] * a[3] + b[2] * b[3] - inter;
  return uni > 0.0f ? inter / uni : 0.0f;
}

// Term t of a cluster member's contribution to accumulator t (member order = decreasing score).
GP_HD double merge_term(const float* d, int t) {
  const double s = d[4];
  switch (t) {
    case 0: return s;
    case 1: return d[0] * s;
    case 2: return d[1] * s;
    case 3: return (d[0] + d[2]) * s;  // xmax, summed in float first
    case 4: return (d[1] + d[3]) * s;
    default: return d[t] * s;  // keypoint values 5..16
  }
}

// Field f of the merged detection: the weighted means, the best one's score (its box when the
// cluster has no weight). Field f reads accumulator merge_source(f), minus merge_source(f) - 2
// for the width and height (xmax - xmin, ymax - ymin).
GP_HD int merge_source(int f) { return f < 4 ? f + 1 : f; }

GP_HD float merged_field(double total, double source, double minus, const float* best, int f) {
  if (!(total > 0) || f == 4) return best[f];
  if (f == 2 || f == 3) return float((source - minus) / total);
  return float(source / total);
}

GP_HD float merged_field(const double* sums, const float* best, int f) {
  const int s = merge_source(f);
  return merged_field(sums[0], sums[s], sums[s >= 2 ? s - 2 : 0], best, f);
}

// Host only: the CPU path, used by decode_detections / weighted_non_max_suppression and the
// GPU test's reference.

inline Record to_record(const Detection& d) {
  Record r{{d.xmin, d.ymin, d.width, d.height, d.score}};
  for (int k = 0; k < kMaxKeypoints; ++k) {
    r.v[5 + 2 * k] = d.keypoints[k].x;
    r.v[6 + 2 * k] = d.keypoints[k].y;
  }
  return r;
}

inline Detection to_detection(const Record& r) {
  Detection d;
  d.xmin = r.v[0];
  d.ymin = r.v[1];
  d.width = r.v[2];
  d.height = r.v[3];
  d.score = r.v[4];
  for (int k = 0; k < kMaxKeypoints; ++k) d.keypoints[k] = {r.v[5 + 2 * k], r.v[6 + 2 * k]};
  return d;
}

// One frame: the detections passing the threshold, in anchor order (anchors: o.num_boxes).
inline std::vector<Record> decode_records(const float* raw_boxes, const float* raw_scores, const Anchor* anchors,
                                          const DecodeOptions& o) {
  std::vector<Record> out;
  Record r;
  for (int i = 0; i < o.num_boxes; ++i) {
    const float score = decoded_score(raw_scores[i], o);
    if (!passes_threshold(score, o)) continue;
    const Anchor& a = anchors[i];
    if (decode_record(raw_boxes + static_cast<std::size_t>(i) * o.num_coords, a.x_center, a.y_center, a.w, a.h,
                      score, o, r.v))
      out.push_back(r);
  }
  return out;
}

// MediaPipe's WEIGHTED suppression (see weighted_non_max_suppression); stops after `limit`
// outputs when limit >= 0.
inline std::vector<Record> weighted_nms(const std::vector<Record>& detections, float min_suppression_threshold,
                                        int limit) {
  // Decreasing score; equal scores keep input (anchor) order so the result does not depend on the sort.
  std::vector<int> remaining(detections.size());
  std::iota(remaining.begin(), remaining.end(), 0);
  std::stable_sort(remaining.begin(), remaining.end(),
                   [&](int a, int b) { return detections[a].v[4] > detections[b].v[4]; });
  std::vector<Record> out;
  std::vector<int> rest;
  while (!remaining.empty()) {
    if (limit >= 0 && static_cast<int>(out.size()) >= limit) break;
    const float* best = detections[remaining.front()].v;
    rest.clear();
    double sums[kMergeSums] = {};
    for (int index : remaining) {  // includes the best one itself
      const float* d = detections[index].v;
      if (box_iou(d, best) > min_suppression_threshold) {
        for (int t = 0; t < kMergeSums; ++t) sums[t] += merge_term(d, t);
      } else {
        rest.push_back(index);
      }
    }
    Record merged;
    for (int f = 0; f < kRecordFloats; ++f) merged.v[f] = merged_field(sums, best, f);
    out.push_back(merged);
    // A zero-size best box overlaps nothing, not even itself: it is emitted alone (as MediaPipe,
    // which then stops; dropping only it keeps the others instead).
    if (rest.size() == remaining.size()) rest.erase(rest.begin());
    remaining.swap(rest);
  }
  return out;
}

}  // namespace gp::detect::detmath
