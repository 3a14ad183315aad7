#include "stitch/video_frames.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "stitch/frame_sharpness.hpp"

namespace gp::stitch {

ImageView frame_rgb(const io::VideoFrame& frame, std::vector<std::uint8_t>& pixels) {
  // Keeps its swscale context between frames. The fast path: an 8K frame in tens of milliseconds
  // instead of half a second (the load threads would bound a video job), and the panorama is
  // resampled by the projection anyway.
  thread_local io::VideoRgbConverter to_rgb(io::VideoRgbConverter::Quality::fast);
  pixels.resize(std::size_t(frame.width()) * frame.height() * 3);
  const ImageView view = packed_view(pixels.data(), frame.width(), frame.height(), 3, PixelType::u8);
  to_rgb.convert(frame, view);
  return view;
}

// A reader of the whole video, or of one part of it (io::VideoSegment), and whether a load thread
// is in it or it has ended.
struct VideoPart {
  std::unique_ptr<io::VideoReader> reader;
  bool busy = false, ended = false;
};

struct VideoFrameSource::State {
  std::string path;
  std::vector<VideoPart> parts;  // one, unless the constructor cut the video into parts
  std::mutex info_mutex;            // parts[0]'s reader against its closing
  io::VideoStreamInfo closed_info;  // parts[0]'s, once its reader is closed
  bool first_closed = false;
  FrameSelector selector;
  FrameSharpness sharpness;
  io::VideoFrame frame;    // the frame being looked at
  // Mode::sharpest: the frame whose score is being computed, and the best of the open interval.
  io::VideoFrame pending, best;
  std::int64_t pending_index = -1, best_index = -1, scored = 0, decoded = 0;
  double pending_time_s = 0, best_time_s = 0, first_s = -1;
  int width = 0, height = 0;  // of the first frame
  bool has_pending = false, ended = false;
  std::condition_variable part_free;  // decoding in parts: a part's reader is free again

  State(const std::string& video_path, const VideoSelection& selection, Runtime* scoring, int decoders)
      : path(video_path), selector(selection), sharpness(scoring) {
    if (decoders > 1 && judged_alone(selection)) {
      // Parts of at least two seconds at 30 fps: each decoder's frame threads fill up once per part.
      const io::VideoSegmentPlan plan = io::plan_video_segments(path, decoders, 60);
      if (plan.segments.size() > 1) {
        first_s = plan.first_seconds;
        const int threads = std::max(2, int(std::thread::hardware_concurrency()) / int(plan.segments.size()));
        for (const io::VideoSegment& segment : plan.segments) {
          io::VideoReaderOptions o = reader_options(threads);
          o.segment = segment;
          parts.push_back(VideoPart{std::make_unique<io::VideoReader>(path, o)});
        }
        return;
      }
    }
    parts.push_back(VideoPart{std::make_unique<io::VideoReader>(path, reader_options(0))});
  }
  // threads 0: one per core (frame threads: decoding is what a video input waits for).
  static io::VideoReaderOptions reader_options(int threads) {
    io::VideoReaderOptions o;
    o.threads = threads;
    o.probe_stream = false;  // an MP4's header says what its first frames would (0.3 s at 8K)
    return o;
  }
  // Selections that judge each frame by its number alone; the others (a time range, one per
  // interval, the sharpest of each) follow the frames in order.
  static bool judged_alone(const VideoSelection& s) {
    return (s.mode == VideoSelection::Mode::all || s.mode == VideoSelection::Mode::every) && s.start_s == 0 &&
           s.end_s == 0;
  }
  io::VideoReader& reader() { return *parts[0].reader; }
  // A part's reader closed as soon as it has ended, by the thread that saw it end: its frame
  // threads and frame pool (hundreds of MB at 8K) are freed while the last frames are still being
  // projected and written, not after. The caller is the part's only user (its busy flag, or the
  // mutex of the in-order path).
  void close(VideoPart& part) {
    if (!part.reader) return;
    ScopedStage span("close video");
    if (&part == &parts[0]) {
      std::lock_guard<std::mutex> lock(info_mutex);
      closed_info = part.reader->info();  // (its pixel format: from its first frame)
      first_closed = true;
    }
    part.reader.reset();
  }

