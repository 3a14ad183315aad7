#pragma once
// gpuproc merge-reports: the run reports of a sharded job (one per Slurm array task or Kubernetes
// index, --report of each) combined into one: items and outputs summed, stage times summed, every
// error kept with its shard, and the checks a farm run needs: one command, shards of one count,
// none missing or repeated, no input processed by two shards, none stopped with items not done
// (a cancelled shard: a Slurm time limit or preemption; its --resume run finishes it).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp::tools {

struct ReportMerge {
  nlohmann::ordered_json report;  // the combined report
  std::vector<std::string> problems;  // coverage and consistency problems (also in report["problems"])
  bool items_failed = false;          // a shard reported failed items or did not finish
  bool cancelled = false;             // a shard was stopped (SIGINT/SIGTERM, on_error fail) with items not done
};

// reports[i] was read from names[i] (for messages). Throws UsageError when they cannot be merged
// (none, not gpuproc reports, different commands).
ReportMerge merge_reports(const std::vector<nlohmann::json>& reports, const std::vector<std::string>& names);

}  // namespace gp::tools
