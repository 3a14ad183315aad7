#include "stitch/frame_selection.hpp"

#include <algorithm>
#include <cmath>

namespace gp::stitch {

std::int64_t FrameSelector::interval_of(double time_s) const {
  // A frame time a hair below an interval's start (timestamps in a time base) counts as in it.
  return std::int64_t(std::floor((time_s - s_.start_s) / s_.interval_s + 1e-9));
}

FrameSelector::Verdict FrameSelector::offer(double time_s) {
  if (s_.end_s > 0 && time_s >= s_.end_s) return Verdict::past_end;
  if (time_s < s_.start_s - 1e-9) return Verdict::skip;
  switch (s_.mode) {
    case VideoSelection::Mode::all: return Verdict::keep;
    case VideoSelection::Mode::every: return in_range_++ % std::max(1, s_.every) == 0 ? Verdict::keep : Verdict::skip;
    case VideoSelection::Mode::interval: {
      const std::int64_t interval = interval_of(time_s);
      if (interval <= last_interval_) return Verdict::skip;
      last_interval_ = interval;
      return Verdict::keep;
    }
    case VideoSelection::Mode::sharpest: return Verdict::score;
  }
  return Verdict::skip;
}

FrameSelector::Verdict FrameSelector::offer_alone(std::int64_t index) const {
  return s_.mode == VideoSelection::Mode::all || index % std::max(1, s_.every) == 0 ? Verdict::keep : Verdict::skip;
}

FrameSelector::Scored FrameSelector::scored(std::int64_t index, double time_s, double score) {
  Scored out;
  const std::int64_t interval = interval_of(time_s);
  if (interval != open_interval_) {
    out.closed = best_index_;  // the previous interval is over: its best is final
    open_interval_ = interval;
    best_index_.reset();
  }
  if (!best_index_ || score > best_score_) {  // ties keep the earlier frame
    best_index_ = index;
    best_score_ = score;
    out.best = true;
  }
  return out;
}

std::optional<std::int64_t> FrameSelector::finish() {
  std::optional<std::int64_t> last = best_index_;
  best_index_.reset();
  open_interval_ = -1;
  return last;
}

}  // namespace gp::stitch