  static SelectedFrame take(io::VideoFrame& f, std::int64_t index, double time_s) {
    SelectedFrame out;
    out.index = index;
    out.time_s = time_s;
    out.frame = std::move(f);
    return out;
  }

  // The projection is planned from the first frame's size; a later frame of another size (a
  // stream that changes resolution) would be projected with the wrong plan.
  void check_size(const io::VideoFrame& f, std::int64_t index) {
    if (width == 0) {
      width = f.width();
      height = f.height();
    } else if (f.width() != width || f.height() != height) {
      // Frames decoded in parts come out of order: the size seen first is not the earlier frames'.
      const char* others = parts.size() > 1 ? "other frames of it" : "the frames before it";
      throw ItemError(path, "decode",
                      fmt::format("frame {} is {}x{}, {} {}x{}: a video whose frame size changes "
                                  "part-way is not read (cut it into parts of one size)",
                                  index, f.width(), f.height(), others, width, height));
    }
  }

  // Mode::sharpest: the pending frame's score (computed while the next frame decoded) goes to the
  // selector. Returns the previous interval's best when the pending frame opened a new interval.
  std::optional<SelectedFrame> settle_pending() {
    const double score = sharpness.collect();
    has_pending = false;
    ++scored;
    const FrameSelector::Scored r = selector.scored(pending_index, pending_time_s, score);
    std::optional<SelectedFrame> closed;
    if (r.closed) closed = take(best, best_index, best_time_s);
    if (r.best) {
      std::swap(best, pending);
      best_index = pending_index;
      best_time_s = pending_time_s;
    }
    return closed;
  }
};

VideoFrameSource::VideoFrameSource(const std::string& path, const VideoSelection& selection, Runtime* scoring,
                                   int decoders)
    : state_(std::make_unique<State>(path, selection, scoring, decoders)) {}
VideoFrameSource::~VideoFrameSource() = default;

io::VideoStreamInfo VideoFrameSource::info() const {
  std::lock_guard<std::mutex> lock(state_->info_mutex);
  return state_->first_closed ? state_->closed_info : state_->parts[0].reader->info();
}
int VideoFrameSource::decoders() const { return int(state_->parts.size()); }
std::int64_t VideoFrameSource::frames_decoded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_->decoded;
}
std::int64_t VideoFrameSource::frames_scored() const { return state_->scored; }
bool VideoFrameSource::scores_on_gpu() const { return state_->sharpness.on_gpu(); }

std::optional<SelectedFrame> VideoFrameSource::next() {
  if (state_->parts.size() > 1) return next_from_parts();
  std::lock_guard<std::mutex> lock(mutex_);
  State& st = *state_;
  while (!st.ended) {
    if (!st.reader().read(st.frame)) {
      st.ended = true;
      st.close(st.parts[0]);
      break;
    }
    ++st.decoded;
    const std::int64_t index = st.reader().frames_read() - 1;
    st.check_size(st.frame, index);
    if (st.first_s < 0) st.first_s = st.frame.seconds();
    const double time_s = st.frame.seconds() - st.first_s;
    switch (st.selector.offer(time_s)) {
      case FrameSelector::Verdict::skip: continue;
      case FrameSelector::Verdict::keep: return State::take(st.frame, index, time_s);
      case FrameSelector::Verdict::past_end:  // (the end of a time range: nothing after it is decoded)
        st.ended = true;
        st.close(st.parts[0]);
        continue;
      case FrameSelector::Verdict::score: {
        // The previous frame was scored while this one decoded: settle it, then start this one.
        std::optional<SelectedFrame> closed;
        if (st.has_pending) closed = st.settle_pending();
        st.sharpness.submit(st.frame.plane_view(0));  // yuv420p: Y
        std::swap(st.pending, st.frame);
        st.pending_index = index;
        st.pending_time_s = time_s;
        st.has_pending = true;
        if (closed) return closed;
        continue;
      }
    }
  }
  if (st.has_pending) {
    std::optional<SelectedFrame> closed = st.settle_pending();
    if (closed) return closed;
  }
  if (st.selector.finish()) return State::take(st.best, st.best_index, st.best_time_s);  // the last interval's best
  return std::nullopt;
}

