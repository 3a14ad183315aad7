#include "core/batch_job.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "core/gpu_monitor.hpp"
#include "core/library_log.hpp"
#include "core/outputs.hpp"
#include "core/report_numbers.hpp"
#include "core/text.hpp"
#include "core/parallel_for.hpp"
#include "core/stop_signals.hpp"
#include "core/trace.hpp"
#include "gpuproc/build_info.hpp"

namespace gp {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::uint64_t parse_byte_size(const std::string& text, const std::string& option) {
  std::size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(text, &pos);
  } catch (...) {
    pos = 0;
  }
  std::string unit = text.substr(pos);
  for (auto& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
  double scale = 0;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  if (pos == 0 || scale == 0 || value < 0 || !std::isfinite(value))
    throw UsageError(fmt::format("{}: expected a size such as 512M or 2G, got \"{}\"", option, text));
  // Converting a double beyond the integer's range is undefined: 99999999999999999999T must be refused.
  constexpr double largest = 4611686018427387904.0;  // 2^62 bytes (4 EiB)
  if (value * scale > largest) throw UsageError(fmt::format("{}: {} is more than 4 EiB", option, text));
  return std::uint64_t(value * scale);
}

InputSpec SettingsCommand::input_spec(const config::json& config) const {
  InputSpec spec;
  spec.patterns = config.at("inputs").get<std::vector<std::string>>();
  spec.extensions = extensions_;
  const config::json::json_pointer recursive("/input/recursive");
  spec.recursive = config.contains(recursive) && config.at(recursive).get<bool>();
  return spec;
}

config::json load_job_config(const BatchCommand& command, const CommonOptions& options) {
  const auto& schema = command.schema();
  config::json user = options.config_path.empty() ? config::json::object() : config::load_file(options.config_path);
  for (const auto& assignment : options.overrides) config::apply_override(user, assignment);
  if (!options.inputs.empty()) user["inputs"] = options.inputs;
  const std::string source = options.config_path.empty() ? "(command line)" : options.config_path;
  config::json cfg = schema.validate(user, source);
  command.check_config(cfg);
  return cfg;
}

namespace {

std::string host_name() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 ? std::string(buf) : std::string();
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

json stage_table() {
  json stages = json::object();
  for (auto& [name, t] : Trace::global().totals()) {
    json s{{"count", t.count}, {"wall_s", round6(t.wall_s)}};
    if (t.gpu_s > 0) s["gpu_s"] = round6(t.gpu_s);
    if (t.count) s["mean_ms"] = round3(1000 * t.wall_s / t.count);
    stages[name] = s;
  }
  return stages;
}

std::string used_device(const Runtime& runtime) {
  try {
    return runtime.gpu() ? "cuda:" + std::to_string(runtime.device()) : "cpu";
  } catch (const std::exception&) {  // the requested GPU is not there; the error says so
    return "none";
  }
}

json one_device(const Runtime& runtime) {
  json d{{"used", used_device(runtime)}};
  if (auto info = runtime.gpu_info()) {
    d["name"] = info->name;
    d["compute_capability"] = fmt::format("{}.{}", info->cc_major, info->cc_minor);
    d["memory_bytes"] = info->total_bytes;
    d["driver_version"] = info->driver_version;
    d["runtime_version"] = info->runtime_version;
  }
  return d;
}

// The first device's fields at the top, as for one device; with a --device list, "devices" has
// every device with the items its compute workers took.
json device_section(const CommonOptions& options, const std::vector<std::unique_ptr<Runtime>>& runtimes,
                    const DeviceItemCounts* items) {
  json d{{"requested", options.device}};
  if (runtimes.empty()) return d;
  d.update(one_device(*runtimes.front()));
  json devices = json::array();
  for (std::size_t k = 0; k < runtimes.size(); ++k) {
    json entry = one_device(*runtimes[k]);
    if (items && k < items->size()) entry["items"] = (*items)[k];
    devices.push_back(entry);
  }
  d["devices"] = devices;
  return d;
}

json one_memory(const Runtime& runtime) {
  MemoryStats m = runtime.memory_stats();
  json j{{"device_peak_bytes", m.device_peak}, {"pinned_peak_bytes", m.pinned_peak}, {"oom_retries", m.oom_retries},
         {"device_capped", m.device_limit != 0}};
  if (m.device_limit) j["device_limit_bytes"] = m.device_limit;
  if (m.device_total) {
    j["device_total_bytes"] = m.device_total;
    j["device_free_bytes_at_end"] = m.device_free;
    j["device_pool_reserved_bytes_at_end"] = m.device_reserved;
  }
  return j;
}

// One device: its figures. Several: the largest device peak, pinned peaks and out-of-memory
// retries summed (each runtime has its own pinned pool), and each device's figures in "per_device".
json device_memory_section(const std::vector<std::unique_ptr<Runtime>>& runtimes) {
  if (runtimes.empty()) return json::object();
  if (runtimes.size() == 1) return one_memory(*runtimes.front());
  json per_device = json::array();
  std::size_t device_peak = 0, pinned_peak = 0, oom_retries = 0;
  for (const auto& runtime : runtimes) {
    const MemoryStats m = runtime->memory_stats();
    device_peak = std::max(device_peak, m.device_peak);
    pinned_peak += m.pinned_peak;
    oom_retries += m.oom_retries;
    json entry = one_memory(*runtime);
    entry["device"] = used_device(*runtime);
    per_device.push_back(entry);
  }
  const std::size_t limit = runtimes.front()->memory_stats().device_limit;
  json j{{"device_peak_bytes", device_peak}, {"pinned_peak_bytes", pinned_peak}, {"oom_retries", oom_retries},
         {"device_capped", limit != 0}};
  if (limit) j["device_limit_bytes"] = limit;
  j["per_device"] = per_device;
  return j;
}

// The device figures and the process's peak resident host memory (a host memory budget is only
// believable beside what the process really held).
json memory_section(const std::vector<std::unique_ptr<Runtime>>& runtimes, const HostMemoryBudget* host) {
  json j = device_memory_section(runtimes);
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) j["host_peak_rss_bytes"] = std::uint64_t(usage.ru_maxrss) * 1024;
  if (host) {
    j["host_limit_bytes"] = host->limit();
    j["host_peak_reserved_bytes"] = host->peak_reserved();
  }
  return j;
}

void write_report(const std::string& path, const json& report) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp);
    out << report.dump(2) << "\n";
    if (!out.flush()) throw Error("cannot write the report " + path);
  });
}

