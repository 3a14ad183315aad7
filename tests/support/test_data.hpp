#pragma once
// Paths to the source tree and a scratch folder for tests.
#include <filesystem>
#include <string>
#include <unistd.h>

namespace gp::test {

inline std::string source_path(const std::string& relative) { return std::string(GPUPROC_SOURCE_DIR) + "/" + relative; }

// A fresh, empty folder under the system temp dir, unique per call.
inline std::filesystem::path scratch_dir(const std::string& name) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("gpuproc-test-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace gp::test
