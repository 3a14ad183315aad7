#include "infer/model_locator.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "core/file_checks.hpp"

namespace gp::infer {

namespace fs = std::filesystem;

std::string locate_model(const std::string& explicit_path, const std::string& file_name, const std::string& field) {
  if (!explicit_path.empty()) {
    require_regular_file(explicit_path, field);  // a FIFO or a device would block or never end
    return explicit_path;
  }
  std::vector<fs::path> folders;
  if (const char* env = std::getenv("GPUPROC_MODELS"); env && *env) folders.emplace_back(env);
  folders.emplace_back(GPUPROC_SOURCE_MODELS_DIR);
  folders.emplace_back(GPUPROC_INSTALL_MODELS_DIR);
  std::string tried;
  for (const fs::path& folder : folders) {
    const fs::path candidate = folder / file_name;
    if (fs::is_regular_file(candidate)) return candidate.string();
    tried += (tried.empty() ? "" : ", ") + folder.string();
  }
  throw UsageError(field + ": empty, and " + file_name + " is in none of " + tried +
                   " (run scripts/fetch-models.sh, set GPUPROC_MODELS or " + field + ")");
}

Model load_model(const std::string& path, const std::string& what) {
  try {
    return Model::load(path);
  } catch (const std::exception& e) {
    throw UsageError(what + ": " + e.what());
  }
}

}  // namespace gp::infer
