#pragma once
#include <memory>

#include "core/batch_job.hpp"

namespace gp::pnm {

// `gpuproc segment-pnm`: micro-CT volume -> pore regions -> pore network files.
std::unique_ptr<BatchCommand> make_command();

}  // namespace gp::pnm
