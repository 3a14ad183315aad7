#include "stitch/video_frames.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "cuda/stitch/sharpness.hpp"
#include "io/video_frame.hpp"
#include "io/video_reader.hpp"

namespace gp::stitch {

const std::vector<std::string>& video_extensions() {
  static const std::vector<std::string> video = {".mp4", ".mov", ".mkv", ".avi", ".webm", ".m4v", ".ts", ".mts", ".insv"};
  return video;
}

bool is_video_input(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return std::find(video_extensions().begin(), video_extensions().end(), ext) != video_extensions().end();
}

struct VideoFrameSource::State {
  io::VideoReader reader;
  FrameSelector selector;
  io::VideoRgbConverter to_rgb;
  io::VideoFrame frame, best;  // the frame being looked at; Mode::sharpest: the interval's best so far
  std::int64_t best_index = -1;
  double best_time_s = 0, first_s = -1;
  bool ended = false;

  State(const std::string& path, const VideoSelection& selection)
      : reader(path, reader_options()), selector(selection) {}
  static io::VideoReaderOptions reader_options() {
    io::VideoReaderOptions o;
    o.threads = 0;  // frame threads: decoding is what a video input waits for
    return o;
  }

  SelectedFrame rgb_of(const io::VideoFrame& f, std::int64_t index, double time_s) {
    SelectedFrame out;
    out.index = index;
    out.time_s = time_s;
    out.pixels.resize(std::size_t(f.width()) * f.height() * 3);
    out.view = packed_view(out.pixels.data(), f.width(), f.height(), 3, PixelType::u8);
    to_rgb.convert(f, out.view);
    return out;
  }
};

VideoFrameSource::VideoFrameSource(const std::string& path, const VideoSelection& selection)
    : state_(std::make_unique<State>(path, selection)) {}
VideoFrameSource::~VideoFrameSource() = default;

std::int64_t VideoFrameSource::frames_decoded() const { return state_->reader.frames_read(); }

std::optional<SelectedFrame> VideoFrameSource::next() {
  std::lock_guard<std::mutex> lock(mutex_);
  State& st = *state_;
  while (!st.ended) {
    if (!st.reader.read(st.frame)) {
      st.ended = true;
      break;
    }
    const std::int64_t index = st.reader.frames_read() - 1;
    if (st.first_s < 0) st.first_s = st.frame.seconds();
    const double time_s = st.frame.seconds() - st.first_s;
    switch (st.selector.offer(time_s)) {
      case FrameSelector::Verdict::skip: continue;
      case FrameSelector::Verdict::keep: return st.rgb_of(st.frame, index, time_s);
      case FrameSelector::Verdict::past_end: st.ended = true; continue;
      case FrameSelector::Verdict::score: {
        const ImageView luma = st.frame.plane_view(0);  // yuv420p: Y
        const double score = laplacian_variance(laplacian_sums_cpu(luma), luma.width, luma.height);
        const FrameSelector::Scored r = st.selector.scored(index, time_s, score);
        std::optional<SelectedFrame> closed;
        if (r.closed) closed = st.rgb_of(st.best, st.best_index, st.best_time_s);
        if (r.best) {
          std::swap(st.best, st.frame);
          st.best_index = index;
          st.best_time_s = time_s;
        }
        if (closed) return closed;
        continue;
      }
    }
  }
  if (st.selector.finish()) return st.rgb_of(st.best, st.best_index, st.best_time_s);  // the last interval's best
  return std::nullopt;
}

}  // namespace gp::stitch