// An unwritable --report would be found only after all the work: try its folder first.
void check_report_path(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError("--report " + path + ": is a folder");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  const std::string probe = temporary_path_for(path);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  const int saved_errno = errno;
  release_temporary_path(probe);
  if (fd < 0) throw UsageError("--report " + path + ": cannot write there: " + std::strerror(saved_errno));
  ::close(fd);
  fs::remove(probe, ec);
}

// Every output of every input of the job (all shards: two shards must not write the same file).
std::vector<std::vector<PlannedFile>> plan_all_outputs(const BatchCommand& command, const config::json& cfg,
                                                       const std::vector<InputItem>& items) {
  ScopedStage stage("plan");
  std::vector<std::vector<PlannedFile>> plans = command.planned_outputs(cfg, items);
  if (plans.size() != items.size())
    throw Error(fmt::format("{}: planned the outputs of {} inputs, not {}", command.schema().command(), plans.size(),
                            items.size()));
  check_planned_outputs(items, plans, cfg);
  return plans;
}

std::string output_dir_of(const config::json& cfg) {
  return cfg.at(config::json::json_pointer("/output/dir")).get<std::string>();
}

int exit_code_for_signal(int signo) {
  return signo == SIGINT ? int(ExitCode::interrupted) : signo == SIGTERM ? int(ExitCode::terminated) : 128 + signo;
}

}  // namespace

ItemResult pipeline_result(const PipelineItem& item, std::vector<std::string> outputs) {
  ItemResult r;
  r.ok = !item.failed;
  r.cancelled = item.failed && item.failure.cancelled;
  r.outputs = std::move(outputs);
  r.stage_s = item.stage_s;
  r.details = item.details;
  if (item.failed) {
    r.error_stage = item.failure.stage;
    r.error = item.failure.message;
  }
  return r;
}

