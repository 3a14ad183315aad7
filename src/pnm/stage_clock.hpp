#pragma once
// Wall time per pipeline stage for the report, with an NVTX range and a trace span per stage
// (gp::ScopedStage), so Nsight and --trace show the same stages.
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/trace.hpp"

namespace gp::pnm {

class StageClock {
 public:
  explicit StageClock(std::vector<std::pair<std::string, double>>& out,
                      std::vector<std::pair<std::string, std::uint64_t>>* peak_rss = nullptr)
      : out_(out), peak_rss_(peak_rss) {}
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;
  ~StageClock() { stop(); }

  // Ends the running stage, if any, and starts `name` (a string literal: NVTX keeps the pointer).
  void start(const char* name) {
    stop();
    name_ = name;
    span_.emplace(name);
    begin_ = std::chrono::steady_clock::now();
  }
  void stop() {
    if (!name_) return;
    span_.reset();
    out_.emplace_back(name_, std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count());
    if (peak_rss_) {
      rusage usage{};
      if (getrusage(RUSAGE_SELF, &usage) == 0) peak_rss_->emplace_back(name_, std::uint64_t(usage.ru_maxrss) * 1024);
    }
    name_ = nullptr;
  }

 private:
  std::vector<std::pair<std::string, double>>& out_;
  std::vector<std::pair<std::string, std::uint64_t>>* peak_rss_;
  const char* name_ = nullptr;
  std::optional<ScopedStage> span_;
  std::chrono::steady_clock::time_point begin_;
};

}  // namespace gp::pnm