// Each load thread reads a part no other thread is in: the parts decode at once. The selection
// judges each frame by its number (State::judged_alone).
std::optional<SelectedFrame> VideoFrameSource::next_from_parts() {
  State& st = *state_;
  for (;;) {
    VideoPart* part = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      for (;;) {
        bool open = false;
        for (VideoPart& p : st.parts) {
          open = open || !p.ended;
          if (!p.ended && !p.busy) {
            part = &p;
            break;
          }
        }
        if (part || !open) break;
        st.part_free.wait(lock);
      }
      if (!part) return std::nullopt;
      part->busy = true;
    }
    io::VideoFrame frame;
    bool got = false;
    try {
      got = part->reader->read(frame);
      if (!got) st.close(*part);
    } catch (...) {
      st.close(*part);
      std::lock_guard<std::mutex> lock(mutex_);
      part->busy = false;
      part->ended = true;
      st.part_free.notify_all();
      throw;
    }
    const std::int64_t index = frame.index();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      part->busy = false;
      part->ended = !got;
      st.part_free.notify_all();
      if (!got) continue;
      ++st.decoded;
      st.check_size(frame, index);
    }
    // The plan's first time is the first packet's; the first frame must carry it.
    if (index == 0 && std::abs(frame.seconds() - st.first_s) > 1e-6)
      throw ItemError(st.path, "decode",
                      fmt::format("its first frame is at {} s, its first packet at {} s: read it with "
                                  "/input/video/decoders 1",
                                  frame.seconds(), st.first_s));
    if (st.selector.offer_alone(index) != FrameSelector::Verdict::keep) continue;
    return State::take(frame, index, frame.seconds() - st.first_s);
  }
}

// ---- the video's 360 metadata against the job ---------------------------------------------------

namespace {

const char* stereo_field_value(io::VideoStereo::Layout layout) {
  switch (layout) {
    case io::VideoStereo::Layout::mono: return "mono";
    case io::VideoStereo::Layout::top_bottom: return "top_bottom";
    case io::VideoStereo::Layout::side_by_side: return "side_by_side";
    case io::VideoStereo::Layout::other: return "";
  }
  return "";
}

const char* stereo_setting(Stereo stereo) {
  return stereo == Stereo::top_bottom ? "top_bottom" : stereo == Stereo::side_by_side ? "side_by_side" : "mono";
}

// A VR180 half: longitudes -90..90 degrees, latitudes -90..90 (bounds of a quarter on each side).
bool vr180_half(const io::VideoSpherical& sp) {
  const auto near = [](double a, double b) { return std::abs(a - b) < 1e-3; };
  return near(sp.bound_left, 0.25) && near(sp.bound_right, 0.25) && near(sp.bound_top, 0) && near(sp.bound_bottom, 0);
}

std::string bounds_text(const io::VideoSpherical& sp) {
  const double h = 360 * (1 - sp.bound_left - sp.bound_right), v = 180 * (1 - sp.bound_top - sp.bound_bottom);
  return fmt::format("bounds left {:.3g} top {:.3g} right {:.3g} bottom {:.3g} of the sphere: {:.4g} x {:.4g} degrees",
                     sp.bound_left, sp.bound_top, sp.bound_right, sp.bound_bottom, h, v);
}

}  // namespace

