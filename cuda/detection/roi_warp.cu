// ROI warp on the GPU: one thread per output pixel, all ROIs in one launch (grid z = ROI). A warp
// writes 32 consecutive NHWC pixels of one crop row; neighbouring threads read neighbouring frame
// pixels (L1/L2 reuse). Every thread of a block reads the same ROI (one broadcast load).
#include "cuda/detection/roi_warp.hpp"

#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/common/pixel_launch.cuh"
#include "cuda/detection/roi_warp_checks.hpp"
#include "cuda/detection/roi_warp_math.hpp"

namespace gp::detect {
namespace {

__global__ void warp_rois_kernel(frames::FrameSource frame, const Roi* rois, RoiWarpParams p, void* tensor) {
  int u, v;
  if (!launch::pixel_of_thread(p.size, p.size, u, v)) return;
  const int item = int(blockIdx.z);
  warp::warp_pixel(frame, rois[item], p, tensor, item, u, v);
}

}  // namespace

void warp_rois_gpu(const frames::FrameSource& frame, const Roi* rois, int count, const RoiWarpParams& p,
                   void* tensor, cudaStream_t stream) {
  const char* fn = "warp_rois_gpu";
  checks::require_warp(frame, rois, count, p, tensor, fn);
  if (count == 0) return;
  dim3 grid = launch::pixel_grid(p.size, p.size);
  grid.z = unsigned(count);
  warp_rois_kernel<<<grid, launch::pixel_block(), 0, stream>>>(frame, rois, p, tensor);
  GP_CUDA_CHECK_LAUNCH("warp_rois_kernel " + std::to_string(count) + " ROIs of " + std::to_string(p.size) +
                       " px from a " + frames::checks::size_text(frame.width, frame.height) + " frame");
}

}  // namespace gp::detect
