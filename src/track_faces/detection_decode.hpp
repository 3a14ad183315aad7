#pragma once
// BlazeFace outputs -> face detections, as MediaPipe's TensorsToDetectionsCalculator and
// NonMaxSuppressionCalculator (WEIGHTED, IoU) do in the face_detection graphs. The CPU reference
// the GPU decoding is checked against.
#include <array>
#include <cstddef>
#include <vector>

#include "track_faces/anchors.hpp"

namespace gp::track {

constexpr int kFaceKeypoints = 6;  // right eye, left eye, nose tip, mouth, right ear, left ear

struct Keypoint {
  float x = 0, y = 0;
};

// Normalized [0, 1] image coordinates of the model input.
struct FaceDetection {
  float xmin = 0, ymin = 0, width = 0, height = 0;
  float score = 0;
  std::array<Keypoint, kFaceKeypoints> keypoints{};
};

// The subset of TensorsToDetectionsCalculatorOptions the face models use.
struct DecodeOptions {
  int num_boxes = 0;
  int num_coords = 16;  // 4 box values + 6 keypoints x 2
  int box_coord_offset = 0;
  int keypoint_coord_offset = 4;
  float x_scale = 0, y_scale = 0, w_scale = 0, h_scale = 0;
  bool reverse_output_order = true;  // x before y, w before h
  bool apply_exponential_on_box_size = false;
  bool sigmoid_score = true;
  float score_clipping_thresh = 100.0f;  // logits clipped to +-this before the sigmoid
  float min_score_thresh = 0.5f;
};

DecodeOptions short_range_decode_options();  // 896 boxes, scale 128, min score 0.5
DecodeOptions full_range_decode_options();   // 2304 boxes, scale 192, min score 0.6

// raw_boxes: num_boxes x num_coords, raw_scores: num_boxes (one class). Returns the detections
// whose score passes min_score_thresh, in anchor order. Throws std::invalid_argument on sizes.
std::vector<FaceDetection> decode_face_detections(const float* raw_boxes, const float* raw_scores,
                                                  const std::vector<Anchor>& anchors,
                                                  const DecodeOptions& options);

float box_iou(const FaceDetection& a, const FaceDetection& b);

struct NmsOptions {
  float min_suppression_threshold = 0.3f;  // IoU above this joins the cluster
  int max_num_detections = -1;             // -1: no limit
};

// MediaPipe's WEIGHTED suppression: the best remaining detection and every one overlapping it
// are replaced by one detection whose box and keypoints are their score-weighted mean; it keeps
// the best one's score. Output in decreasing score order.
std::vector<FaceDetection> weighted_non_max_suppression(const std::vector<FaceDetection>& detections,
                                                        const NmsOptions& options = {});

}  // namespace gp::track
