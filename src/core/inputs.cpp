#include "core/inputs.hpp"

#include <glob.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.hpp"

namespace gp {
namespace fs = std::filesystem;
namespace {

bool has_wildcard(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool extension_accepted(const fs::path& p, const std::vector<std::string>& extensions) {
  if (extensions.empty()) return true;
  const std::string ext = lower(p.extension().string());
  return std::find(extensions.begin(), extensions.end(), ext) != extensions.end();
}

void add_directory(const fs::path& dir, const InputSpec& spec, std::set<std::string>& out) {
  std::error_code ec;
  auto add = [&](const fs::directory_entry& e) {
    if (e.is_regular_file() && extension_accepted(e.path(), spec.extensions) && e.path().filename().string()[0] != '.')
      out.insert(e.path().string());
  };
  if (spec.recursive) {
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) add(*it);
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) add(*it);
  }
  if (ec) throw UsageError(dir.string() + ": cannot list the folder: " + ec.message());
}

void add_pattern(const std::string& pattern, const InputSpec& spec, std::set<std::string>& out, int depth);

void add_list_file(const std::string& list, const InputSpec& spec, std::set<std::string>& out, int depth) {
  if (depth > 8) throw UsageError(list + ": list files nest too deeply");
  std::ifstream in(list);
  if (!in) throw UsageError(list + ": cannot read the list file");
  const fs::path base = fs::path(list).parent_path();
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty()) continue;
    const fs::path p(line);
    add_pattern(p.is_absolute() || base.empty() ? line : (base / p).string(), spec, out, depth + 1);
  }
}

void add_pattern(const std::string& pattern, const InputSpec& spec, std::set<std::string>& out, int depth) {
  if (pattern.empty()) throw UsageError("inputs: empty input name");
  if (pattern[0] == '@') return add_list_file(pattern.substr(1), spec, out, depth);
  if (has_wildcard(pattern)) {
    glob_t g{};
    const int rc = ::glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g);
    std::vector<std::string> matches(g.gl_pathv, g.gl_pathv + g.gl_pathc);
    globfree(&g);
    if (rc == GLOB_NOMATCH || matches.empty()) throw UsageError(pattern + ": no file matches this pattern");
    if (rc != 0) throw UsageError(pattern + ": cannot expand this pattern");
    for (auto& m : matches) {
      if (fs::is_directory(m)) add_directory(m, spec, out);
      else out.insert(m);
    }
    return;
  }
  std::error_code ec;
  const auto status = fs::status(pattern, ec);
  if (ec || !fs::exists(status)) throw UsageError(pattern + ": no such file or folder");
  if (fs::is_directory(status)) add_directory(pattern, spec, out);
  else out.insert(pattern);
}

int parse_int(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > 1000000) throw UsageError(what + ": expected a non-negative integer, got \"" + text + "\"");
  return int(v);
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

}  // namespace

std::vector<std::string> expand_inputs(const InputSpec& spec) {
  std::set<std::string> out;  // sorted by bytes, duplicates gone
  for (const auto& p : spec.patterns) add_pattern(p, spec, out, 0);
  return {out.begin(), out.end()};
}

std::string Shard::str() const { return std::to_string(index) + "/" + std::to_string(count); }

Shard resolve_shard(const std::optional<std::string>& cli_shard, std::optional<int> shard_count) {
  Shard s;
  if (cli_shard) {
    const auto slash = cli_shard->find('/');
    if (slash == std::string::npos) throw UsageError("--shard: expected i/N, got \"" + *cli_shard + "\"");
    s.index = parse_int(cli_shard->substr(0, slash), "--shard");
    s.count = parse_int(cli_shard->substr(slash + 1), "--shard");
  } else if (const char* id = env("SLURM_ARRAY_TASK_ID")) {
    const char* count = env("SLURM_ARRAY_TASK_COUNT");
    if (!count) throw UsageError("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
    // Arrays may start at any index (--array=1-8): shards count from the first task.
    const int min = env("SLURM_ARRAY_TASK_MIN") ? parse_int(env("SLURM_ARRAY_TASK_MIN"), "SLURM_ARRAY_TASK_MIN") : 0;
    s.index = parse_int(id, "SLURM_ARRAY_TASK_ID") - min;
    s.count = parse_int(count, "SLURM_ARRAY_TASK_COUNT");
  } else if (const char* idx = env("JOB_COMPLETION_INDEX")) {
    const char* count_env = env("GPUPROC_SHARD_COUNT");
    if (!shard_count && !count_env)
      throw UsageError("JOB_COMPLETION_INDEX is set: give the shard count with --shard-count N (or GPUPROC_SHARD_COUNT)");
    s.index = parse_int(idx, "JOB_COMPLETION_INDEX");
    s.count = shard_count ? *shard_count : parse_int(count_env, "GPUPROC_SHARD_COUNT");
  }
  if (s.count < 1) throw UsageError("shard count must be at least 1, got " + std::to_string(s.count));
  if (s.index < 0 || s.index >= s.count)
    throw UsageError("shard index " + std::to_string(s.index) + " is outside 0.." + std::to_string(s.count - 1));
  return s;
}

std::vector<std::string> select_shard(const std::vector<std::string>& items, const Shard& shard) {
  std::vector<std::string> out;
  for (std::size_t i = std::size_t(shard.index); i < items.size(); i += std::size_t(shard.count)) out.push_back(items[i]);
  return out;
}

}  // namespace gp
