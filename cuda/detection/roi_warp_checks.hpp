#pragma once
// Argument checks shared by warp_rois_gpu and warp_rois_cpu: a wrong frame, size or count becomes
// a gp::Error naming the function, not a bad result or a fault.
#include <string>

#include "cuda/frames/checks.hpp"
#include "cuda/detection/roi_warp.hpp"

namespace gp::detect::checks {

inline void require_warp(const frames::FrameSource& frame, const Roi* rois, int count, const RoiWarpParams& p,
                         const void* tensor, const char* function) {
  using frames::checks::require;
  frames::checks::require_frame(frame, function);
  require(p.size > 0 && p.size <= 4096, function, "crop size must be in 1..4096, got " + std::to_string(p.size));
  require(count >= 0 && count <= 65535, function, "ROI count must be in 0..65535, got " + std::to_string(count));
  require(count == 0 || (rois != nullptr && tensor != nullptr), function, "no ROIs or no tensor");
}

}  // namespace gp::detect::checks
