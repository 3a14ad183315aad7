#include "core/trace.hpp"

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <fstream>
#include <unistd.h>

#include "core/error.hpp"

namespace gp {
namespace {

const auto process_start = std::chrono::steady_clock::now();
std::atomic<int> next_thread_id{1};

int this_thread_track() {
  thread_local int id = next_thread_id++;
  return id;
}

}  // namespace

Trace& Trace::global() {
  static Trace t;
  return t;
}

std::int64_t Trace::now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - process_start).count();
}

void Trace::name_thread(const std::string& name) {
  auto& t = global();
  std::lock_guard<std::mutex> lock(t.mutex_);
  t.thread_names_[this_thread_track()] = name;
  nvtxNameOsThreadA(static_cast<std::uint32_t>(::gettid()), name.c_str());
}

Trace::ThreadLog& Trace::thread_log() {
  // One recorder per process (global()), so one log per thread.
  thread_local std::shared_ptr<ThreadLog> log;
  if (!log) {
    log = std::make_shared<ThreadLog>();
    std::lock_guard<std::mutex> lock(mutex_);
    logs_.push_back(log);
  }
  return *log;
}

namespace {
StageTotals& totals_of(std::map<std::string, StageTotals, std::less<>>& totals, const std::string& stage) {
  const auto found = totals.find(stage);
  return found != totals.end() ? found->second : totals[stage];
}
}  // namespace

void Trace::add_host_span(const std::string& stage, std::int64_t start_us, std::int64_t dur_us) {
  const int track = this_thread_track();
  ThreadLog& log = thread_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  StageTotals& s = totals_of(log.totals, stage);
  s.count++;
  s.wall_s += dur_us * 1e-6;
  if (timeline_) log.spans.push_back({stage, track, false, start_us, dur_us});
}

void Trace::add_gpu_span(const std::string& stage, int stream_id, std::int64_t start_us, std::int64_t dur_us) {
  ThreadLog& log = thread_log();
  std::lock_guard<std::mutex> lock(log.mutex);
  totals_of(log.totals, stage).gpu_s += dur_us * 1e-6;
  if (timeline_) log.spans.push_back({stage, stream_id, true, start_us, dur_us});
}

void Trace::add_counter(const std::string& name, std::int64_t ts_us, const nlohmann::ordered_json& values) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (timeline_) counters_.push_back({name, ts_us, values});
}

std::map<std::string, StageTotals> Trace::totals() const {
  std::vector<std::shared_ptr<ThreadLog>> logs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    logs = logs_;
  }
  std::map<std::string, StageTotals> sum;
  for (const auto& log : logs) {
    std::lock_guard<std::mutex> lock(log->mutex);
    for (const auto& [stage, t] : log->totals) {
      StageTotals& s = sum[stage];
      s.count += t.count;
      s.wall_s += t.wall_s;
      s.gpu_s += t.gpu_s;
    }
  }
  return sum;
}

nlohmann::ordered_json Trace::chrome_trace() const {
  std::lock_guard<std::mutex> lock(mutex_);
  using json = nlohmann::ordered_json;
  json events = json::array();
  // Process 1: host threads; process 2: GPU streams.
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", "gpuproc host"}}}});
  events.push_back({{"ph", "M"}, {"pid", 2}, {"name", "process_name"}, {"args", {{"name", "GPU"}}}});
  for (auto& [tid, name] : thread_names_)
    events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});
  std::map<int, bool> streams;
  for (const auto& log : logs_) {
    std::lock_guard<std::mutex> log_lock(log->mutex);
    for (const Span& s : log->spans) {
      if (s.gpu) streams[s.track] = true;
      events.push_back({{"ph", "X"}, {"pid", s.gpu ? 2 : 1}, {"tid", s.track}, {"name", s.name},
                        {"ts", s.start_us}, {"dur", s.dur_us}});
    }
  }
  for (auto& c : counters_) events.push_back({{"ph", "C"}, {"pid", 2}, {"name", c.name}, {"ts", c.ts_us}, {"args", c.values}});
  for (auto& [id, _] : streams)
    events.push_back({{"ph", "M"}, {"pid", 2}, {"tid", id}, {"name", "thread_name"},
                      {"args", {{"name", "stream " + std::to_string(id)}}}});
  return json{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

void Trace::write_chrome_trace(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw Error("--trace: cannot write " + path);
  out << chrome_trace().dump() << "\n";
  if (!out) throw Error("--trace: write failed for " + path);
}

namespace {
thread_local StageSeconds* item_stage_sink = nullptr;
}  // namespace

ItemStageScope::ItemStageScope(StageSeconds* sink) : previous_(item_stage_sink) { item_stage_sink = sink; }
ItemStageScope::~ItemStageScope() { item_stage_sink = previous_; }

ScopedStage::ScopedStage(const char* name) : name_(name), start_us_(Trace::now_us()) { nvtxRangePushA(name); }

ScopedStage::~ScopedStage() {
  nvtxRangePop();
  const std::int64_t dur_us = Trace::now_us() - start_us_;
  Trace::global().add_host_span(name_, start_us_, dur_us);
  if (item_stage_sink) (*item_stage_sink)[name_] += double(dur_us) * 1e-6;
}

}  // namespace gp
