#pragma once
// Where tests find the MediaPipe models that scripts/fetch-models.sh fetches: $GPUPROC_MODELS,
// else <repo>/.models. A test that needs a missing model skips visibly (WARN).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace gp::test {

inline std::filesystem::path models_dir() {
  if (const char* env = std::getenv("GPUPROC_MODELS"); env && *env) return env;
  return std::filesystem::path(GPUPROC_SOURCE_DIR) / ".models";
}

// The model's path, or nothing (with a WARN naming it) when it has not been fetched.
inline std::optional<std::filesystem::path> find_model(const std::string& file) {
  const auto path = models_dir() / file;
  if (std::filesystem::is_regular_file(path)) return path;
  WARN("skipped: model " << path.string() << " not found (run scripts/fetch-models.sh or set GPUPROC_MODELS)");
  return std::nullopt;
}

}  // namespace gp::test
