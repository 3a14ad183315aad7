#pragma once
// SSD anchors as MediaPipe's SsdAnchorsCalculator makes them, with the options of the BlazeFace
// graphs (face_detection_short_range / face_detection_full_range) and of BlazePose's detector. Anchors are in normalized
// [0, 1] image coordinates; the order matches the model's box outputs.
#include <vector>

#include "cuda/detection/detection_types.hpp"  // Anchor

namespace gp::detect {

// The subset of SsdAnchorsCalculatorOptions the face models use.
struct SsdAnchorOptions {
  int input_size_width = 0, input_size_height = 0;
  float min_scale = 0, max_scale = 0;
  float anchor_offset_x = 0.5f, anchor_offset_y = 0.5f;
  int num_layers = 0;
  std::vector<int> strides;
  std::vector<float> aspect_ratios;
  float interpolated_scale_aspect_ratio = 1.0f;
  bool fixed_anchor_size = false;
};

SsdAnchorOptions short_range_anchor_options();  // 128x128, 896 anchors
SsdAnchorOptions full_range_anchor_options();   // 192x192, 2304 anchors
SsdAnchorOptions pose_anchor_options();         // BlazePose's detector (pose_detection_cpu.pbtxt): 224x224, 2254 anchors

// Throws std::invalid_argument on inconsistent options.
std::vector<Anchor> generate_ssd_anchors(const SsdAnchorOptions& options);

}  // namespace gp::detect
