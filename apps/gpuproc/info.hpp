#pragma once
#include <string>

namespace gp::app {
std::string version_text();
int run_info(bool as_json);
}  // namespace gp::app
