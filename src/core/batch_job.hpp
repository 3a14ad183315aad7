#pragma once
// What every batch subcommand shares: config loading, overrides and validation, input expansion
// and sharding, output planning (no two outputs of a job may collide), --dry-run, --resume
// (completion records), the runtime, progress, stop signals, the run report with a record per
// item, the trace, and the mapping from outcomes to exit codes. A subcommand implements
// BatchCommand; run_batch_job does the rest.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/gpu_runtime.hpp"
#include "core/host_memory.hpp"
#include "core/inputs.hpp"
#include "core/item_ledger.hpp"
#include "core/output_naming.hpp"
#include "core/pipeline.hpp"
#include "core/progress.hpp"

namespace gp {

// Options every batch subcommand takes on the command line (wired by apps/gpuproc).
struct CommonOptions {
  std::string config_path;
  std::vector<std::string> overrides;  // --set key.path=value
  std::vector<std::string> inputs;     // positional inputs replace the config's "inputs"
  std::string device = "auto";
  std::string report_path, trace_path;
  std::string progress = "auto";
  std::string gpu_memory_limit;        // "512M", "2G", bytes; empty = no limit
  std::string host_memory_limit;       // "32G", bytes; empty = default_host_memory_limit()
  std::optional<std::string> shard;
  std::optional<int> shard_count;
  unsigned threads = 0;                // CPU threads for I/O and the CPU path; 0 = all
  bool dry_run = false, resume = false;
  bool fsync = true;                   // --no-fsync: outputs not flushed to disk (see set_outputs_fsync)
  double stop_timeout_s = 20;          // --stop-timeout: grace for running items after SIGINT/SIGTERM
  bool verbose = false;                // --verbose: the libraries' own messages on stderr (core/library_log.hpp)
  int gpu_monitor_ms = 100;            // --gpu-monitor: NVML sampling interval; 0 = off
};

// Parses "1.5G", "512MiB", "4096" into bytes (at most 2^62). Throws UsageError naming `option`.
std::uint64_t parse_byte_size(const std::string& text, const std::string& option);

// How a pipeline item ended (its failure state and stage times) with the files it wrote.
ItemResult pipeline_result(const PipelineItem& item, std::vector<std::string> outputs);

// Items each device's compute workers took, for the report's device section.
class DeviceItemCounts {
 public:
  explicit DeviceItemCounts(std::size_t devices) : counts_(std::max<std::size_t>(1, devices)) {}
  void add(std::size_t device, std::size_t items) { counts_[device % counts_.size()] += items; }
  std::size_t operator[](std::size_t device) const { return counts_[device]; }
  std::size_t size() const { return counts_.size(); }

 private:
  std::vector<std::atomic<std::size_t>> counts_;
};

struct BatchContext {
  const config::json& config;
  const CommonOptions& options;
  Runtime& runtime;  // the first device's: single-device code needs nothing else
  Progress& progress;
  bool resume;
  // Every device of --device, `runtime` first (one unless --device lists several GPUs). The
  // pipeline's compute queue is the queue they share: a command runs workers_per_device x
  // devices() compute workers, worker w on runtime_for_worker(w).
  std::vector<Runtime*> runtimes;
  DeviceItemCounts* items_per_device;  // null: not counted
  // This run's items, in input order: the shard's, less those --resume found complete.
  const std::vector<InputItem>& items;
  ItemLedger& ledger;
  const std::vector<std::size_t>& ledger_positions;  // items[k] is the ledger's item ledger_positions[k]
  // The whole job's items (every shard's) and their planned files, for files that list the job's
  // outputs (stitch-360's rig): job_item_complete(i) says whether job item i has finished, in this
  // run or an earlier one or another shard (its completion record).
  const std::vector<InputItem>& job_items;
  const std::vector<std::vector<PlannedFile>>& job_plans;
  const CompletionRecords& records;
  // --host-memory-limit: what large host buffers (whole volumes) draw on; past it, data goes to
  // scratch files (segment-pnm).
  HostMemoryBudget& host_memory;
  bool job_item_complete(std::size_t i) const { return records.complete(job_items.at(i), job_plans.at(i)); }
  // The files job item i wrote (absolute paths) when it is complete: a video's frames, say.
  std::optional<std::vector<std::string>> job_item_outputs(std::size_t i) const {
    return records.recorded_outputs(job_items.at(i), job_plans.at(i));
  }

