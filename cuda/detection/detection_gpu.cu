// Face decoding + weighted NMS on the GPU: one block per frame, every frame of the batch in one
// launch. Per frame:
//  1. decode: a thread per anchor; the ones passing the threshold write their record (at their
//     anchor's place in scratch) and a sort key (decreasing score, then anchor) in shared memory;
//  2. bitonic sort of the keys (candidates only), records copied to scratch in sorted order: the
//     CPU's stable sort by score, ties in anchor order;
//  3. greedy weighted NMS: each round the first remaining record is the best; the block tests all
//     remaining ones against it and lists the overlapping ones in order (block scan); then 17
//     lanes of warp 0 each sum one weighted-mean accumulator over that list, in the CPU's order
//     (every record is summed once per frame, so this serial part is O(candidates) in all).
#include "cuda/detection/detection_gpu.hpp"

#include <cub/block/block_scan.cuh>

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/frames/checks.hpp"

namespace gp::detect {
namespace {

constexpr int kThreads = 256;
constexpr int kFloats = detmath::kRecordFloats;

std::size_t padded_boxes(int num_boxes) {
  std::size_t n = 1;
  while (n < std::size_t(num_boxes)) n <<= 1;
  return n;
}

// Ascending keys = decreasing score, then increasing anchor (unique per frame).
__device__ unsigned long long sort_key(float score, int anchor) {
  unsigned u = __float_as_uint(score + 0.0f);  // -0 -> +0: equal scores tie as on the CPU
  u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);  // monotonic in the float's value
  return (static_cast<unsigned long long>(~u) << 32) | unsigned(anchor);
}

__global__ void __launch_bounds__(kThreads)
    detect_faces_kernel(const float* raw_boxes, const float* raw_scores, const float4* anchors, DecodeOptions o,
                        float iou_threshold, int limit, int max_out, float* by_anchor_all, float* sorted_all,
                        float* detections, int* counts) {
  using Scan = cub::BlockScan<int, kThreads>;
  extern __shared__ unsigned long long keys[];  // padded_boxes(num_boxes); later the NMS lists
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ int s_count, s_best;

  const int frame = int(blockIdx.x), tid = int(threadIdx.x), nb = o.num_boxes;
  const float* boxes = raw_boxes + std::size_t(frame) * nb * o.num_coords;
  const float* scores = raw_scores + std::size_t(frame) * nb;
  float* by_anchor = by_anchor_all + std::size_t(frame) * nb * kFloats;
  float* sorted = sorted_all + std::size_t(frame) * nb * kFloats;
  float* out = detections + std::size_t(frame) * max_out * kFloats;
  if (tid == 0) s_count = 0;
  __syncthreads();

  // 1. Decode and threshold.
  for (int i = tid; i < nb; i += kThreads) {
    const float score = detmath::decoded_score(scores[i], o);
    if (!detmath::passes_threshold(score, o)) continue;
    const float4 a = anchors[i];
    float rec[kFloats];
    if (!detmath::decode_record(boxes + std::size_t(i) * o.num_coords, a.x, a.y, a.z, a.w, score, o, rec)) continue;
    for (int v = 0; v < kFloats; ++v) by_anchor[std::size_t(i) * kFloats + v] = rec[v];
    keys[atomicAdd(&s_count, 1)] = sort_key(score, i);
  }
  __syncthreads();
  const int count = s_count;

  // 2. Sort the candidates' keys (padded to a power of two with keys that sort last).
  int n2 = 1;
  while (n2 < count) n2 <<= 1;
  for (int j = count + tid; j < n2; j += kThreads) keys[j] = ~0ull;
  __syncthreads();
  for (int k = 2; k <= n2; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = tid; i < n2; i += kThreads) {
        const int partner = i ^ j;
        if (partner <= i) continue;
        const unsigned long long a = keys[i], b = keys[partner];
        if ((a > b) == ((i & k) == 0)) {
          keys[i] = b;
          keys[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  for (int j = tid; j < count; j += kThreads) {
    const std::size_t anchor = std::size_t(keys[j] & 0xffffffffull);
    for (int v = 0; v < kFloats; ++v) sorted[std::size_t(j) * kFloats + v] = by_anchor[anchor * kFloats + v];
  }
  __syncthreads();  // keys read; their memory becomes the NMS lists

  // 3. Weighted NMS over sorted[0, count).
  int* members = reinterpret_cast<int*>(keys);                        // this round's cluster, in order
  unsigned char* alive = reinterpret_cast<unsigned char*>(members + count);  // not yet merged
  for (int j = tid; j < count; j += kThreads) alive[j] = 1;
  if (tid == 0) s_best = 0;
  __syncthreads();
  int n_out = 0;
  for (;;) {
    const int best = s_best;
    if (best >= count || n_out >= limit) break;
    const float* best_rec = sorted + std::size_t(best) * kFloats;
    const float best_box[4] = {best_rec[0], best_rec[1], best_rec[2], best_rec[3]};
    int cluster = 0;
    for (int start = best; start < count; start += kThreads) {
      const int j = start + tid;
      int joins = 0;
      if (j < count && alive[j]) {
        const float* d = sorted + std::size_t(j) * kFloats;
        const float box[4] = {d[0], d[1], d[2], d[3]};
        joins = detmath::box_iou(box, best_box) > iou_threshold;
      }
      int at, joined;
      Scan(scan_storage).ExclusiveSum(joins, at, joined);
      if (joins) {
        members[cluster + at] = j;
        alive[j] = 0;
      }
      cluster += joined;
      __syncthreads();  // scan storage reused; members and alive complete
    }
    if (tid < 32) {
      double sum = 0;
      if (tid < detmath::kMergeSums)
        for (int m = 0; m < cluster; ++m) sum += detmath::merge_term(sorted + std::size_t(members[m]) * kFloats, tid);
      // Lane f writes field f from the accumulators it needs (no array: it would live in local memory).
      const int source = tid < kFloats ? detmath::merge_source(tid) : 0;
      const double total = __shfl_sync(0xffffffffu, sum, 0);
      const double from = __shfl_sync(0xffffffffu, sum, source);
      const double minus = __shfl_sync(0xffffffffu, sum, source >= 2 ? source - 2 : 0);
      if (tid < kFloats)
        out[std::size_t(n_out) * kFloats + tid] = detmath::merged_field(total, from, minus, best_rec, tid);
      if (tid == 0) {
        // Nothing merged (a zero-size best box): only the best one leaves, as on the CPU.
        if (cluster == 0) alive[best] = 0;
        int next = best;
        while (next < count && !alive[next]) ++next;
        s_best = next;
      }
    }
    ++n_out;
    __syncthreads();
  }
  if (tid == 0) counts[frame] = n_out;
}

}  // namespace

std::size_t detection_scratch_bytes(int batch, int num_boxes) {
  if (batch <= 0 || num_boxes <= 0) return 0;
  return 2 * std::size_t(batch) * std::size_t(num_boxes) * kFloats * sizeof(float);
}

void decode_detections_gpu(const float* raw_boxes, const float* raw_scores, const float4* anchors, int batch,
                      const DecodeOptions& decode, const NmsOptions& nms, int max_out, void* scratch,
                      std::size_t scratch_bytes, float* detections, int* counts, cudaStream_t stream) {
  const char* fn = "decode_detections_gpu";
  using frames::checks::require;
  const int nb = decode.num_boxes;
  require(batch >= 0 && batch <= 65535, fn, "batch must be in 0..65535, got " + std::to_string(batch));
  require(nb > 0 && nb <= kMaxDetectionBoxes, fn,
          "num_boxes must be in 1.." + std::to_string(kMaxDetectionBoxes) + ", got " + std::to_string(nb));
  require(detmath::coords_fit(decode), fn,
          "num_coords " + std::to_string(decode.num_coords) + " too small for a box and " +
              std::to_string(decode.num_keypoints) + " keypoints (at most " + std::to_string(kMaxKeypoints) + ")");
  require(max_out > 0, fn, "max_out must be positive, got " + std::to_string(max_out));
  if (batch == 0) return;
  require(raw_boxes && raw_scores && anchors && detections && counts, fn, "null input or output");
  const std::size_t need = detection_scratch_bytes(batch, nb);
  require(scratch != nullptr && scratch_bytes >= need, fn,
          "scratch of " + std::to_string(scratch_bytes) + " bytes, needs " + std::to_string(need));
  const int limit = nms.max_num_detections >= 0 && nms.max_num_detections < max_out ? nms.max_num_detections : max_out;
  float* by_anchor = static_cast<float*>(scratch);
  float* sorted = by_anchor + std::size_t(batch) * nb * kFloats;
  const std::size_t shared = padded_boxes(nb) * sizeof(unsigned long long);
  detect_faces_kernel<<<unsigned(batch), kThreads, shared, stream>>>(raw_boxes, raw_scores, anchors, decode,
                                                                       nms.min_suppression_threshold, limit, max_out,
                                                                       by_anchor, sorted, detections, counts);
  GP_CUDA_CHECK_LAUNCH("detect_faces_kernel: " + std::to_string(batch) + " frames of " + std::to_string(nb) +
                       " boxes, up to " + std::to_string(max_out) + " detections each");
}

}  // namespace gp::detect
