#pragma once
// Edge refinement of the upsampled mask, guided by the frame's luma: the guided filter of He, Sun
// and Tang (ECCV 2010 / TPAMI 2013), Algorithm 1, with I = luma / 255 and p = mask:
//   mean_I, mean_p, corr_I = mean(I*I), corr_Ip = mean(I*p)   (box means, radius r)
//   a = (corr_Ip - mean_I mean_p) / (corr_I - mean_I^2 + eps),  b = mean_p - a mean_I
//   q = mean(a) * I + mean(b)                                   (clamped to [0, 1])
// Box means average the window's pixels inside the image (their count at the edges). The mask
// follows the frame's edges where the frame has them (eps small against the edge's variance) and
// is smoothed where the frame is flat.
//
// subsample s > 1 is He and Sun's fast guided filter (arXiv:1505.00996): I and p are averaged
// over s x s blocks, a and b computed there with radius ceil(r / s), and mean(a), mean(b)
// interpolated bilinearly back to full size, where q = mean(a) * I + mean(b) uses the full-size
// I: the edges stay sharp at about 1/s^2 of the work.
//
// Separable passes through caller-provided scratch (guided_filter_scratch_bytes): [block means of
// I, p;] column sums of I, p, I^2, Ip; row sums -> a, b; column sums of a, b; row sums -> mean(a),
// mean(b) [-> bilinear] -> q. Every sum adds its window in index order, so the GPU and CPU sums
// are the same floats.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/views.hpp"
#include "cuda/segment_body/frame_types.hpp"
#include "cuda/segment_body/mask_output.hpp"

namespace gp::segbody {

struct GuidedParams {
  int radius = 8;      // window (2r + 1)^2, in frame pixels
  float eps = 1e-3f;   // regularisation, in units of I^2 (I in [0, 1])
  int subsample = 1;   // s: 1 = exact filter; 2..8 = fast guided filter at 1/s resolution
};

std::size_t guided_filter_scratch_bytes(int width, int height, const GuidedParams& p);

// guide: u8 1 channel (frame_luma_* or a YUV frame's Y plane); mask: f32 1 channel, same size;
// out: same size, f32 (q) or u8 (mask_to_u8(q, mode)); out may be `mask` itself. scratch: device
// memory for _gpu, host memory for _cpu, 16-byte aligned, guided_filter_scratch_bytes() long.
void guided_filter_gpu(const ImageView& guide, const ImageView& mask, const GuidedParams& p, const ImageView& out,
                       const MaskOutput& mode, void* scratch, std::size_t scratch_bytes, cudaStream_t stream);
void guided_filter_cpu(const ImageView& guide, const ImageView& mask, const GuidedParams& p, const ImageView& out,
                       const MaskOutput& mode, void* scratch, std::size_t scratch_bytes);

}  // namespace gp::segbody
