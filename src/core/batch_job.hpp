#pragma once
// What every batch subcommand shares: config loading, overrides and validation, input expansion
// and sharding, --dry-run, --resume, the runtime, progress, the run report, the trace, and the
// mapping from outcomes to exit codes. A subcommand implements BatchCommand; run_batch_job does
// the rest.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/gpu_runtime.hpp"
#include "core/inputs.hpp"
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
  std::optional<std::string> shard;
  std::optional<int> shard_count;
  unsigned threads = 0;                // CPU threads for I/O and the CPU path; 0 = all
  bool dry_run = false, resume = false;
  bool fsync = true;                   // --no-fsync: outputs not flushed to disk (see set_outputs_fsync)
  bool verbose = false;                // --verbose: the libraries' own messages on stderr (core/library_log.hpp)
};

// Parses "1.5G", "512MiB", "4096" into bytes. Throws UsageError naming `option`.
std::uint64_t parse_byte_size(const std::string& text, const std::string& option);

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

  int devices() const { return runtimes.empty() ? 1 : int(runtimes.size()); }
  int device_of_worker(int worker) const { return worker % devices(); }
  Runtime& runtime_for_worker(int worker) const {
    return runtimes.empty() ? runtime : *runtimes[std::size_t(device_of_worker(worker))];
  }
  // Worker `worker` took `items` items (counted against its device).
  void count_items(int worker, std::size_t items) const {
    if (items_per_device) items_per_device->add(std::size_t(device_of_worker(worker)), items);
  }
};

// What one run produced, for the report.
struct BatchOutcome {
  std::size_t processed = 0;
  std::size_t skipped_complete = 0;  // --resume: outputs already there
  std::vector<ItemFailure> failures;
  std::vector<std::string> outputs;  // files written
  double work_units = 0;             // e.g. megapixels, for throughput
  std::string work_unit_name = "items";
  bool cancelled = false;
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
  // Every file an input produces (absolute or relative to the working directory).
  virtual std::vector<std::string> planned_outputs(const config::json& config, const std::string& input,
                                                   std::size_t index) const = 0;
  virtual BatchOutcome run(BatchContext& ctx, const std::vector<std::string>& inputs,
                           const std::vector<std::size_t>& input_indices) = 0;
};

// Loads and validates the config (file + overrides). Throws UsageError.
config::json load_job_config(const BatchCommand& command, const CommonOptions& options);

// The whole job; returns the process exit code. Never throws.
int run_batch_job(BatchCommand& command, const CommonOptions& options);

}  // namespace gp