std::string video_metadata_problem(const Settings& s, const io::VideoStreamInfo& info) {
  using Projection = io::VideoSpherical::Projection;
  using Layout = io::VideoStereo::Layout;
  const bool equirect_mode = s.mode == "views" || s.mode == "cubemap";
  const std::string says = "the video's metadata says ";
  if (info.stereo) {
    const io::VideoStereo& st = *info.stereo;
    if (st.layout == Layout::other)
      return says + "its stereo views are packed as \"" + st.name +
             "\": stitch-360 reads stereo as /input/stereo top_bottom or side_by_side only";
    if (st.layout != Layout::mono && !equirect_mode)
      return says + "it is stereo (" + st.name + "), but /mode " + s.mode +
             " reads one picture per frame: stereo is read in /mode views and cubemap (with /input/stereo " +
             stereo_field_value(st.layout) + ")";
    if (equirect_mode && stereo_field_value(st.layout) != std::string(stereo_setting(s.stereo)))
      return says + (st.layout == Layout::mono ? "it is 2D (one picture, not a stereo pair)"
                                               : "it is stereo, " + st.name) +
             ", but /input/stereo is " + stereo_setting(s.stereo) + ": set /input/stereo " +
             stereo_field_value(st.layout);
    if (st.layout != Layout::mono && st.right_first)
      return says + "its stereo pair has the right eye first (" + st.name +
             ", inverted): stitch-360 reads the left eye first (top or left)";
  }
  if (info.spherical) {
    const io::VideoSpherical& sp = *info.spherical;
    const std::string projection = to_string(sp.projection);
    if (equirect_mode) {
      if (sp.projection == Projection::cubemap)
        return says + "it is a cubemap, but /mode " + s.mode +
               " reads equirect panoramas: set /mode equirect_from_cubemap (/cubemap/layout 3x2) to make equirect "
               "panoramas of its frames";
      if (sp.projection == Projection::equirect_tile) {
        // A VR180 video: each eye a half panorama, which a stereo input with square eyes is read as.
        const ImageView eye = eye_view(packed_view(nullptr, info.width, info.height, 3, PixelType::u8), s.stereo, 0);
        if (vr180_half(sp) && hemisphere_eye(s, eye.width, eye.height)) return "";
        if (vr180_half(sp) && s.stereo == Stereo::mono)
          return says + "it is half of an equirect panorama (VR180, " + bounds_text(sp) +
                 "): stitch-360 reads VR180 as stereo, square eyes: set /input/stereo side_by_side or top_bottom";
        return says + "it is part of an equirect panorama (" + bounds_text(sp) + "), but /mode " + s.mode +
               " reads whole 360 x 180 degree panoramas (and VR180 halves of stereo inputs)";
      }
    } else if (s.mode == "equirect_from_cubemap") {
      if (sp.projection != Projection::cubemap)
        return says + "it is an " + projection + " panorama, but /mode equirect_from_cubemap reads cubemaps: set /mode "
               "views or cubemap";
      if (sp.padding > 0)
        return says + "its cube faces are padded by " + std::to_string(sp.padding) +
               " pixels: stitch-360 reads unpadded faces (/cubemap/layout 3x2)";
      if (s.cube_layout != "3x2") return says + "it is a cubemap of 3x2 faces: set /cubemap/layout 3x2";
    } else if (s.mode == "equirect_from_dual_fisheye") {
      return says + "it is already projected (" + projection + "), but /mode equirect_from_dual_fisheye reads the two "
             "fisheye circles of a camera's own video: set /mode views or cubemap (equirect_from_cubemap for a cubemap)";
    }
  }
  return "";
}

nlohmann::ordered_json video_metadata_json(const io::VideoStreamInfo& info) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["spherical"] = nullptr;
  if (info.spherical) {
    const io::VideoSpherical& sp = *info.spherical;
    nlohmann::ordered_json o;
    o["projection"] = to_string(sp.projection);
    // Reported, not applied (README, stitch-360: "Spherical metadata").
    o["pose_deg"] = {{"yaw", sp.yaw_deg}, {"pitch", sp.pitch_deg}, {"roll", sp.roll_deg}};
    o["pose_applied"] = false;
    if (sp.projection == io::VideoSpherical::Projection::equirect_tile)
      o["bounds"] = {{"left", sp.bound_left}, {"top", sp.bound_top}, {"right", sp.bound_right}, {"bottom", sp.bound_bottom}};
    if (sp.projection == io::VideoSpherical::Projection::cubemap) o["padding"] = sp.padding;
    j["spherical"] = o;
  }
  j["stereo"] = nullptr;
  if (info.stereo) j["stereo"] = {{"layout", info.stereo->name}, {"right_first", info.stereo->right_first}};
  return j;
}

}  // namespace gp::stitch
