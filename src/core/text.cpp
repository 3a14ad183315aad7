#include "core/text.hpp"

#include <filesystem>

namespace gp {

std::string lowercase_extension(const std::string& path) {
  return lowercase(std::filesystem::path(path).extension().string());
}

}  // namespace gp
