#pragma once
// Which frames of a 360 video become panoramas (issue 27's input.video): all, every N-th, one per
// interval of T seconds (the first frame at or after each interval's start), or the sharpest of
// each interval (motion blur ruins a reconstruction; sharpness.hpp's score), within a time range.
// Decoding goes frame by frame: the selector says at once what to do with each, holding at most
// the best candidate of the open interval, so memory stays at two frames whatever the interval.
#include <cstdint>
#include <optional>

namespace gp::stitch {

struct VideoSelection {
  enum class Mode { all, every, interval, sharpest } mode = Mode::all;
  int every = 1;            // Mode::every: frames 0, N, 2N... of the range
  double interval_s = 1.0;  // Mode::interval and sharpest
  double start_s = 0;       // the range [start_s, end_s) of frame times
  double end_s = 0;         // 0: to the end of the video
};

class FrameSelector {
 public:
  explicit FrameSelector(const VideoSelection& selection) : s_(selection) {}

  enum class Verdict {
    skip,       // not wanted
    keep,       // a selected frame: project it
    score,      // Mode::sharpest: score it and call scored()
    past_end,   // after end_s: stop decoding (call finish())
  };
  // The next frame of the video, at this time (seconds from the video's start).
  Verdict offer(double time_s);

  // Mode::all, and Mode::every over the whole video (no start_s, no end_s): the verdict on frame
  // `index` alone, so that frames decoded in parts and out of order are judged as offer() would.
  Verdict offer_alone(std::int64_t index) const;
  // Mode::sharpest, for a frame offer() said to score. `best` is set when this frame is now the
  // best of its interval (the caller keeps it, dropping the one it held for the interval); the
  // return value is the index of the held frame to project now, when this frame opened a new
  // interval (the caller projects the frame it held before taking this one).
  struct Scored {
    bool best = false;
    std::optional<std::int64_t> closed;  // the previous interval's best, now final
  };
  Scored scored(std::int64_t index, double time_s, double score);
  // At the end of the video (or past end_s): the best of the last interval, if one is held.
  std::optional<std::int64_t> finish();

 private:
  std::int64_t interval_of(double time_s) const;

  VideoSelection s_;
  std::int64_t in_range_ = 0;            // frames of the range offered so far (Mode::every)
  std::int64_t last_interval_ = -1;      // Mode::interval: the last interval a frame was kept for
  std::int64_t open_interval_ = -1;      // Mode::sharpest: the interval of the held candidate
  std::optional<std::int64_t> best_index_;
  double best_score_ = 0;
};

}  // namespace gp::stitch
