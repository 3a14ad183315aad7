#pragma once
// What the components kernels and their CPU references share: which neighbours a voxel joins.
#include "cuda/common/host_device.hpp"  // GP_HD

namespace gp::labelling::math {

// The neighbours that come before a voxel in raster order (z, then y, then x): 3 of the 6 face
// neighbours, 13 of the 26. Joining every voxel with these joins every adjacent pair once.
template <bool C26>
struct BackwardNeighbours {
  static constexpr int count = C26 ? 13 : 3;
  // k-th offset, k in [0, count).
  GP_HD static void offset(int k, int& dx, int& dy, int& dz) {
    if (!C26) {
      dx = k == 0 ? -1 : 0;
      dy = k == 1 ? -1 : 0;
      dz = k == 2 ? -1 : 0;
      return;
    }
    if (k < 9) {  // the 9 voxels of the slice below
      dz = -1;
      dy = k / 3 - 1;
      dx = k % 3 - 1;
    } else if (k < 12) {  // the 3 voxels of the row below, same slice
      dz = 0;
      dy = -1;
      dx = k - 10;
    } else {  // the voxel to the left
      dz = 0;
      dy = 0;
      dx = -1;
    }
  }
};

}  // namespace gp::labelling::math
