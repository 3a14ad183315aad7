#pragma once
// Stage timing for the run report, the Chrome/Perfetto trace (--trace) and NVTX ranges (so
// Nsight Systems shows the same stages). One process-wide recorder; cheap when tracing is off.
// Each thread records into a log of its own (its own lock, which only a reader of the totals or
// the trace also takes): threads never wait for each other to record a span, so a thread with a
// lowered priority (a video decoder) that is preempted while recording holds up nobody else.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp {

struct StageTotals {
  std::uint64_t count = 0;
  double wall_s = 0;  // host time spent in the stage, summed over threads
  double gpu_s = 0;   // device time measured with CUDA events, summed over streams
};

class Trace {
 public:
  static Trace& global();

  void enable_timeline(bool on) { timeline_ = on; }  // keep individual spans for --trace
  bool timeline_enabled() const { return timeline_; }

  static std::int64_t now_us();  // microseconds since the process started
  static void name_thread(const std::string& name);

  void add_host_span(const std::string& stage, std::int64_t start_us, std::int64_t dur_us);
  // GPU spans go on a track per stream ("gpu stream N").
  void add_gpu_span(const std::string& stage, int stream_id, std::int64_t start_us, std::int64_t dur_us);

  // A counter track (Chrome's "C" events, kept only for --trace): `values` at `ts_us`, each value a
  // series of the track named `name`, drawn as a graph (the GPU monitor's samples).
  void add_counter(const std::string& name, std::int64_t ts_us, const nlohmann::ordered_json& values);

  std::map<std::string, StageTotals> totals() const;
  nlohmann::ordered_json chrome_trace() const;  // {"traceEvents": [...]}
  void write_chrome_trace(const std::string& path) const;

 private:
  struct Span {
    std::string name;
    int track;  // thread id (host) or stream id (GPU)
    bool gpu;
    std::int64_t start_us, dur_us;
  };
  struct ThreadLog {
    std::mutex mutex;
    std::map<std::string, StageTotals, std::less<>> totals;
    std::vector<Span> spans;
  };
  ThreadLog& thread_log();  // the calling thread's, made and registered on its first span

  mutable std::mutex mutex_;  // the list of logs, counters, thread names
  bool timeline_ = false;
  std::vector<std::shared_ptr<ThreadLog>> logs_;  // kept after their threads end
  struct Counter {
    std::string name;
    std::int64_t ts_us;
    nlohmann::ordered_json values;
  };
  std::vector<Counter> counters_;
  std::map<int, std::string> thread_names_;
  friend struct ThreadTrack;
};

// Seconds per stage spent on one item, for the report's per-item records.
using StageSeconds = std::map<std::string, double>;

// While alive, the ScopedStages of this thread also add their time to `sink` (the item the thread
// works on); nests, restoring the previous sink.
class ItemStageScope {
 public:
  explicit ItemStageScope(StageSeconds* sink);
  ~ItemStageScope();
  ItemStageScope(const ItemStageScope&) = delete;
  ItemStageScope& operator=(const ItemStageScope&) = delete;

 private:
  StageSeconds* previous_;
};

// Times a host stage: NVTX range, report totals, trace span, and the thread's item (ItemStageScope).
class ScopedStage {
 public:
  explicit ScopedStage(const char* name);
  ~ScopedStage();
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  const char* name_;
  std::int64_t start_us_;
};

}  // namespace gp
