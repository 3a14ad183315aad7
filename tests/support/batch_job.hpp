#pragma once
// A batch job's state as run_batch_job builds it (items, their planned outputs, the ledger), for
// tests that run a command through a BatchContext of their own (several runtimes, say).
#include <string>
#include <vector>

#include "core/batch_job.hpp"

namespace gp::test {

struct JobState {
  std::vector<InputItem> items;
  std::vector<std::vector<PlannedFile>> plans;
  std::vector<std::size_t> positions;
  CompletionRecords records;
  ItemLedger ledger;
  HostMemoryBudget host_memory{default_host_memory_limit()};

  JobState(const BatchCommand& command, const config::json& cfg, const std::vector<std::string>& files)
      : items(make_input_items(files)),
        plans(command.planned_outputs(cfg, items)),
        records(cfg.at(config::json::json_pointer("/output/dir")).get<std::string>(), command.schema().command()),
        ledger(items, &records) {
    for (std::size_t k = 0; k < items.size(); ++k) positions.push_back(k);
  }
  // No items (for the device plumbing alone).
  JobState() : records("", "test"), ledger({}, nullptr) {}

  BatchContext context(const config::json& cfg, const CommonOptions& options, std::vector<Runtime*> runtimes,
                       Progress& progress, DeviceItemCounts* counts) {
    return BatchContext{cfg,   options, *runtimes.front(), progress, false, runtimes, counts,
                        items, ledger,  positions,         items,    plans, records, host_memory};
  }
};

}  // namespace gp::test
