#pragma once
// Device-side stage times: CUDA events bracket each stage on a stream; after the stream is
// synchronised, collect() turns them into report totals and trace spans on the stream's track.
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"

namespace gp {

class GpuTimeline {
 public:
  GpuTimeline(const Stream& stream, int stream_id) : stream_(&stream), stream_id_(stream_id) {}

  // Brackets the work enqueued between begin() and end() as `stage`. No-ops on the CPU path.
  void begin(const char* stage);
  void end();

  // Call after the stream has been synchronised: records the spans and resets for the next item.
  void collect();

 private:
  struct Mark {
    const char* stage;
    Event start, stop;
  };
  const Stream* stream_;
  int stream_id_;
  std::vector<Mark> marks_;  // events are reused across items
  std::size_t used_ = 0;
};

// begin/end as a scope.
class GpuStage {
 public:
  GpuStage(GpuTimeline& t, const char* stage) : t_(t) { t_.begin(stage); }
  ~GpuStage() { t_.end(); }
  GpuStage(const GpuStage&) = delete;
  GpuStage& operator=(const GpuStage&) = delete;

 private:
  GpuTimeline& t_;
};

}  // namespace gp
