#pragma once
// `gpuproc merge-reports`: CLI wiring for gp::merge_reports (src/core/report_merge.hpp).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gp::app {

struct MergeReportsArgs {
  std::vector<std::string> reports;
  std::string out;
};

void add_merge_reports_options(CLI::App& sub, MergeReportsArgs& args);
// Exit code: 0 all shards complete and ok, 1 failed items or incomplete coverage, 2 usage.
int run_merge_reports(const MergeReportsArgs& args);

}  // namespace gp::app
