#pragma once
// BlazeFace outputs -> face detections, as MediaPipe's TensorsToDetectionsCalculator and
// NonMaxSuppressionCalculator (WEIGHTED, IoU) do in the face_detection graphs. The CPU reference
// the GPU decoding is checked against.
#include <array>
#include <cstddef>
#include <vector>

#include "cuda/track_faces/detection_types.hpp"
#include "track_faces/anchors.hpp"

namespace gp::track {

DecodeOptions short_range_decode_options();  // 896 boxes, scale 128, min score 0.5
DecodeOptions full_range_decode_options();   // 2304 boxes, scale 192, min score 0.6

// raw_boxes: num_boxes x num_coords, raw_scores: num_boxes (one class). Returns the detections
// whose score passes min_score_thresh, in anchor order. Throws std::invalid_argument on sizes.
std::vector<FaceDetection> decode_face_detections(const float* raw_boxes, const float* raw_scores,
                                                  const std::vector<Anchor>& anchors,
                                                  const DecodeOptions& options);

float box_iou(const FaceDetection& a, const FaceDetection& b);

// MediaPipe's WEIGHTED suppression: the best remaining detection and every one overlapping it
// are replaced by one detection whose box and keypoints are their score-weighted mean; it keeps
// the best one's score. Output in decreasing score order.
std::vector<FaceDetection> weighted_non_max_suppression(const std::vector<FaceDetection>& detections,
                                                        const NmsOptions& options = {});

}  // namespace gp::track
