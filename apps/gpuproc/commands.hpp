#pragma once
// The subcommands gpuproc knows, for the CLI wiring and `gpuproc validate`.
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/batch_job.hpp"

namespace gp::app {

using CommandFactory = std::function<std::unique_ptr<BatchCommand>()>;

// name -> factory, e.g. "tonemap-exr".
const std::map<std::string, CommandFactory>& batch_commands();

}  // namespace gp::app
