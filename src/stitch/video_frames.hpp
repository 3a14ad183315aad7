#pragma once
// The panoramas of a 360 video input: frames decoded one after another (libavcodec on CPU
// threads) as RGB, chosen by input.video's selection (frame_selection.hpp); the sharpest of an
// interval is scored on the luma of each decoded frame and only the best one is held.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/views.hpp"
#include "stitch/frame_selection.hpp"

namespace gp::stitch {

// File extensions read as videos (the others are still images), and whether a path has one.
const std::vector<std::string>& video_extensions();
bool is_video_input(const std::string& path);

struct SelectedFrame {
  std::int64_t index = 0;  // in the video, from 0
  double time_s = 0;       // from the video's first frame
  std::vector<std::uint8_t> pixels;  // packed RGB
  ImageView view;
};

class VideoFrameSource {
 public:
  // Opens the video; gp::ItemError(path, "open", ...) when it cannot be read.
  VideoFrameSource(const std::string& path, const VideoSelection& selection);
  ~VideoFrameSource();
  VideoFrameSource(const VideoFrameSource&) = delete;
  VideoFrameSource& operator=(const VideoFrameSource&) = delete;

  // The next selected frame; nullopt after the last. Thread-safe (callers take turns). Throws
  // gp::ItemError(path, "decode", ...) for a damaged or truncated video.
  std::optional<SelectedFrame> next();

  std::int64_t frames_decoded() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::mutex mutex_;
};

}  // namespace gp::stitch
