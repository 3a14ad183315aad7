#pragma once
// BlazeFace decoding + weighted NMS for a whole batch of frames in one launch sequence on one
// stream: exactly weighted_non_max_suppression(decode_detections(...)) per frame
// (detection_decode.hpp), nothing copied to the host.
//
// Device inputs: raw_boxes [batch][num_boxes][num_coords] f32 and raw_scores [batch][num_boxes]
// f32 (the model's outputs, frames contiguous), anchors [num_boxes] as float4 (x_center,
// y_center, w, h), uploaded once by the caller.
// Device outputs: detections [batch][max_out][17] f32 (xmin, ymin, width, height normalized,
// score, 6 keypoints x, y: Detection's order), counts [batch] int; per frame the first
// counts[f] records are valid, in decreasing score order. A frame stops after max_out detections
// (or nms.max_num_detections when that is smaller and >= 0): the first ones are those the CPU
// gives, since the suppression is greedy.
// Scratch: detection_scratch_bytes(batch, num_boxes) device bytes, any content; no allocation,
// no synchronisation. num_boxes at most kMaxDetectionBoxes (BlazeFace: 896 or 2304).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "cuda/detection/detection_math.hpp"
#include "cuda/detection/detection_types.hpp"

namespace gp::detect {

constexpr int kDetectionFloats = detmath::kRecordFloats;  // 17 floats a detection
constexpr int kMaxDetectionBoxes = 4096;                     // candidates are sorted in shared memory

std::size_t detection_scratch_bytes(int batch, int num_boxes);

void decode_detections_gpu(const float* raw_boxes, const float* raw_scores, const float4* anchors, int batch,
                      const DecodeOptions& decode, const NmsOptions& nms, int max_out, void* scratch,
                      std::size_t scratch_bytes, float* detections, int* counts, cudaStream_t stream);

// The CPU reference with the same layout (host pointers): the functions behind
// decode_detections / weighted_non_max_suppression, frame by frame. Unused records stay as
// they are.
inline void decode_detections_cpu(const float* raw_boxes, const float* raw_scores, const std::vector<Anchor>& anchors,
                             int batch, const DecodeOptions& decode, const NmsOptions& nms, int max_out,
                             float* detections, int* counts) {
  const int limit = nms.max_num_detections >= 0 && nms.max_num_detections < max_out ? nms.max_num_detections
                                                                                    : max_out;
  for (int f = 0; f < batch; ++f) {
    const std::size_t boxes = std::size_t(f) * decode.num_boxes;
    const std::vector<detmath::Record> out = detmath::weighted_nms(
        detmath::decode_records(raw_boxes + boxes * decode.num_coords, raw_scores + boxes, anchors.data(), decode),
        nms.min_suppression_threshold, limit);
    counts[f] = int(out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      for (int v = 0; v < kDetectionFloats; ++v)
        detections[(std::size_t(f) * max_out + i) * kDetectionFloats + v] = out[i].v[v];
  }
}

}  // namespace gp::detect
