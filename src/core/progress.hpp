#pragma once
// Progress on stderr: a bar with rate and ETA on a terminal, JSON lines otherwise (for batch
// logs and CI), or nothing. Item failures are always reported, in the same style, one line each.
#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace gp {

enum class ProgressMode { automatic, bar, json, none };
ProgressMode parse_progress_mode(const std::string& text);  // throws UsageError
// What `automatic` means here: a bar when stderr is a terminal, JSON lines otherwise.
ProgressMode resolve_progress_mode(ProgressMode mode);
// One JSON line on stderr (text that is not UTF-8 gets U+FFFD, never an exception).
void print_json_line(const nlohmann::ordered_json& line);

class Progress {
 public:
  Progress(ProgressMode mode, std::string command, std::size_t total);
  ~Progress();

  void item_done(const std::string& item, bool ok, const std::string& error = {});
  void message(const std::string& level, const std::string& text);  // warnings and notes
  // Where a long item is now (segment-pnm: "watershed: run 7, slab 3 of 6"): a JSON line at
  // most once a second, or the bar's tail.
  void step(const std::string& item, const std::string& text);
  void finish();

  ProgressMode mode() const { return mode_; }

 private:
  void draw_bar(bool force);
  double elapsed_s() const;

  ProgressMode mode_;
  std::string command_;
  std::size_t total_, done_ = 0, failed_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_, last_step_;
  std::string step_;  // the bar's tail
  std::mutex mutex_;
  bool finished_ = false, bar_visible_ = false;
};

}  // namespace gp
