#include "core/item_ledger.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/report_numbers.hpp"
#include "core/text.hpp"

namespace gp {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// Completion records are small; anything larger is not one of ours.
constexpr std::uintmax_t largest_record = 64u << 20;

std::string absolute_normal(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  return (ec ? fs::path(path) : p).lexically_normal().string();
}

// An input's size and modification time: a changed input is not complete, whatever was recorded.
// Folders (DICOM series, image sequences) count by their time only.
std::optional<json> input_fingerprint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  json j{{"mtime_ns", std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec}};
  if (!S_ISDIR(st.st_mode)) j["size"] = std::int64_t(st.st_size);
  return j;
}

std::optional<std::uintmax_t> file_size_of(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  return size;
}

// Whether `path` is what a planned file names: the same path, or for a pattern with placeholders
// ("{frame}", "{time}", "{level}") a path with the pattern's text between them, in order, each
// placeholder standing for at least one character (a video's names carry both frame and time).
bool matches_planned(const std::string& path, const std::string& planned) {
  std::vector<std::string> pieces{""};  // the literal text around the placeholders
  for (std::size_t i = 0; i < planned.size();) {
    bool placeholder = false;
    for (const std::string p : {"{frame}", "{time}", "{level}"})
      if (planned.compare(i, p.size(), p) == 0) {
        pieces.emplace_back();
        i += p.size();
        placeholder = true;
        break;
      }
    if (!placeholder) pieces.back() += planned[i++];
  }
  if (pieces.size() == 1) return path == planned;
  const std::string &first = pieces.front(), &last = pieces.back();
  if (path.size() < first.size() + last.size() + (pieces.size() - 1) || path.compare(0, first.size(), first) != 0 ||
      path.compare(path.size() - last.size(), last.size(), last) != 0)
    return false;
  // The middle pieces, each at its leftmost place after a placeholder's first character: the
  // leftmost match leaves the most room for the rest, so it fails only when no match exists.
  std::size_t at = first.size() + 1;
  const std::size_t end = path.size() - last.size();
  for (std::size_t k = 1; k + 1 < pieces.size(); ++k) {
    const std::size_t found = path.find(pieces[k], at);
    if (found == std::string::npos || found + pieces[k].size() > end) return false;
    at = found + pieces[k].size() + 1;
  }
  return at <= end;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

const char* status_name(ItemStatus status) {
  switch (status) {
    case ItemStatus::not_started: return "not_started";
    case ItemStatus::ok: return "ok";
    case ItemStatus::failed: return "failed";
    case ItemStatus::cancelled: return "cancelled";
    case ItemStatus::skipped_complete: return "skipped_complete";
  }
  return "?";
}

// ---- completion records -------------------------------------------------------------------------

CompletionRecords::CompletionRecords(std::string output_dir, std::string command)
    : folder_((fs::path(output_dir.empty() ? "." : output_dir) / ".gpuproc" / "complete").lexically_normal().string()),
      command_(std::move(command)) {}

std::string CompletionRecords::path_of(const InputItem& item) const {
  return (fs::path(folder_) / fmt::format("{}-{:016x}.json", command_, fnv1a64(absolute_normal(item.path)))).string();
}

bool CompletionRecords::complete(const InputItem& item, const std::vector<PlannedFile>& planned) const {
  return recorded_outputs(item, planned).has_value();
}

std::optional<std::vector<std::string>> CompletionRecords::recorded_outputs(const InputItem& item,
                                                                            const std::vector<PlannedFile>& planned) const {
  const std::string path = path_of(item);
  const auto size = file_size_of(path);
  if (!size || *size > largest_record) return std::nullopt;
  json record;
  try {
    std::ifstream in(path);
    record = json::parse(in);
    if (record.at("command") != command_ || record.at("input") != absolute_normal(item.path)) return std::nullopt;
    const auto fingerprint = input_fingerprint(item.path);
    if (!fingerprint || record.at("input_fingerprint") != *fingerprint) return std::nullopt;
    const fs::path base = fs::path(path).parent_path().parent_path().parent_path();  // the output folder
    std::vector<std::string> outputs;
    for (const json& out : record.at("outputs")) {
      const std::string file = (base / out.at("path").get<std::string>()).lexically_normal().string();
      const auto out_size = file_size_of(file);
      if (!out_size || *out_size != out.at("size").get<std::uintmax_t>()) return std::nullopt;
      outputs.push_back(absolute_normal(file));
    }
    for (const PlannedFile& p : planned) {
      const std::string want = absolute_normal(p.path);
      if (std::none_of(outputs.begin(), outputs.end(), [&](const std::string& o) { return matches_planned(o, want); }))
        return std::nullopt;
    }
    return outputs;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable or not ours: the item is done again
  }
}

void CompletionRecords::record(const InputItem& item, const std::vector<std::string>& outputs) {
  const std::string path = path_of(item);
  const fs::path base = fs::path(absolute_normal(path)).parent_path().parent_path().parent_path();
  json files = json::array();
  for (const std::string& out : outputs) {
    const auto size = file_size_of(out);
    if (!size) throw Error(out + ": listed as written but not there");
    files.push_back({{"path", fs::path(absolute_normal(out)).lexically_relative(base).string()}, {"size", *size}});
  }
  const json record{{"command", command_},
                    {"input", absolute_normal(item.path)},
                    {"input_fingerprint", input_fingerprint(item.path).value_or(json::object())},
                    {"outputs", files},
                    {"finished_at", utc_now()}};
  std::lock_guard<std::mutex> lock(mutex_);
  writes_.write(path, [&](const std::string& temp) {
    std::ofstream out(temp);
    out << record.dump() << "\n";
    if (!out.flush()) throw Error(path + ": cannot write the completion record");
  });
}

void CompletionRecords::forget(const InputItem& item) {
  std::error_code ec;
  fs::remove(path_of(item), ec);
}

void CompletionRecords::commit() {
  std::lock_guard<std::mutex> lock(mutex_);
  writes_.commit();
}

// ---- ledger -------------------------------------------------------------------------------------

ItemLedger::ItemLedger(std::vector<InputItem> items, CompletionRecords* records)
    : items_(std::move(items)), records_(records), entries_(items_.size()) {}

void ItemLedger::mark_skipped(std::size_t position) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.at(position).status = ItemStatus::skipped_complete;
}

