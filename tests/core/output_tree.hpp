#pragma once
// Helpers for tests that run a whole batch job twice and compare what the two runs wrote.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/batch_job.hpp"
#include "support/test_data.hpp"

namespace gp::test {

// Every regular file under `root`, by its path relative to root, with its bytes.
inline std::map<std::string, std::string> read_tree(const std::filesystem::path& root) {
  std::map<std::string, std::string> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root); it != std::filesystem::recursive_directory_iterator();
       ++it) {
    const auto& entry = *it;
    // Hidden: the runner's completion records (.gpuproc/), not outputs.
    if (entry.path().filename().string().rfind('.', 0) == 0) {
      if (entry.is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    files[entry.path().lexically_relative(root).string()] =
        std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return files;
}

// A folder of `copies` symbolic links to each of `sources` (named k_<file name>): more items
// than the samples, so that every compute worker of a job gets some.
inline std::filesystem::path linked_inputs(const std::string& name, const std::vector<std::string>& sources, int copies) {
  const std::filesystem::path dir = scratch_dir(name);
  for (int k = 0; k < copies; ++k)
    for (const std::string& source : sources)
      std::filesystem::create_symlink(source, dir / (std::to_string(k) + "_" + std::filesystem::path(source).filename().string()));
  return dir;
}

// The example config of `config` (a file under configs/) on `inputs`, output to `out`.
inline CommonOptions job_options(const std::string& config, const std::string& inputs, const std::filesystem::path& out,
                                 const std::string& device, const std::vector<std::string>& sets) {
  CommonOptions o;
  o.config_path = source_path("configs/" + config);
  o.inputs = {inputs};
  o.overrides = sets;
  o.overrides.push_back("output.dir=" + out.string());
  o.device = device;
  o.progress = "none";
  o.report_path = out.string() + "-report.json";
  return o;
}

}  // namespace gp::test
