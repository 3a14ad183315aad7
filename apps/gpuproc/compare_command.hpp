#pragma once
// `gpuproc compare A B --tolerance T`: for CI regression runs (exit 0 same, 1 different, 2 cannot
// compare).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gp::app {

struct CompareArgs {
  std::string a, b;
  double tolerance = 0;
  double relative_tolerance = 0;
  double min_psnr_db = 0;
  std::vector<std::string> ignored_keys;
  bool json = false;
};

void add_compare_options(CLI::App& sub, CompareArgs& args);
int run_compare(const CompareArgs& args);

}  // namespace gp::app
