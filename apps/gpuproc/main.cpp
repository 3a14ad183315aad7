// gpuproc: command-line wiring only. The work lives in src/.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "compare_command.hpp"
#include "core/batch_job.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "info.hpp"
#include "merge_reports_command.hpp"

namespace {

using gp::ExitCode;

void add_batch_options(CLI::App& sub, gp::CommonOptions& o, bool& print_config) {
  // A later occurrence of a single-valued option wins, so scripts can append to a base command.
  sub.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  sub.add_option("inputs", o.inputs, "input files, folders, globs or @list files (replace the config's \"inputs\")")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.add_option("-c,--config", o.config_path, "job config (JSON; see --print-config)");
  sub.add_option("--set", o.overrides, "override a config field: key.path=value (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub.add_option("--device", o.device, "auto (GPU 0 when present), cpu, cuda:N, or several GPUs: cuda:0,1 or all")->capture_default_str();
  sub.add_option("--report", o.report_path, "write a JSON run report here");
  sub.add_option("--trace", o.trace_path, "write a Chrome/Perfetto trace of the stages here");
  sub.add_option("--progress", o.progress, "auto (bar on a terminal, JSON lines otherwise), bar, json, none")
      ->capture_default_str();
  sub.add_option("--gpu-memory-limit", o.gpu_memory_limit, "cap on GPU memory this job uses, e.g. 512M, 2G");
  sub.add_option("--host-memory-limit", o.host_memory_limit,
                 "cap on the host memory large buffers take, e.g. 32G (default: 3/4 of the RAM or the cgroup's limit); "
                 "segment-pnm keeps what does not fit in scratch files (run.scratch_dir)");
  sub.add_option("--shard", o.shard, "process shard i/N of the inputs (0-based; default from Slurm/Kubernetes)");
  sub.add_option("--shard-count", o.shard_count, "shard count to pair with JOB_COMPLETION_INDEX (Kubernetes)");
  sub.add_option("--threads", o.threads, "CPU threads for the CPU path (0 = all)");
  sub.add_flag("--dry-run", o.dry_run, "list the inputs and the outputs each would produce; do nothing");
  sub.add_flag("--resume", o.resume, "skip inputs whose outputs are all complete");
  sub.add_flag("!--no-fsync", o.fsync,
               "don't flush each output to disk before renaming it into place: faster on slow or network disks; "
               "a power loss can then leave empty or short files (a killed run still leaves none)");
  sub.add_option("--stop-timeout", o.stop_timeout_s,
                 "seconds running items get to finish after SIGINT/SIGTERM before they are abandoned "
                 "(a second signal abandons them at once)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  sub.add_flag("--verbose", o.verbose,
               "print what the libraries say (libav, DCMTK...) on stderr, one line each (JSON with JSON progress); "
               "otherwise only counted in the report");
  sub.add_option("--gpu-monitor", o.gpu_monitor_ms,
                 "sample the GPUs with NVML every this many milliseconds (report and trace); 0 = off")
      ->capture_default_str()
      ->check(CLI::Range(0, 60000));
  sub.add_flag("--print-config", print_config, "print a complete, documented example config and exit");
}

// CLI11 answers an unknown subcommand with "A subcommand is required": name it instead.
void check_subcommand_name(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  const std::string word = argv[1];
  std::vector<std::string> known;
  for (const CLI::App* sub : app.get_subcommands({})) known.push_back(sub->get_name());
  if (std::find(known.begin(), known.end(), word) != known.end()) return;
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  const std::string guess = gp::config::did_you_mean(word, known);
  throw gp::UsageError("unknown subcommand \"" + word + "\"" + (guess.empty() ? "" : " (did you mean \"" + guess + "\"?)") +
                       "; the subcommands are " + list);
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("gpuproc"));
  spdlog::set_pattern("%^%l%$: %v");

  CLI::App app{"gpuproc: GPU batch processing of images and volumes, driven by JSON job configs.\n"
               "Exit codes: 0 all done, 1 some items failed, 2 usage or config error, 3 fatal error."};
  app.require_subcommand(1);
  app.set_version_flag("--version", gp::app::version_text());

  // Batch subcommands.
  gp::CommonOptions options;
  bool print_config = false;
  std::map<CLI::App*, std::string> batch_subs;
  for (const auto& [name, factory] : gp::app::batch_commands()) {
    auto* sub = app.add_subcommand(name, factory()->summary());
    add_batch_options(*sub, options, print_config);
    batch_subs[sub] = name;
  }

  bool info_json = false;
  auto* info = app.add_subcommand("info", "GPUs, driver, memory, library versions and built features");
  info->add_flag("--json", info_json, "as JSON");

  std::string validate_path;
  auto* validate = app.add_subcommand("validate", "check a job config without running it (exit 0 valid, 2 not)");
  validate->add_option("config", validate_path, "job config with a \"command\" field")->required();

  gp::app::CompareArgs compare_args;
  auto* compare = app.add_subcommand("compare", "compare outputs: files or folders (exit 0 same, 1 different, 2 cannot compare)");
  gp::app::add_compare_options(*compare, compare_args);

  gp::app::MergeReportsArgs merge_args;
  auto* merge = app.add_subcommand("merge-reports",
                                   "combine the run reports of a sharded job; checks every shard is there once "
                                   "(exit 0 complete and ok, 1 failed items or shards missing)");
  gp::app::add_merge_reports_options(*merge, merge_args);

  try {
    check_subcommand_name(app, argc, argv);
    app.parse(argc, argv);
  } catch (const gp::UsageError& e) {
    std::cerr << "gpuproc: " << e.what() << "\n";
    return int(ExitCode::usage);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : int(ExitCode::usage);
  }

  try {
    if (*info) return gp::app::run_info(info_json);
    if (*compare) return gp::app::run_compare(compare_args);
    if (*merge) return gp::app::run_merge_reports(merge_args);
    if (*validate) {
      auto cfg = gp::config::load_file(validate_path);
      if (!cfg.is_object() || !cfg.contains("command") || !cfg["command"].is_string())
        throw gp::UsageError(validate_path + ": needs a \"command\" field naming the subcommand");
      const std::string name = cfg["command"].get<std::string>();
      auto it = gp::app::batch_commands().find(name);
      if (it == gp::app::batch_commands().end())
        throw gp::UsageError(validate_path + ": /command: unknown subcommand \"" + name + "\"");
      gp::CommonOptions vo;
      vo.config_path = validate_path;
      gp::load_job_config(*it->second(), vo);
      std::cout << validate_path << ": valid " << name << " config\n";
      return 0;
    }
    for (const auto& [sub, name] : batch_subs) {
      if (!*sub) continue;
      auto cmd = gp::app::batch_commands().at(name)();
      if (print_config) {
        std::cout << cmd->schema().documented_example();
        return 0;
      }
      return gp::run_batch_job(*cmd, options);
    }
  } catch (const gp::UsageError& e) {
    std::cerr << "gpuproc: " << e.what() << "\n";
    return int(ExitCode::usage);
  } catch (const std::exception& e) {
    std::cerr << "gpuproc: fatal: " << e.what() << "\n";
    return int(ExitCode::fatal);
  }
  return int(ExitCode::usage);
}
