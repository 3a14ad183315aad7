#include "core/gpu_timeline.hpp"

#include "core/trace.hpp"

namespace gp {

void GpuTimeline::begin(const char* stage) {
  if (!*stream_) return;
  if (used_ == marks_.size()) marks_.push_back(Mark{stage, Event(), Event()});
  Mark& m = marks_[used_];
  m.stage = stage;
  m.start.record(*stream_);
}

void GpuTimeline::end() {
  if (!*stream_) return;
  marks_[used_].stop.record(*stream_);
  ++used_;
}

void GpuTimeline::collect() {
  if (used_ == 0) return;
  // The stream is idle now, so the last event completed just before this moment; place the spans
  // on the host clock relative to it.
  const std::int64_t now = Trace::now_us();
  const Event& last = marks_[used_ - 1].stop;
  for (std::size_t i = 0; i < used_; ++i) {
    const Mark& m = marks_[i];
    const double dur_ms = m.stop.elapsed_ms_since(m.start);
    const double start_before_last_ms = last.elapsed_ms_since(m.start);
    Trace::global().add_gpu_span(m.stage, stream_id_, now - std::int64_t(start_before_last_ms * 1000),
                                 std::int64_t(dur_ms * 1000));
  }
  used_ = 0;
}

}  // namespace gp
