#pragma once
// SSD detector outputs (BlazeFace, BlazePose's person detector) -> detections, as MediaPipe's
// TensorsToDetectionsCalculator and NonMaxSuppressionCalculator (WEIGHTED, IoU) do in the
// face_detection and pose_detection graphs. The CPU reference
// the GPU decoding is checked against.
#include <array>
#include <cstddef>
#include <vector>

#include "cuda/detection/detection_types.hpp"
#include "detection/anchors.hpp"

namespace gp::detect {

DecodeOptions short_range_decode_options();  // 896 boxes, scale 128, min score 0.5
DecodeOptions full_range_decode_options();   // 2304 boxes, scale 192, min score 0.6
DecodeOptions pose_decode_options();         // BlazePose's detector: 2254 boxes, 4 keypoints, scale 224, min score 0.5

// raw_boxes: num_boxes x num_coords, raw_scores: num_boxes (one class). Returns the detections
// whose score passes min_score_thresh, in anchor order. Throws std::invalid_argument on sizes.
std::vector<Detection> decode_detections(const float* raw_boxes, const float* raw_scores,
                                                  const std::vector<Anchor>& anchors,
                                                  const DecodeOptions& options);

float box_iou(const Detection& a, const Detection& b);

// MediaPipe's WEIGHTED suppression: the best remaining detection and every one overlapping it
// are replaced by one detection whose box and keypoints are their score-weighted mean; it keeps
// the best one's score. Output in decreasing score order.
std::vector<Detection> weighted_non_max_suppression(const std::vector<Detection>& detections,
                                                        const NmsOptions& options = {});

}  // namespace gp::detect
