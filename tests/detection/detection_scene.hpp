#pragma once
// Realistic BlazeFace outputs for the decoding + NMS tests (CPU records test, GPU test): per frame
// a few faces, each seen by the anchors near it as a cluster of overlapping high-score boxes (some
// scores exactly tied), many low-score boxes around the threshold, a few boxes of negative size,
// and a zero-size box; or special frames: nothing above the threshold, everything above it.
// The anchors are built here (same grid as generate_ssd_anchors, checked in
// detection_records_test.cpp) because the GPU tests do not link the CPU track-faces library.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "detection/detection_decode.hpp"

namespace gp::test {

enum class FaceModel { short_range, full_range };

// SSD anchors of the BlazeFace graphs (fixed size 1): short range a 16x16 map with 2 anchors a
// cell then an 8x8 map with 6; full range a 48x48 map with 1.
inline std::vector<detect::Anchor> face_anchors(FaceModel model) {
  struct Map {
    int size, per_cell;
  };
  const std::vector<Map> maps =
      model == FaceModel::short_range ? std::vector<Map>{{16, 2}, {8, 6}} : std::vector<Map>{{48, 1}};
  std::vector<detect::Anchor> anchors;
  for (const Map& m : maps)
    for (int y = 0; y < m.size; ++y)
      for (int x = 0; x < m.size; ++x)
        for (int a = 0; a < m.per_cell; ++a)
          anchors.push_back({(x + 0.5f) * 1.0f / m.size, (y + 0.5f) * 1.0f / m.size, 1.0f, 1.0f});
  return anchors;
}

inline detect::DecodeOptions face_decode_options(FaceModel model) {
  detect::DecodeOptions o;  // as short_range_decode_options() / full_range_decode_options()
  o.num_boxes = model == FaceModel::short_range ? 896 : 2304;
  o.x_scale = o.y_scale = o.w_scale = o.h_scale = model == FaceModel::short_range ? 128.0f : 192.0f;
  o.min_score_thresh = model == FaceModel::short_range ? 0.5f : 0.6f;
  return o;
}

enum class FrameKind { faces, none_above, all_above };

// Model outputs of a batch: boxes [batch][num_boxes][16], scores [batch][num_boxes] (logits).
struct RawBatch {
  std::vector<float> boxes, scores;
};

// Raw values that decode to box (cx, cy, size) and keypoints around it for anchor a.
inline void encode_face(float* raw, const detect::Anchor& a, float scale, float cx, float cy, float size) {
  raw[0] = (cx - a.x_center) * scale / a.w;
  raw[1] = (cy - a.y_center) * scale / a.h;
  raw[2] = size * scale / a.w;
  raw[3] = size * 1.1f * scale / a.h;
  const float kp[6][2] = {{-0.2f, -0.15f}, {0.2f, -0.15f}, {0.0f, 0.05f}, {0.0f, 0.25f}, {-0.45f, -0.05f}, {0.45f, -0.05f}};
  for (int k = 0; k < 6; ++k) {
    raw[4 + 2 * k] = (cx + kp[k][0] * size - a.x_center) * scale / a.w;
    raw[5 + 2 * k] = (cy + kp[k][1] * size - a.y_center) * scale / a.h;
  }
}

inline RawBatch make_raw_batch(FaceModel model, const std::vector<FrameKind>& frames, unsigned seed) {
  const std::vector<detect::Anchor> anchors = face_anchors(model);
  const detect::DecodeOptions o = face_decode_options(model);
  const int nb = o.num_boxes, nc = o.num_coords;
  const float scale = o.x_scale;
  RawBatch raw;
  raw.boxes.resize(frames.size() * std::size_t(nb) * nc);
  raw.scores.resize(frames.size() * std::size_t(nb));
  std::mt19937 rng(seed);
  auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  auto jitter = [&](float v, float amount) { return v * (1.0f + uniform(-amount, amount)); };
  // Logits on a 1/8 grid: many exactly equal scores.
  auto tied_logit = [&](float lo, float hi) { return std::round(uniform(lo, hi) * 8.0f) / 8.0f; };

  for (std::size_t f = 0; f < frames.size(); ++f) {
    float* boxes = raw.boxes.data() + f * nb * nc;
    float* scores = raw.scores.data() + f * nb;
    // Background: a box of some size near every anchor; logits mostly far below the threshold,
    // one in ten around it.
    for (int i = 0; i < nb; ++i) {
      const detect::Anchor& a = anchors[std::size_t(i)];
      encode_face(boxes + std::size_t(i) * nc, a, scale, a.x_center + uniform(-0.05f, 0.05f),
                  a.y_center + uniform(-0.05f, 0.05f), uniform(0.03f, 0.4f));
      scores[i] = uniform(0.0f, 1.0f) < 0.1f ? uniform(-1.0f, 1.5f) : uniform(-12.0f, -1.5f);
    }
    if (frames[f] == FrameKind::none_above) {
      for (int i = 0; i < nb; ++i) scores[i] = uniform(-12.0f, -1.5f);
      continue;
    }
    if (frames[f] == FrameKind::all_above) {
      for (int i = 0; i < nb; ++i) scores[i] = tied_logit(1.0f, 6.0f);
      continue;
    }
    // Faces: every anchor within reach of a face sees it, with jitter; the closer, the surer.
    const int faces = 1 + int(rng() % 5);
    for (int face = 0; face < faces; ++face) {
      const float size = uniform(0.08f, 0.45f), cx = uniform(0.1f, 0.9f), cy = uniform(0.1f, 0.9f);
      for (int i = 0; i < nb; ++i) {
        const detect::Anchor& a = anchors[std::size_t(i)];
        const float dist = std::hypot(a.x_center - cx, a.y_center - cy);
        if (dist > 0.4f * size) continue;
        encode_face(boxes + std::size_t(i) * nc, a, scale, cx + uniform(-0.03f, 0.03f) * size,
                    cy + uniform(-0.03f, 0.03f) * size, jitter(size, 0.08f));
        scores[i] = tied_logit(0.0f, 6.0f - 10.0f * dist / size);
      }
    }
    // Sure but unusable: negative sizes (dropped by the decoder) and one zero-size box.
    for (int n = 0; n < 3; ++n) {
      const int i = int(rng() % unsigned(nb));
      boxes[std::size_t(i) * nc + 2 + n % 2] = -uniform(1.0f, 10.0f);
      scores[i] = 4.0f;
    }
    const int zero = int(rng() % unsigned(nb));
    boxes[std::size_t(zero) * nc + 2] = 0.0f;
    scores[zero] = 7.0f;
  }
  return raw;
}

}  // namespace gp::test
