#include "core/batch_job.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "core/library_log.hpp"
#include "core/outputs.hpp"
#include "core/report_numbers.hpp"
#include "core/text.hpp"
#include "core/parallel_for.hpp"
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
  return std::uint64_t(value * scale);
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

double round6(double v) { return std::round(v * 1e6) / 1e6; }

json stage_table() {
  json stages = json::object();
  for (auto& [name, t] : Trace::global().totals()) {
    // Microseconds: a fast GPU stage of a small job takes well under a millisecond.
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
  json j{{"device_peak_bytes", m.device_peak}, {"pinned_peak_bytes", m.pinned_peak}, {"oom_retries", m.oom_retries}};
  if (m.device_limit) j["device_limit_bytes"] = m.device_limit;
  if (m.device_total) {
    j["device_total_bytes"] = m.device_total;
    j["device_free_bytes_at_end"] = m.device_free;
  }
  return j;
}

// One device: its figures. Several: the largest device peak, pinned peaks and out-of-memory
// retries summed (each runtime has its own pinned pool), and each device's figures in "per_device".
json memory_section(const std::vector<std::unique_ptr<Runtime>>& runtimes) {
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
  json j{{"device_peak_bytes", device_peak}, {"pinned_peak_bytes", pinned_peak}, {"oom_retries", oom_retries}};
  if (const std::size_t limit = runtimes.front()->memory_stats().device_limit) j["device_limit_bytes"] = limit;
  j["per_device"] = per_device;
  return j;
}

void write_report(const std::string& path, const json& report) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp);
    out << report.dump(2) << "\n";
    if (!out) throw Error("cannot write report " + tmp);
  });
}

}  // namespace

