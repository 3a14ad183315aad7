#pragma once
#include <memory>

#include "core/batch_job.hpp"

namespace gp::tonemap {

// `gpuproc tonemap-exr`: OpenEXR/HDR -> tonemapped 8/16-bit images, MIP chains and thumbnails.
std::unique_ptr<BatchCommand> make_command();

}  // namespace gp::tonemap
