#pragma once
// The volume views of segment-pnm's kernels (cuda/common/volume_view.hpp) and the voxel size. nvcc-safe.
#include "cuda/common/volume_view.hpp"

namespace gp::pnm {

// The common volume types, by their segment-pnm names too (code that uses gp::pnm sees them).
using gp::Connectivity;
using gp::ScratchAllocator;
using gp::VolumeView;
using gp::whole_volume;

// Physical voxel size along x, y, z (same unit as the distances computed from it).
struct Spacing {
  float x = 1, y = 1, z = 1;
};

}  // namespace gp::pnm
