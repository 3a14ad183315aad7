#pragma once
// The settings of the markers stage (markers.hpp), apart from the kernels' declarations so that
// host-only code (the settings reader, the fuzz targets) needs no CUDA header.
namespace gp::pnm {

struct MarkerParams {
  int saddle_max_iterations = 20;  // trim_saddle_points' maxiter
  float nearby_factor = 1.0f;      // trim_nearby_peaks' f: peaks nearer than f * distance-to-solid
};

}  // namespace gp::pnm
