#pragma once
// Encodes frames into a video file through libavcodec/libavformat. The container follows the
// file extension (.mp4, .mkv, .avi, .mov, .webm...); the codec is any libav encoder by name.
// Choices that Debian 12's FFmpeg offers:
//   grey masks, lossless:   "ffv1" in .mkv/.avi; "libx264" with lossless = true (qp 0) in .mp4/.mkv
//   colour, high quality:   "libx264", crf 16..23, yuv420p (the default)
//   RGB(A), lossless:       "ffv1" (RGB as bgr0/bgra), "png" (.mov/.mkv/.avi), "qtrle" (.mov),
//                           "utvideo" (.avi/.mkv), "libx264rgb" (RGB only, lossless = true)
// The file appears under its name only when finish() succeeds: frames go to a hidden temporary
// beside it ("dir/.name.part-<pid>-<n>.ext", the naming of core/outputs.hpp, which cleans up
// after killed runs), renamed over `path` after the trailer is written and the data is flushed.
//
// Threading: one VideoWriter per thread (not safe to share); the encoder uses `threads` worker
// threads of its own. A pipeline encodes on a thread of its own, fed from a queue. write() copies
// (or converts) the caller's pixels into the writer's own frame before it returns, so the caller
// may reuse its buffer at once.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/views.hpp"
#include "io/video_frame.hpp"

namespace gp::io {

struct VideoStreamInfo;

struct VideoWriterOptions {
  VideoPixels input = VideoPixels::yuv420p;  // what write() is given
  // For yuv420p input: values use the full 0..255 range (e.g. from a yuvj420p source), and the
  // matrix of the YUV values (tagged in the stream). RGB input is encoded as BT.601 (below 720
  // lines) or BT.709 YUV, limited range, where the encoder wants YUV.
  bool full_range = false;
  YuvMatrix matrix = YuvMatrix::bt601;

  std::string codec = "libx264";  // an encoder name as `ffmpeg -encoders` lists them
  int crf = 18;                   // libx264/libx265/libvpx-vp9 quality: lower is better
  bool lossless = false;          // libx264/libx264rgb: qp 0; refused where the pixels would not survive
  std::string preset;             // libx264/libx265 speed preset ("medium" when empty)
  int keyframe_interval = 0;      // frames between key frames; 0: the encoder's default

  // Clockwise degrees a player should turn the picture (0, 90, 180, 270): a display matrix in
  // the stream (MP4/MOV keep it), the pixels are not turned.
  int rotation = 0;

  // 360 video metadata to write (MP4/MOV: sv3d and st3d boxes, which FFmpeg writes only at
  // "unofficial" strictness, set then; Matroska: Projection and StereoMode).
  std::optional<VideoSpherical> spherical;
  std::optional<VideoStereo> stereo;

  Rational frame_rate{30, 1};
  Rational time_base;  // of write()'s timestamps; invalid (the default): 1 / frame_rate
  int threads = 0;     // encoder threads: 0 = the encoder's choice by core count, 1 = none
  // No version strings or random identifiers in the file: the same frames give the same bytes
  // (committed samples, tests).
  bool bitexact = false;
  // Further AVOptions: of the encoder ("tune" = "film", "g" = "60"...) and of the container
  // ("movflags" = "+faststart"...). An option that nothing takes is a gp::UsageError.
  std::map<std::string, std::string> codec_options, format_options;

  // Frame rate and time base of a stream being read, for writing its frames with their own pts.
  void timing_from(const VideoStreamInfo& info);
};

class VideoWriter {
 public:
  // Opens the encoder and the temporary file and writes the container header. Throws
  // gp::UsageError for choices that cannot work (unknown extension or encoder, a codec the
  // container cannot hold, alpha or lossless requested where the encoder would lose them, odd
  // sizes for 4:2:0 encoders, unknown options) and gp::ItemError(path, "encode", ...) otherwise.
  VideoWriter(const std::string& path, int width, int height, const VideoWriterOptions& options);
  // Without finish(): discards the temporary, leaving no file under `path`.
  ~VideoWriter();
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  // One frame of options.input pixels at the writer's size: gray8/rgb24/rgba as an interleaved u8
  // view (1/3/4 channels); yuv420p as three planes. pts in the time base; < 0: the next frame
  // (index x frame duration). Timestamps must increase. Throws gp::ItemError(path, "encode", ...).
  void write(const ImageView& image, std::int64_t pts = -1);
  void write_yuv420(const std::uint8_t* y, int y_pitch, const std::uint8_t* u, int u_pitch, const std::uint8_t* v,
                    int v_pitch, std::int64_t pts = -1);
  // A frame from VideoReader (any of its pixel formats matching options.input).
  void write(const VideoFrame& frame, std::int64_t pts = -1);

  // Drains the encoder, writes the trailer, flushes the file to disk and renames it to `path`.
  void finish();

  const std::string& path() const;
  std::int64_t frames_written() const;
  std::string encoder_pixel_format() const;  // what the encoder is fed, e.g. "yuv420p", "bgr0"

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gp::io
