// CPU reference of the ROI warp (also the CPU path): the same per-pixel function over crop rows
// spread across threads. Host ROIs are also checked for finite values and a positive size (the
// GPU side cannot look at device ROIs; there a bad ROI reads the frame's edge, never past it).
#include <cmath>
#include <string>

#include "core/parallel_for.hpp"
#include "cuda/detection/roi_warp.hpp"
#include "cuda/detection/roi_warp_checks.hpp"
#include "cuda/detection/roi_warp_math.hpp"

namespace gp::detect {

void warp_rois_cpu(const frames::FrameSource& frame, const Roi* rois, int count, const RoiWarpParams& p,
                   void* tensor) {
  const char* fn = "warp_rois_cpu";
  checks::require_warp(frame, rois, count, p, tensor, fn);
  for (int i = 0; i < count; ++i) {
    const Roi& r = rois[i];
    frames::checks::require(std::isfinite(r.cx) && std::isfinite(r.cy) && std::isfinite(r.rotation) &&
                                 std::isfinite(r.size) && r.size > 0.0f,
                             fn, "ROI " + std::to_string(i) + " is not finite or has no size");
  }
  if (count == 0) return;
  // Rows of all crops, one after the other: row y is row y % S of crop y / S.
  for_each_row(p.size, p.size * count, [&](int y) {
    const int item = y / p.size, v = y % p.size;
    for (int u = 0; u < p.size; ++u) warp::warp_pixel(frame, rois[item], p, tensor, item, u, v);
  });
}

}  // namespace gp::detect
