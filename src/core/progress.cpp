#include "core/progress.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "core/text.hpp"

namespace gp {

ProgressMode parse_progress_mode(const std::string& text) {
  if (text == "auto") return ProgressMode::automatic;
  if (text == "bar") return ProgressMode::bar;
  if (text == "json") return ProgressMode::json;
  if (text == "none") return ProgressMode::none;
  throw UsageError("--progress: expected auto, bar, json or none, got \"" + text + "\"");
}

ProgressMode resolve_progress_mode(ProgressMode mode) {
  if (mode != ProgressMode::automatic) return mode;
  return ::isatty(STDERR_FILENO) ? ProgressMode::bar : ProgressMode::json;
}

void print_json_line(const nlohmann::ordered_json& line) {
  std::fprintf(stderr, "%s\n", line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
}

Progress::Progress(ProgressMode mode, std::string command, std::size_t total)
    : mode_(resolve_progress_mode(mode)), command_(std::move(command)), total_(total),
      start_(std::chrono::steady_clock::now()) {
  if (mode_ == ProgressMode::json) {
    nlohmann::ordered_json j{{"event", "start"}, {"command", command_}, {"total", total_}};
    print_json_line(j);
  }
}

Progress::~Progress() { finish(); }

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::item_done(const std::string& item, bool ok, const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  done_++;
  if (!ok) failed_++;
  step_.clear();
  const double t = elapsed_s();
  const double rate = t > 0 ? done_ / t : 0;
  const double eta = rate > 0 ? (total_ - done_) / rate : 0;
  switch (mode_) {
    case ProgressMode::json: {
      nlohmann::ordered_json j{{"event", ok ? "item" : "item_failed"}, {"item", item}, {"done", done_},
                               {"total", total_}, {"failed", failed_}, {"rate_per_s", std::round(rate * 100) / 100},
                               {"eta_s", std::round(eta * 10) / 10}};
      if (!ok) j["error"] = error;
      print_json_line(j);
      break;
    }
    case ProgressMode::bar:
      if (!ok) {
        std::fprintf(stderr, "\r\033[K");
        std::fprintf(stderr, "error: %s\n", one_line(error).c_str());
      }
      draw_bar(!ok || done_ == total_);
      break;
    default:
      if (!ok) std::fprintf(stderr, "error: %s\n", one_line(error).c_str());
  }
}

void Progress::message(const std::string& level, const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (mode_ == ProgressMode::json) {
    nlohmann::ordered_json j{{"event", "message"}, {"level", level}, {"text", text}};
    print_json_line(j);
    return;
  }
  if (bar_visible_) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s: %s\n", level.c_str(), one_line(text).c_str());
  if (bar_visible_) draw_bar(true);
}

void Progress::step(const std::string& item, const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (mode_ == ProgressMode::json) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_step_ < std::chrono::seconds(1)) return;
    last_step_ = now;
    print_json_line(nlohmann::ordered_json{{"event", "step"}, {"item", item}, {"text", text}});
  } else if (mode_ == ProgressMode::bar) {
    step_ = text;
    draw_bar(false);
  }
}

void Progress::draw_bar(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const int width = 30;
  const double frac = total_ ? double(done_) / total_ : 1.0;
  const int filled = int(frac * width);
  const double t = elapsed_s();
  const double rate = t > 0 ? done_ / t : 0;
  const long eta = rate > 0 ? long((total_ - done_) / rate) : 0;
  std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
  std::fprintf(stderr, "\r\033[K%s [%s] %zu/%zu %.1f/s ETA %ld:%02ld%s%s", command_.c_str(), bar.c_str(), done_, total_,
               rate, eta / 60, eta % 60, failed_ ? fmt::format(" ({} failed)", failed_).c_str() : "",
               step_.empty() ? "" : (" " + one_line(step_)).c_str());
  std::fflush(stderr);
  bar_visible_ = true;
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (mode_ == ProgressMode::bar && bar_visible_) std::fprintf(stderr, "\n");
  if (mode_ == ProgressMode::json) {
    nlohmann::ordered_json j{{"event", "finish"}, {"done", done_}, {"total", total_}, {"failed", failed_},
                             {"elapsed_s", std::round(elapsed_s() * 1000) / 1000}};
    print_json_line(j);
  }
}

}  // namespace gp