int run_batch_job(BatchCommand& command, const CommonOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string name = command.schema().command();
  json report{{"gpuproc", {{"version", GPUPROC_VERSION}, {"revision", GPUPROC_GIT_REVISION}}},
              {"command", name},
              {"host", host_name()},
              {"started_at", utc_now()}};
  std::vector<std::unique_ptr<Runtime>> runtimes;  // one per --device entry
  std::unique_ptr<DeviceItemCounts> items_per_device;
  int exit_code = int(ExitCode::ok);
  std::vector<std::string> inputs;
  BatchOutcome outcome;

  auto finish_report = [&](const std::string& status, const std::string& fatal_message) {
    if (options.report_path.empty()) return;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report["status"] = status;
    report["exit_code"] = exit_code;
    report["wall_s"] = round3(wall);
    report["device"] = device_section(options, runtimes, items_per_device.get());
    report["inputs"] = {{"count", inputs.size()}, {"files", inputs}};
    report["outputs"] = {{"count", outcome.outputs.size()}, {"files", outcome.outputs}};
    report["items"] = {{"processed", outcome.processed},
                       {"succeeded", outcome.processed - outcome.failures.size()},
                       {"failed", outcome.failures.size()},
                       {"skipped_complete", outcome.skipped_complete},
                       {"cancelled", outcome.cancelled}};
    report["stages"] = stage_table();
    report["throughput"] = {{"items_per_s", wall > 0 ? round3(outcome.processed / wall) : 0.0}};
    if (outcome.work_unit_name != "items")
      report["throughput"][outcome.work_unit_name + "_per_s"] = wall > 0 ? round3(outcome.work_units / wall) : 0.0;
    report["memory"] = memory_section(runtimes);
    json errors = json::array();
    for (auto& f : outcome.failures)
      errors.push_back({{"item", f.index < inputs.size() ? inputs[f.index] : ""}, {"stage", f.stage}, {"message", f.message}});
    if (!fatal_message.empty()) errors.push_back({{"fatal", fatal_message}});
    report["errors"] = errors;
    report["extra"] = outcome.extra;
    report["library_messages"] = library_message_counts();
    try {
      write_report(options.report_path, report);
    } catch (const std::exception& e) {
      spdlog::error("--report: {}", e.what());
    }
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
    const Shard shard = resolve_shard(options.shard, options.shard_count);
    report["shard"] = shard.str();
    const std::vector<std::string> all_inputs = expand_inputs(command.input_spec(cfg));
    const std::vector<std::size_t> indices = shard_indices(all_inputs.size(), shard);
    for (std::size_t i : indices) inputs.push_back(all_inputs[i]);

    if (options.dry_run) {
      std::cout << fmt::format("{}: {} input(s){}\n", name, inputs.size(),
                               shard.active() ? " in shard " + shard.str() + " of " + std::to_string(all_inputs.size()) : "");
      for (std::size_t k = 0; k < inputs.size(); ++k) {
        std::cout << inputs[k] << "\n";
        for (auto& out : command.planned_outputs(cfg, inputs[k], indices[k])) std::cout << "  -> " << out << "\n";
      }
      return int(ExitCode::ok);
    }

    // --resume: drop items whose outputs all exist (writes are atomic, so existing means complete).
    // Planning outputs reads each input's header, so it is done only when resuming.
    std::vector<std::string> todo;
    std::vector<std::size_t> todo_indices, todo_positions;  // index in all inputs, position in `inputs`
    std::set<std::string> output_dirs;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      bool complete = false;
      if (options.resume) {
        const auto outs = command.planned_outputs(cfg, inputs[k], indices[k]);
        for (auto& o : outs) output_dirs.insert(fs::path(o).parent_path().string());
        complete = !outs.empty();
        for (auto& o : outs) complete = complete && output_complete(o);
      }
      if (complete) {
        outcome.skipped_complete++;
      } else {
        todo.push_back(inputs[k]);
        todo_indices.push_back(indices[k]);
        todo_positions.push_back(k);
      }
    }
    if (options.resume)
      for (auto& dir : output_dirs)
        if (!dir.empty() && fs::is_directory(dir)) remove_stale_temporaries(dir);

    RuntimeOptions ro;
    if (!options.gpu_memory_limit.empty()) ro.gpu_memory_limit = parse_byte_size(options.gpu_memory_limit, "--gpu-memory-limit");
    Trace::global().enable_timeline(!options.trace_path.empty());
    // One runtime per device, each asking the driver in the background (only "all" waits here
    // for the count). --gpu-memory-limit applies to each device.
    for (const DeviceChoice& device : devices.resolve(devices.all_gpus ? cuda_device_count() : 0)) {
      ro.device = device;
      runtimes.push_back(std::make_unique<Runtime>(ro));
    }
    items_per_device = std::make_unique<DeviceItemCounts>(runtimes.size());

    Progress progress(progress_mode, name, todo.size());
    if (outcome.skipped_complete)
      progress.message("info", fmt::format("--resume: {} item(s) already complete", outcome.skipped_complete));
    std::vector<Runtime*> runtime_list;
    for (auto& r : runtimes) runtime_list.push_back(r.get());
    BatchContext ctx{cfg, options, *runtimes.front(), progress, options.resume, runtime_list, items_per_device.get()};
    BatchOutcome run = command.run(ctx, todo, todo_indices);
    run.skipped_complete = outcome.skipped_complete;
    outcome = std::move(run);
    // Failure indices are positions in `todo`; turn them into positions in `inputs` for the report.
    for (auto& f : outcome.failures) f.index = todo_positions[f.index];
    progress.finish();
    if (!options.trace_path.empty()) Trace::global().write_chrome_trace(options.trace_path);
    exit_code = outcome.failures.empty() && !outcome.cancelled ? int(ExitCode::ok) : int(ExitCode::items_failed);
    // The summary, one line per failure; JSON progress has had an item_failed line for each.
    if (!outcome.failures.empty() && progress_mode != ProgressMode::json) {
      std::cerr << fmt::format("{}: {} of {} item(s) failed:\n", name, outcome.failures.size(), todo.size());
      for (auto& f : outcome.failures) std::cerr << "  " << one_line(f.message) << "\n";
    }
    finish_report(exit_code == 0 ? "ok" : "items_failed", "");
    return exit_code;
  } catch (const UsageError& e) {
    std::cerr << "gpuproc " << name << ": " << e.what() << "\n";
    exit_code = int(ExitCode::usage);
    finish_report("usage_error", e.what());
  } catch (const std::exception& e) {
    std::cerr << "gpuproc " << name << ": fatal: " << e.what() << "\n";
    exit_code = int(ExitCode::fatal);
    finish_report("fatal", e.what());
  }
  return exit_code;
}

}  // namespace gp
