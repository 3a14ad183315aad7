#pragma once
// What happened to each item of a run: the report's per-item records, the progress lines, and
// the completion records that --resume trusts. An item's outputs are its own only once all of
// them are written: a failed or cancelled item's files are removed, and a completion record
// (output.dir/.gpuproc/complete/) is written after the last of them, so a file that exists is
// never taken for a finished item by itself.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/output_naming.hpp"
#include "core/outputs.hpp"
#include "core/trace.hpp"

namespace gp {

class Progress;

enum class ItemStatus { not_started, ok, failed, cancelled, skipped_complete };
const char* status_name(ItemStatus status);

// How one item ended, as a subcommand reports it.
struct ItemResult {
  bool ok = true;
  bool cancelled = false;            // stopped by SIGINT/SIGTERM part-way (ItemCancelled)
  std::vector<std::string> outputs;  // every file the item wrote in this run, also when it failed
  StageSeconds stage_s;
  std::string error_stage, error;    // when !ok
  std::vector<std::pair<std::string, std::string>> details;  // the record's "details" (how it was processed)
};

// Completion records in a job's output folder: one small JSON file per finished item, naming the
// input (with its size and modification time) and every output with its size.
class CompletionRecords {
 public:
  CompletionRecords(std::string output_dir, std::string command);

  // True when `item` has a record whose input is unchanged and whose outputs all exist with their
  // recorded sizes and include every planned file (a planned "{frame}" pattern needs one match).
  bool complete(const InputItem& item, const std::vector<PlannedFile>& planned) const;
  // The outputs of a complete item (absolute paths, as recorded), nullopt when it is not complete:
  // a video's frame files, known only once it ran, for files that list the job's outputs.
  std::optional<std::vector<std::string>> recorded_outputs(const InputItem& item,
                                                           const std::vector<PlannedFile>& planned) const;
  // Written after the item's last output; durable with them (fsync) unless --no-fsync.
  void record(const InputItem& item, const std::vector<std::string>& outputs);
  // Removes `item`'s record: it is being done again, so its old outputs no longer count.
  void forget(const InputItem& item);
  void commit();  // flushes the record folder's entries

  const std::string& folder() const { return folder_; }

 private:
  std::string path_of(const InputItem& item) const;

  std::string folder_, command_;
  std::mutex mutex_;
  AtomicWriteGroup writes_;
};

// The items of one run (after --resume's skips are known) and how each ended. Thread-safe.
class ItemLedger {
 public:
  // `items`: this shard's items in order; every one starts as not started.
  ItemLedger(std::vector<InputItem> items, CompletionRecords* records);

  const std::vector<InputItem>& items() const { return items_; }
  void mark_skipped(std::size_t position);  // --resume: already complete
  // Records how item `position` ended; removes a failed or cancelled item's outputs, records a
  // finished one's completion, and reports it to `progress`.
  void finish(std::size_t position, ItemResult result, Progress& progress);
  // Marks every item without an outcome cancelled (a stop abandoned them, running or not).
  void abandon_unfinished(const std::string& why);
  // Outputs of the whole job (stitch-360's rig files), listed in the report.
  void add_job_output(const std::string& path);

  struct Counts {
    std::size_t processed = 0, succeeded = 0, failed = 0, cancelled = 0, skipped_complete = 0, not_started = 0;
  };
  Counts counts() const;
  std::vector<std::string> outputs() const;  // sorted
  // One line per failed item: "file: stage: what".
  std::vector<std::string> failure_messages() const;
  nlohmann::ordered_json errors_json() const;   // [{item, stage, message}]
  nlohmann::ordered_json records_json() const;  // [{input, status, outputs, stages, error}]

 private:
  struct Entry {
    ItemStatus status = ItemStatus::not_started;
    ItemResult result;
  };
  std::vector<InputItem> items_;
  CompletionRecords* records_;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::vector<std::string> job_outputs_;
};

}  // namespace gp
