#include "track_faces/detection_decode.hpp"

#include <stdexcept>
#include <string>

#include "cuda/track_faces/detection_math.hpp"  // the formulas the GPU kernel shares

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
  for (const detmath::Record& r : detmath::decode_records(raw_boxes, raw_scores, anchors.data(), o))
    out.push_back(detmath::to_detection(r));
  return out;
}

float box_iou(const FaceDetection& a, const FaceDetection& b) {
  return detmath::box_iou(detmath::to_record(a).v, detmath::to_record(b).v);
}

std::vector<FaceDetection> weighted_non_max_suppression(const std::vector<FaceDetection>& detections,
                                                        const NmsOptions& options) {
  std::vector<detmath::Record> records;
  records.reserve(detections.size());
  for (const FaceDetection& d : detections) records.push_back(detmath::to_record(d));
  std::vector<FaceDetection> out;
  for (const detmath::Record& r :
       detmath::weighted_nms(records, options.min_suppression_threshold, options.max_num_detections))
    out.push_back(detmath::to_detection(r));
  return out;
}

}  // namespace gp::track
