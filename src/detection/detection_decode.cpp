#include "detection/detection_decode.hpp"

#include <stdexcept>
#include <string>

#include "cuda/detection/detection_math.hpp"  // the formulas the GPU kernel shares

namespace gp::detect {

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

// pose_detection_cpu.pbtxt's TensorsToDetectionsCalculator: 2254 boxes of 12 values (box and 4
// keypoints), scale 224, clipped sigmoid scores, threshold 0.5.
DecodeOptions pose_decode_options() {
  DecodeOptions o;
  o.num_boxes = 2254;
  o.num_coords = 12;
  o.num_keypoints = 4;
  o.x_scale = o.y_scale = o.w_scale = o.h_scale = 224.0f;
  o.min_score_thresh = 0.5f;
  return o;
}

std::vector<Detection> decode_detections(const float* raw_boxes, const float* raw_scores,
                                                  const std::vector<Anchor>& anchors,
                                                  const DecodeOptions& o) {
  if (static_cast<int>(anchors.size()) != o.num_boxes)
    throw std::invalid_argument("detection decoding: " + std::to_string(anchors.size()) +
                                " anchors for " + std::to_string(o.num_boxes) + " boxes");
  if (!detmath::coords_fit(o))
    throw std::invalid_argument("detection decoding: num_coords " + std::to_string(o.num_coords) + " too small for a box and " +
                                std::to_string(o.num_keypoints) + " keypoints (or more than " +
                                std::to_string(kMaxKeypoints) + " keypoints)");
  std::vector<Detection> out;
  for (const detmath::Record& r : detmath::decode_records(raw_boxes, raw_scores, anchors.data(), o))
    out.push_back(detmath::to_detection(r));
  return out;
}

float box_iou(const Detection& a, const Detection& b) {
  return detmath::box_iou(detmath::to_record(a).v, detmath::to_record(b).v);
}

std::vector<Detection> weighted_non_max_suppression(const std::vector<Detection>& detections,
                                                        const NmsOptions& options) {
  std::vector<detmath::Record> records;
  records.reserve(detections.size());
  for (const Detection& d : detections) records.push_back(detmath::to_record(d));
  std::vector<Detection> out;
  for (const detmath::Record& r :
       detmath::weighted_nms(records, options.min_suppression_threshold, options.max_num_detections))
    out.push_back(detmath::to_detection(r));
  return out;
}

}  // namespace gp::detect