int run_batch_job(BatchCommand& command, const CommonOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string name = command.schema().command();
  json report{{"gpuproc", {{"version", GPUPROC_VERSION}, {"revision", GPUPROC_GIT_REVISION}}},
              {"command", name},
              {"host", host_name()},
              {"started_at", utc_now()}};
  std::vector<std::unique_ptr<Runtime>> runtimes;  // one per --device entry
  std::unique_ptr<DeviceItemCounts> items_per_device;
  std::unique_ptr<GpuMonitor> gpu_monitor;  // NVML samples of the runtimes' GPUs while the job runs
  std::unique_ptr<HostMemoryBudget> host_memory;
  std::unique_ptr<CompletionRecords> records;
  std::unique_ptr<ItemLedger> ledger;
  std::unique_ptr<Progress> progress;
  int exit_code = int(ExitCode::ok);
  std::vector<std::string> inputs;
  BatchOutcome outcome;
  std::mutex report_mutex;  // the main thread and an abandoning stop both may write it
  bool report_written = false;

  // Writes the report once; false when it could not be written (named on stderr).
  auto finish_report = [&](const std::string& status, const std::string& fatal_message) {
    std::lock_guard<std::mutex> lock(report_mutex);
    if (options.report_path.empty() || report_written) return true;
    report_written = true;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const ItemLedger::Counts counts = ledger ? ledger->counts() : ItemLedger::Counts{};
    report["status"] = status;
    report["exit_code"] = exit_code;
    const bool stopped = stop_requested() && !outcome.stop_was_the_end;
    report["cancelled"] = stopped || outcome.stopped_on_error;
    if (stop_requested()) report["signal"] = signal_name(stop_signal());
    if (stop_requested() && outcome.stop_was_the_end) report["ended_by"] = signal_name(stop_signal());
    report["wall_s"] = round3(wall);
    report["device"] = device_section(options, runtimes, items_per_device.get());
    report["inputs"] = {{"count", inputs.size()}, {"files", inputs}};
    const std::vector<std::string> outputs = ledger ? ledger->outputs() : std::vector<std::string>{};
    report["outputs"] = {{"count", outputs.size()}, {"files", outputs}};
    report["items"] = {{"processed", counts.processed},          {"succeeded", counts.succeeded},
                       {"failed", counts.failed},                {"skipped_complete", counts.skipped_complete},
                       {"cancelled", counts.cancelled},          {"not_started", counts.not_started}};
    report["stages"] = stage_table();
    report["throughput"] = {{"items_per_s", wall > 0 ? round3(counts.processed / wall) : 0.0}};
    if (outcome.work_unit_name != "items")
      report["throughput"][outcome.work_unit_name + "_per_s"] = wall > 0 ? round3(outcome.work_units / wall) : 0.0;
    report["memory"] = memory_section(runtimes, host_memory.get());
    if (gpu_monitor) gpu_monitor->stop();
    report["gpu_monitor"] = gpu_monitor ? gpu_monitor->summary()
                                        : json{{"available", false}, {"why", "the job ended before its devices were opened"}};
    json errors = ledger ? ledger->errors_json() : json::array();
    if (!fatal_message.empty()) errors.push_back({{"fatal", fatal_message}});
    report["errors"] = errors;
    report["item_records"] = ledger ? ledger->records_json() : json::array();
    report["extra"] = outcome.extra;
    report["library_messages"] = library_message_counts();
    try {
      write_report(options.report_path, report);
      return true;
    } catch (const std::exception& e) {
      std::cerr << "gpuproc " << name << ": --report " << options.report_path << ": " << e.what() << "\n";
      return false;
    }
  };
  auto message = [&](const std::string& level, const std::string& text) {
    if (progress) progress->message(level, text);
    else std::cerr << "gpuproc " << name << ": " << text << "\n";
  };

  // SIGINT/SIGTERM: admit nothing more; after the grace time (or a second signal), abandon the
  // running items: remove this run's temporaries, write the report and exit.
  const auto grace = std::chrono::milliseconds(std::llround(std::max(0.0, options.stop_timeout_s) * 1000));
  StopSignals signals(
      grace,
      [&](int signo) {
        message("warning", fmt::format("{}: stopping: no new items; running items get {} s to finish "
                                       "(send it again to stop now)",
                                       signal_name(signo), options.stop_timeout_s));
      },
      [&](int signo) {
        int removed = remove_own_temporaries();
        exit_code = exit_code_for_signal(signo);
        if (ledger) ledger->abandon_unfinished("not finished when the run stopped (" + signal_name(signo) + ")");
        finish_report("cancelled", "");  // needs a temporary of its own: before the registry closes
        // Closed for good: running writers get no new temporary; the last pass removes what one
        // was still creating during the first.
        removed += remove_own_temporaries(true);
        message("warning", fmt::format("{}: stopped with items still running (--resume redoes them); {} temporary "
                                       "file(s) removed",
                                       signal_name(signo), removed));
        if (progress) progress->finish();
        remove_own_temporaries(true);
        std::cerr.flush();
        std::_Exit(exit_code);
      });

  // An error that ends the job: one line on stderr (an event in --progress json once it began), the report.
  auto job_error = [&](const std::string& status, const std::string& what) {
    if (progress && progress->mode() == ProgressMode::json)
      progress->message(status == "fatal" ? "fatal" : "error", what);
    else
      std::cerr << "gpuproc " << name << ": " << (status == "fatal" ? "fatal: " : "") << what << "\n";
    if (signals.begin_finishing()) finish_report(status, what);
  };

  // The end of a run that got going: summary on stderr (JSON lines in --progress json), report,
  // exit code.
  auto finish_run = [&]() {
    if (records) {
      ScopedStage stage("completion records");
      records->commit();
    }
    if (!options.trace_path.empty()) Trace::global().write_chrome_trace(options.trace_path);
    const ItemLedger::Counts counts = ledger->counts();
    const std::vector<std::string> failures = ledger->failure_messages();
    const bool json_lines = progress->mode() == ProgressMode::json;
    if (!failures.empty() && !json_lines) {  // JSON lines had an item_failed event each
      std::cerr << fmt::format("{}: {} of {} item(s) failed:\n", name, failures.size(), counts.processed);
      for (const auto& f : failures) std::cerr << "  " << one_line(f) << "\n";
    }
    const std::size_t unfinished = counts.not_started + counts.cancelled;
    const bool stopped = stop_requested() && !outcome.stop_was_the_end;
    if (unfinished) {
      const std::string why = stopped ? signal_name(stop_signal())
                              : outcome.stopped_on_error ? std::string("run.on_error is fail")
                                                         : std::string("the run stopped");
      const std::string text = fmt::format("{} item(s) not done ({} not started, {} cancelled): {}", unfinished,
                                           counts.not_started, counts.cancelled, why);
      if (json_lines) progress->message("warning", text);
      else std::cerr << name << ": " << text << "\n";
    }
    progress->finish();
    std::string status = "ok";
    exit_code = int(ExitCode::ok);
    if (stopped) {
      status = "cancelled";
      exit_code = exit_code_for_signal(stop_signal());
      remove_own_temporaries();
    } else if (counts.failed || unfinished) {
      status = "items_failed";
      exit_code = int(ExitCode::items_failed);
    }
    if (!signals.begin_finishing()) return exit_code;  // an abandoning stop is writing it
    if (!finish_report(status, "")) exit_code = int(ExitCode::fatal);
    return exit_code;
  };

  try {
    const ProgressMode progress_mode = resolve_progress_mode(parse_progress_mode(options.progress));
    set_library_log(options.verbose, progress_mode == ProgressMode::json);
    const DeviceSelection devices = DeviceSelection::parse(options.device);
    if (options.threads) cpu_threads_setting() = options.threads;
    set_outputs_fsync(options.fsync);
    report["outputs_fsync"] = options.fsync;
    const config::json cfg = load_job_config(command, options);
    report["config_source"] = options.config_path;
    report["config"] = cfg;
    if (!options.report_path.empty()) check_report_path(options.report_path);
    const Shard shard = resolve_shard(options.shard, options.shard_count);
    report["shard"] = shard.str();
    const std::vector<InputItem> all_items = make_input_items(expand_inputs(command.input_spec(cfg), cfg));
    const std::vector<std::vector<PlannedFile>> plans = plan_all_outputs(command, cfg, all_items);
    const std::vector<std::size_t> indices = shard_indices(all_items.size(), shard);
    std::vector<InputItem> shard_items;
    for (std::size_t i : indices) {
      shard_items.push_back(all_items[i]);
      inputs.push_back(all_items[i].path);
    }

    if (options.dry_run) {
      std::cout << fmt::format("{}: {} input(s){}\n", name, inputs.size(),
                               shard.active() ? " in shard " + shard.str() + " of " + std::to_string(all_items.size()) : "");
      for (std::size_t i : indices) {
        std::cout << all_items[i].path << "\n";
        for (const PlannedFile& out : plans[i]) std::cout << "  -> " << out.path << "\n";
      }
      return int(ExitCode::ok);
    }

    // --resume: skip items whose completion record says they finished and whose outputs are
    // still there; everything else is done again, its old record gone first.
    const std::string output_dir = output_dir_of(cfg);
    records = std::make_unique<CompletionRecords>(output_dir, name);
    ledger = std::make_unique<ItemLedger>(shard_items, records.get());
    std::vector<InputItem> todo;
    std::vector<std::size_t> todo_positions;
    for (std::size_t k = 0; k < shard_items.size(); ++k) {
      if (options.resume && !is_live_source(shard_items[k].path) && records->complete(shard_items[k], plans[indices[k]])) {
        ledger->mark_skipped(k);
        continue;
      }
      records->forget(shard_items[k]);
      todo.push_back(shard_items[k]);
      todo_positions.push_back(k);
    }
    if (options.resume && fs::is_directory(output_dir)) remove_stale_temporaries(output_dir);

    host_memory = std::make_unique<HostMemoryBudget>(
        options.host_memory_limit.empty() ? default_host_memory_limit()
                                          : parse_byte_size(options.host_memory_limit, "--host-memory-limit"));
    RuntimeOptions ro;
    ro.wait = command.gpu_wait(cfg);
    if (!options.gpu_memory_limit.empty()) ro.gpu_memory_limit = parse_byte_size(options.gpu_memory_limit, "--gpu-memory-limit");
    Trace::global().enable_timeline(!options.trace_path.empty());
    // One runtime per device, each asking the driver in the background (only "all" waits here
    // for the count). --gpu-memory-limit applies to each device.
    for (const DeviceChoice& device : devices.resolve(devices.all_gpus ? cuda_device_count() : 0)) {
      ro.device = device;
      runtimes.push_back(std::make_unique<Runtime>(ro));
    }
    items_per_device = std::make_unique<DeviceItemCounts>(runtimes.size());
    std::vector<const Runtime*> monitored;
    for (auto& r : runtimes) monitored.push_back(r.get());
    gpu_monitor = std::make_unique<GpuMonitor>(monitored, std::chrono::milliseconds(options.gpu_monitor_ms));

    progress = std::make_unique<Progress>(progress_mode, name, todo.size());
    if (const std::size_t skipped = ledger->counts().skipped_complete)
      progress->message("info", fmt::format("--resume: {} item(s) already complete", skipped));
    std::vector<Runtime*> runtime_list;
    for (auto& r : runtimes) runtime_list.push_back(r.get());
    BatchContext ctx{cfg,  options, *runtimes.front(), *progress, options.resume, runtime_list, items_per_device.get(),
                     todo, *ledger, todo_positions, all_items, plans, *records, *host_memory};
    if (!stop_requested()) outcome = command.run(ctx);
    return finish_run();
  } catch (const UsageError& e) {
    exit_code = int(ExitCode::usage);
    job_error("usage_error", e.what());
  } catch (const std::exception& e) {
    exit_code = int(ExitCode::fatal);
    job_error("fatal", describe(e));
  }
  if (progress) progress->finish();
  remove_own_temporaries();
  return exit_code;
}

}  // namespace gp
