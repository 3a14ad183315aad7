#include "detection/anchors.hpp"

#include <cmath>
#include <stdexcept>

namespace gp::detect {

SsdAnchorOptions short_range_anchor_options() {
  SsdAnchorOptions o;
  o.input_size_width = o.input_size_height = 128;
  o.min_scale = 0.1484375f;
  o.max_scale = 0.75f;
  o.num_layers = 4;
  o.strides = {8, 16, 16, 16};
  o.aspect_ratios = {1.0f};
  o.interpolated_scale_aspect_ratio = 1.0f;
  o.fixed_anchor_size = true;
  return o;
}

SsdAnchorOptions full_range_anchor_options() {
  SsdAnchorOptions o;
  o.input_size_width = o.input_size_height = 192;
  o.min_scale = 0.1484375f;
  o.max_scale = 0.75f;
  o.num_layers = 1;
  o.strides = {4};
  o.aspect_ratios = {1.0f};
  o.interpolated_scale_aspect_ratio = 0.0f;
  o.fixed_anchor_size = true;
  return o;
}

SsdAnchorOptions pose_anchor_options() {
  SsdAnchorOptions o;
  o.input_size_width = o.input_size_height = 224;
  o.min_scale = 0.1484375f;
  o.max_scale = 0.75f;
  o.num_layers = 5;
  o.strides = {8, 16, 32, 32, 32};
  o.aspect_ratios = {1.0f};
  o.interpolated_scale_aspect_ratio = 1.0f;
  o.fixed_anchor_size = true;
  return o;
}

namespace {

float layer_scale(float min_scale, float max_scale, int stride_index, int num_strides) {
  if (num_strides == 1) return (min_scale + max_scale) * 0.5f;
  return min_scale + (max_scale - min_scale) * 1.0f * stride_index / (num_strides - 1.0f);
}

}  // namespace

std::vector<Anchor> generate_ssd_anchors(const SsdAnchorOptions& o) {
  if (o.num_layers <= 0 || static_cast<int>(o.strides.size()) != o.num_layers)
    throw std::invalid_argument("SSD anchors: strides must list one stride per layer");
  if (o.input_size_width <= 0 || o.input_size_height <= 0)
    throw std::invalid_argument("SSD anchors: input size must be positive");
  const int num_strides = static_cast<int>(o.strides.size());
  std::vector<Anchor> anchors;
  int layer_id = 0;
  while (layer_id < o.num_layers) {
    std::vector<float> aspect_ratios, scales;
    // Consecutive layers with the same stride share one feature map: their anchors interleave
    // per cell, in layer order (as MediaPipe does).
    int last_same_stride_layer = layer_id;
    while (last_same_stride_layer < num_strides &&
           o.strides[last_same_stride_layer] == o.strides[layer_id]) {
      const float scale = layer_scale(o.min_scale, o.max_scale, last_same_stride_layer, num_strides);
      for (float ratio : o.aspect_ratios) {
        aspect_ratios.push_back(ratio);
        scales.push_back(scale);
      }
      if (o.interpolated_scale_aspect_ratio > 0.0f) {
        const float scale_next =
            last_same_stride_layer == num_strides - 1
                ? 1.0f
                : layer_scale(o.min_scale, o.max_scale, last_same_stride_layer + 1, num_strides);
        scales.push_back(std::sqrt(scale * scale_next));
        aspect_ratios.push_back(o.interpolated_scale_aspect_ratio);
      }
      ++last_same_stride_layer;
    }
    std::vector<float> anchor_w, anchor_h;
    for (std::size_t i = 0; i < aspect_ratios.size(); ++i) {
      const float ratio_sqrt = std::sqrt(aspect_ratios[i]);
      anchor_h.push_back(scales[i] / ratio_sqrt);
      anchor_w.push_back(scales[i] * ratio_sqrt);
    }
    const int stride = o.strides[layer_id];
    const int map_h = static_cast<int>(std::ceil(1.0f * o.input_size_height / stride));
    const int map_w = static_cast<int>(std::ceil(1.0f * o.input_size_width / stride));
    for (int y = 0; y < map_h; ++y) {
      for (int x = 0; x < map_w; ++x) {
        for (std::size_t a = 0; a < anchor_h.size(); ++a) {
          Anchor anchor;
          anchor.x_center = (x + o.anchor_offset_x) * 1.0f / map_w;
          anchor.y_center = (y + o.anchor_offset_y) * 1.0f / map_h;
          anchor.w = o.fixed_anchor_size ? 1.0f : anchor_w[a];
          anchor.h = o.fixed_anchor_size ? 1.0f : anchor_h[a];
          anchors.push_back(anchor);
        }
      }
    }
    layer_id = last_same_stride_layer;
  }
  return anchors;
}

}  // namespace gp::detect
