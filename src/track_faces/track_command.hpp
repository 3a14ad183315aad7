#pragma once
#include <memory>

#include "core/batch_job.hpp"

namespace gp::track {

std::unique_ptr<BatchCommand> make_command();

}  // namespace gp::track
