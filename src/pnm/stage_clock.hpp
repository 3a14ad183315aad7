#pragma once
// Wall time per pipeline stage for the report, with an NVTX range and a trace span per stage
// (gp::ScopedStage), so Nsight and --trace show the same stages.
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/trace.hpp"

namespace gp::pnm {

class StageClock {
 public:
  explicit StageClock(std::vector<std::pair<std::string, double>>& out) : out_(out) {}
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
    name_ = nullptr;
  }

 private:
  std::vector<std::pair<std::string, double>>& out_;
  const char* name_ = nullptr;
  std::optional<ScopedStage> span_;
  std::chrono::steady_clock::time_point begin_;
};

}  // namespace gp::pnm
