#include "tools/report_merge.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/report_numbers.hpp"

namespace gp::tools {
namespace {

using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

// "2/8" -> {2, 8}; {-1, 1} for an unsharded run ("0/1" or missing).
std::pair<int, int> shard_of(const json& r) {
  const std::string s = r.value("shard", std::string("0/1"));
  const auto slash = s.find('/');
  if (slash == std::string::npos) return {-1, 1};
  try {
    const int index = std::stoi(s.substr(0, slash)), count = std::stoi(s.substr(slash + 1));
    return count > 1 ? std::make_pair(index, count) : std::make_pair(-1, 1);
  } catch (const std::exception&) {
    return {-1, 1};
  }
}

std::vector<std::string> strings_at(const json& r, const char* section) {
  std::vector<std::string> out;
  if (r.contains(section) && r[section].contains("files"))
    for (const json& f : r[section]["files"]) out.push_back(f.get<std::string>());
  return out;
}

std::int64_t count_at(const json& r, const char* key) {
  return r.contains("items") && r["items"].contains(key) ? r["items"][key].get<std::int64_t>() : 0;
}

}  // namespace

ReportMerge merge_reports(const std::vector<json>& reports, const std::vector<std::string>& names) {
  if (reports.empty()) throw UsageError("merge-reports: no reports given");
  ReportMerge m;
  std::string command;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const json& r = reports[i];
    if (!r.is_object() || !r.contains("command") || !r.contains("status"))
      throw UsageError(names[i] + ": not a gpuproc run report (no \"command\" and \"status\")");
    const std::string c = r["command"].get<std::string>();
    if (command.empty()) command = c;
    if (c != command)
      throw UsageError(names[i] + ": a " + c + " report; " + names[0] + " is a " + command + " report");
  }

  // Shards: one count, every index once.
  std::map<int, std::string> seen;
  std::set<int> counts;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto [index, count] = shard_of(reports[i]);
    counts.insert(count);
    if (index < 0) continue;
    if (!seen.emplace(index, names[i]).second)
      m.problems.push_back("shard " + std::to_string(index) + " twice: " + seen[index] + " and " + names[i]);
  }
  if (counts.size() > 1) m.problems.push_back("the reports come from different shard counts");
  const int shard_count = *counts.rbegin();
  if (shard_count > 1)
    for (int k = 0; k < shard_count; ++k)
      if (!seen.count(k)) m.problems.push_back("shard " + std::to_string(k) + "/" + std::to_string(shard_count) + " missing");

  // Inputs: each in one shard only.
  std::map<std::string, std::string> input_shard;
  std::vector<std::string> inputs, outputs;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    for (const std::string& f : strings_at(reports[i], "inputs")) {
      const auto [it, fresh] = input_shard.emplace(f, names[i]);
      if (!fresh) m.problems.push_back(f + ": in two shards (" + it->second + " and " + names[i] + ")");
      else inputs.push_back(f);
    }
    const auto out = strings_at(reports[i], "outputs");
    outputs.insert(outputs.end(), out.begin(), out.end());
  }

  // Sums, stages, errors; the slowest shard's wall time is the job's.
  std::int64_t processed = 0, succeeded = 0, failed = 0, skipped = 0, cancelled = 0, not_started = 0;
  ordered item_records = ordered::array();
  double slowest = 0;
  ordered stages = ordered::object(), errors = ordered::array(), shards = ordered::array();
  std::map<std::string, std::pair<std::int64_t, double>> stage_sums;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const json& r = reports[i];
    processed += count_at(r, "processed");
    succeeded += count_at(r, "succeeded");
    failed += count_at(r, "failed");
    skipped += count_at(r, "skipped_complete");
    cancelled += count_at(r, "cancelled");
    not_started += count_at(r, "not_started");
    if (r.contains("item_records"))
      for (const json& record : r["item_records"]) item_records.push_back(ordered(record));
    const double wall = r.value("wall_s", 0.0);
    slowest = std::max(slowest, wall);
    const std::string status = r["status"].get<std::string>();
    if (status != "ok") m.items_failed = true;
    const std::int64_t undone = count_at(r, "cancelled") + count_at(r, "not_started");
    if (status == "cancelled" || r.value("cancelled", false)) {
      m.cancelled = true;
      m.problems.push_back(names[i] + ": shard " + r.value("shard", std::string("0/1")) + " was stopped" +
                           (r.contains("signal") ? " by " + r["signal"].get<std::string>() : std::string()) + " with " +
                           std::to_string(undone) + " item(s) not done: run it again with --resume");
    }
    shards.push_back({{"report", names[i]}, {"shard", r.value("shard", std::string())}, {"status", status},
                      {"wall_s", wall}, {"processed", count_at(r, "processed")}, {"failed", count_at(r, "failed")},
                      {"host", r.value("host", std::string())}});
    if (r.contains("stages"))
      for (const auto& [name, s] : r["stages"].items()) {
        auto& sum = stage_sums[name];
        sum.first += s.value("count", std::int64_t(0));
        sum.second += s.value("wall_s", 0.0);
      }
    if (r.contains("errors"))
      for (const json& e : r["errors"]) {
        ordered copy = e;
        copy["report"] = names[i];
        errors.push_back(copy);
      }
  }
  for (const auto& [name, sum] : stage_sums) {
    ordered s{{"count", sum.first}, {"wall_s", round3(sum.second)}};
    if (sum.first) s["mean_ms"] = round3(1000.0 * sum.second / double(sum.first));
    stages[name] = s;
  }

  ordered& out = m.report;
  out["command"] = command;
  out["merged_reports"] = reports.size();
  out["status"] = m.cancelled ? "cancelled" : !m.problems.empty() ? "incomplete" : m.items_failed ? "items_failed" : "ok";
  out["shard_count"] = shard_count;
  out["wall_s"] = round3(slowest);
  out["inputs"] = {{"count", inputs.size()}, {"files", inputs}};
  out["outputs"] = {{"count", outputs.size()}, {"files", outputs}};
  out["items"] = {{"processed", processed}, {"succeeded", succeeded},  {"failed", failed},
                  {"skipped_complete", skipped}, {"cancelled", cancelled}, {"not_started", not_started}};
  out["throughput"] = {{"items_per_s", slowest > 0 ? round3(double(processed) / slowest) : 0.0}};
  out["stages"] = stages;
  out["shards"] = shards;
  out["errors"] = errors;
  out["problems"] = m.problems;
  out["item_records"] = item_records;
  return m;
}

}  // namespace gp::tools