  int devices() const { return runtimes.empty() ? 1 : int(runtimes.size()); }
  int device_of_worker(int worker) const { return worker % devices(); }
  Runtime& runtime_for_worker(int worker) const {
    return runtimes.empty() ? runtime : *runtimes[std::size_t(device_of_worker(worker))];
  }
  // Worker `worker` took `items` items (counted against its device).
  void count_items(int worker, std::size_t items) const {
    if (items_per_device) items_per_device->add(std::size_t(device_of_worker(worker)), items);
  }

  // items[k] ended (call once per item, from any thread): progress, its record in the report, and
  // its completion record; a failed or cancelled item's outputs are removed.
  void finish_item(std::size_t k, ItemResult result) const { ledger.finish(ledger_positions.at(k), std::move(result), progress); }
  // The same for a pipeline item whose index is its position in `items`.
  void finish_item(const PipelineItem& item, std::vector<std::string> outputs) const {
    finish_item(item.index, pipeline_result(item, std::move(outputs)));
  }
  // A file of the whole job rather than of one item (stitch-360's rig), listed in the report.
  void add_job_output(const std::string& path) const { ledger.add_job_output(path); }
};

// What one run produced beyond the items' records, for the report.
struct BatchOutcome {
  double work_units = 0;             // e.g. megapixels, for throughput
  std::string work_unit_name = "items";
  bool stopped_on_error = false;     // run.on_error fail stopped admitting items
  // SIGINT/SIGTERM ended the run as its normal end (live cameras: every output finished): the job
  // is not "cancelled" and exits 0 when nothing failed.
  bool stop_was_the_end = false;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // subcommand-specific report fields
};

class BatchCommand {
 public:
  virtual ~BatchCommand() = default;
  virtual const config::Schema& schema() const = 0;
  virtual std::string summary() const = 0;  // one line for --help
  // Semantic checks beyond the schema (throw UsageError naming the field).
  virtual void check_config(const config::json& config) const {}
  virtual InputSpec input_spec(const config::json& config) const = 0;
  // Every file each input produces (absolute or relative to the working directory), from the
  // names alone: called for every input of the job before any work, so it must not read the
  // inputs. A file per video frame or per MIP level is planned once with "{frame}" or "{level}"
  // in its name. Throws UsageError for a name that cannot be made.
  virtual std::vector<std::vector<PlannedFile>> planned_outputs(const config::json& config,
                                                                const std::vector<InputItem>& items) const = 0;
  // Processes ctx.items, calling ctx.finish_item once for each item it started.
  virtual BatchOutcome run(BatchContext& ctx) = 0;
  // How the job's threads wait for the GPU (see GpuWait).
  virtual GpuWait gpu_wait(const config::json& config) const { return GpuWait::spin; }
};

// What every subcommand shares: its schema, its one-line summary, its settings reader run on the
// config as the semantic check, and its inputs (the "inputs" patterns, folders read for the
// accepted extensions, recursively when the schema's input.recursive says so). A subcommand adds
// its planned outputs and its run, and overrides input_spec where its inputs are special.
class SettingsCommand : public BatchCommand {
 public:
  template <class ReadSettings>
  SettingsCommand(const config::Schema& schema, std::string summary, std::vector<std::string> extensions,
                  ReadSettings read_settings)
      : schema_(schema), summary_(std::move(summary)), extensions_(std::move(extensions)),
        check_([read_settings](const config::json& config) { read_settings(config); }) {}

  const config::Schema& schema() const override { return schema_; }
  std::string summary() const override { return summary_; }
  void check_config(const config::json& config) const override { check_(config); }
  InputSpec input_spec(const config::json& config) const override;

 private:
  const config::Schema& schema_;
  std::string summary_;
  std::vector<std::string> extensions_;
  std::function<void(const config::json&)> check_;
};

// Loads and validates the config (file + overrides). Throws UsageError.
config::json load_job_config(const BatchCommand& command, const CommonOptions& options);

// The whole job; returns the process exit code. Never throws.
int run_batch_job(BatchCommand& command, const CommonOptions& options);

}  // namespace gp
