#pragma once
// segment-pnm's kernels check their views with the volume checks (cuda/common/volume_checks.hpp).
#include "cuda/common/volume_checks.hpp"
#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {
namespace checks = gp::volume_checks;
}  // namespace gp::pnm