void ItemLedger::finish(std::size_t position, ItemResult result, Progress& progress) {
  const InputItem& item = items_.at(position);
  if (result.ok && records_) {
    try {
      records_->record(item, result.outputs);
    } catch (const std::exception& e) {
      result.ok = false;
      result.error_stage = "record";
      result.error = item.path + ": record: " + e.what();
    }
  }
  if (!result.ok) {
    // Its outputs are not a finished item's: none of them stays under its final name.
    for (const std::string& out : result.outputs) {
      std::error_code ec;
      fs::remove(out, ec);
    }
    result.outputs.clear();
  }
  std::sort(result.outputs.begin(), result.outputs.end());
  const ItemStatus status = result.ok ? ItemStatus::ok : result.cancelled ? ItemStatus::cancelled : ItemStatus::failed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.at(position) = Entry{status, std::move(result)};
  }
  // Cancelled items are counted in the summary, not listed one by one: the stop's cause is named once.
  if (status != ItemStatus::cancelled)
    progress.item_done(item.path, status == ItemStatus::ok, entries_[position].result.error);
}

void ItemLedger::abandon_unfinished(const std::string& why) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (e.status != ItemStatus::not_started) continue;
    e.status = ItemStatus::cancelled;
    e.result.ok = false;
    e.result.error_stage = "stop";
    e.result.error = items_[i].path + ": " + why;
  }
}

void ItemLedger::add_job_output(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  job_outputs_.push_back(path);
}

ItemLedger::Counts ItemLedger::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Counts c;
  for (const Entry& e : entries_) {
    switch (e.status) {
      case ItemStatus::not_started: c.not_started++; break;
      case ItemStatus::ok: c.succeeded++; break;
      case ItemStatus::failed: c.failed++; break;
      case ItemStatus::cancelled: c.cancelled++; break;
      case ItemStatus::skipped_complete: c.skipped_complete++; break;
    }
  }
  c.processed = c.succeeded + c.failed + c.cancelled;
  return c;
}

std::vector<std::string> ItemLedger::outputs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out = job_outputs_;
  for (const Entry& e : entries_) out.insert(out.end(), e.result.outputs.begin(), e.result.outputs.end());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> ItemLedger::failure_messages() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> lines;
  for (const Entry& e : entries_)
    if (e.status == ItemStatus::failed) lines.push_back(e.result.error);
  return lines;
}

json ItemLedger::errors_json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  json errors = json::array();
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].status == ItemStatus::failed)
      errors.push_back({{"item", items_[i].path}, {"stage", entries_[i].result.error_stage}, {"message", entries_[i].result.error}});
  return errors;
}

json ItemLedger::records_json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  json records = json::array();
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    json stages = json::object();
    for (const auto& [stage, seconds] : e.result.stage_s) stages[stage] = round6(seconds);
    json r{{"input", items_[i].path}, {"index", items_[i].index}, {"status", status_name(e.status)},
           {"outputs", e.result.outputs}, {"stages_s", stages}};
    if (!e.result.details.empty()) {
      json details = json::object();
      for (const auto& [key, value] : e.result.details) details[key] = value;
      r["details"] = details;
    }
    if (e.status == ItemStatus::failed || e.status == ItemStatus::cancelled)
      r["error"] = {{"stage", e.result.error_stage}, {"message", e.result.error}};
    records.push_back(r);
  }
  return records;
}

}  // namespace gp
