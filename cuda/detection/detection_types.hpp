#pragma once
// The plain types SSD detection shares between its host code (src/detection) and its kernels:
// anchors, detections and the decoding and suppression options of MediaPipe's detection graphs
// (BlazeFace in track-faces, BlazePose's person detector in segment-body). nvcc-safe: no host
// libraries.
#include <array>

namespace gp::detect {

struct Anchor {
  float x_center = 0, y_center = 0, w = 0, h = 0;
};

// Keypoints a detection holds: BlazeFace has 6 (right eye, left eye, nose tip, mouth, right ear,
// left ear), BlazePose 4 (hip centre, full-body reach, shoulder centre, upper-body reach); unused
// ones stay 0.
constexpr int kMaxKeypoints = 6;

struct Keypoint {
  float x = 0, y = 0;
};

// Normalized [0, 1] image coordinates of the model input.
struct Detection {
  float xmin = 0, ymin = 0, width = 0, height = 0;
  float score = 0;
  std::array<Keypoint, kMaxKeypoints> keypoints{};
};

// The subset of TensorsToDetectionsCalculatorOptions the face and pose detectors use.
struct DecodeOptions {
  int num_boxes = 0;
  int num_coords = 16;  // 4 box values + num_keypoints x 2
  int box_coord_offset = 0;
  int keypoint_coord_offset = 4;
  int num_keypoints = 6;  // at most kMaxKeypoints
  float x_scale = 0, y_scale = 0, w_scale = 0, h_scale = 0;
  bool reverse_output_order = true;  // x before y, w before h
  bool apply_exponential_on_box_size = false;
  bool sigmoid_score = true;
  float score_clipping_thresh = 100.0f;  // logits clipped to +-this before the sigmoid
  float min_score_thresh = 0.5f;
};

struct NmsOptions {
  float min_suppression_threshold = 0.3f;  // IoU above this joins the cluster
  int max_num_detections = -1;             // -1: no limit
};

}  // namespace gp::detect
