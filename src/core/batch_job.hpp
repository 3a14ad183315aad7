#pragma once
// What every batch subcommand shares: config loading, overrides and validation, input expansion
// and sharding, --dry-run, --resume, the runtime, progress, the run report, the trace, and the
// mapping from outcomes to exit codes. A subcommand implements BatchCommand; run_batch_job does
// the rest.
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
};

// Parses "1.5G", "512MiB", "4096" into bytes. Throws UsageError naming `option`.
std::uint64_t parse_byte_size(const std::string& text, const std::string& option);

struct BatchContext {
  const config::json& config;
  const CommonOptions& options;
  Runtime& runtime;
  Progress& progress;
  bool resume;
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
