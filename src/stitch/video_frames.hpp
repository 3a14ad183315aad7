#pragma once
// The panoramas of a 360 video input: frames decoded one after another (libavcodec on CPU
// threads), or by several decoders each on a part of the file where the selection allows
// (io::plan_video_segments), chosen by input.video's selection (frame_selection.hpp); the sharpest of an interval
// is scored on the luma of each decoded frame (on the GPU when the job has one, frame_sharpness.hpp)
// and only the best one is held. Frames come out as decoded (YUV); their conversion to RGB is the
// caller's, outside the decoder's turn, so that several load threads convert at once.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/gpu_runtime.hpp"
#include "core/views.hpp"
#include "io/video_frame.hpp"
#include "io/video_reader.hpp"
#include "stitch/frame_selection.hpp"
#include "stitch/stitch_settings.hpp"

namespace gp::stitch {

struct SelectedFrame {
  std::int64_t index = 0;  // in the video, from 0
  double time_s = 0;       // from the video's first frame
  io::VideoFrame frame;    // as decoded (yuv420p)
};

// The frame as packed 8-bit RGB in `pixels` (swscale, honouring its range and matrix; one
// converter per calling thread).
ImageView frame_rgb(const io::VideoFrame& frame, std::vector<std::uint8_t>& pixels);

class VideoFrameSource {
 public:
  // Opens the video; gp::ItemError(path, "open", ...) when it cannot be read. `scoring`: the GPU
  // that scores frames for select sharpest (null or a CPU runtime: the CPU reference).
  // `decoders` > 1: where the selection judges each frame alone (all, every N, over the whole
  // video) and the file can be cut exactly (io::plan_video_segments), that many decoders each read
  // a part of it at once, with the cores shared among them; frames then come out of order.
  VideoFrameSource(const std::string& path, const VideoSelection& selection, Runtime* scoring = nullptr,
                   int decoders = 1);
  ~VideoFrameSource();
  VideoFrameSource(const VideoFrameSource&) = delete;
  VideoFrameSource& operator=(const VideoFrameSource&) = delete;

  // The next selected frame; nullopt after the last. Thread-safe (callers take turns). Throws
  // gp::ItemError(path, "decode", ...) for a damaged or truncated video, and for a frame whose
  // size differs from the first frame's.
  std::optional<SelectedFrame> next();

  io::VideoStreamInfo info() const;  // (a copy: the reader is closed as soon as it has ended)
  int decoders() const;  // readers decoding parts of the video at once (1: the whole in order)
  std::int64_t frames_decoded() const;
  std::int64_t frames_scored() const;
  bool scores_on_gpu() const;

 private:
  std::optional<SelectedFrame> next_from_parts();
  struct State;
  std::unique_ptr<State> state_;
  mutable std::mutex mutex_;
};

// Why the video's own 360 metadata (spherical projection, stereo layout) contradicts the job ("" when
// it does not), naming the config field to set: a cubemap or a part of a panorama where the mode
// reads a whole equirect, a stereo layout other than /input/stereo's, a panorama given to a
// fisheye mode.
std::string video_metadata_problem(const Settings& s, const io::VideoStreamInfo& info);
// The metadata for the report: {"spherical": {...} or null, "stereo": {...} or null}.
nlohmann::ordered_json video_metadata_json(const io::VideoStreamInfo& info);

}  // namespace gp::stitch
