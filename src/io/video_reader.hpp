#pragma once
// Video files through libavformat/libavcodec: any container and codec Debian's FFmpeg reads
// (MP4, MKV, AVI, MOV, WebM...; H.264, HEVC, VP9, AV1, MPEG-4, FFV1, ProRes, MJPEG...).
//
// Threading: one VideoReader per thread (it is not safe to share), but several readers run at
// once without coordination, e.g. one per camera. The decoder itself uses `threads` worker threads
// (frame and slice threading). To overlap decoding with GPU work and encoding, run the reader on
// its own thread and hand frames over a queue: frames are movable and may be released on any
// thread (see video_frame.hpp for their ownership). Keep a small set of VideoFrames and read into
// them in turn to avoid allocations per frame.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/video_frame.hpp"

namespace gp::io {

// A run of whole groups of pictures that a reader decodes alone (plan_video_segments): from the key
// frame at `first_packet` of the stream's index (decode order), `packets` packets, which give
// `frames` frames numbered from `first_frame` (the numbers one reader of the whole file gives them).
struct VideoSegment {
  std::int64_t first_packet = 0;
  std::int64_t packets = 0;
  std::int64_t first_frame = 0;
  std::int64_t frames = 0;
  bool last = false;  // runs to the end of the file (its truncation is checked there)
};

struct VideoReaderOptions {
  // Decoder threads: 0 = one per core (libav's choice), 1 = decode on the caller's thread.
  int threads = 0;
  // Frame threading decodes several frames at once (the most throughput, but `threads` frames of
  // delay before the first one comes out); slice threading splits one frame (no delay, only where
  // the stream has slices). Streaming with low latency: frame_threads = false.
  bool frame_threads = true;
  bool slice_threads = true;
  // What read() delivers; frames in another format are converted with swscale (none for a
  // yuv420p/yuvj420p source read as yuv420p).
  VideoPixels pixels = VideoPixels::yuv420p;
  // Decode errors tolerated before read() throws: packets the decoder rejects and frames it
  // could only patch up (concealment; such frames are still delivered). 0: the first is an error.
  // FFmpeg 5.1's frame threading drops the decoders' per-frame error flags (and may drop the
  // damaged frame): patched-up frames are only caught with frame_threads = false.
  int max_decode_errors = 0;
  // false: an MP4/MOV file whose header gives the stream's codec parameters is opened without
  // avformat_find_stream_info, which decodes the first frames on one thread (0.3 s at 8K) only to
  // learn what the header says; VideoStreamInfo::pixel_format is then the first frame's.
  bool probe_stream = true;
  // Decode only this part of the file (files plan_video_segments cut; throws ItemError "decode" when
  // its frames are not the ones the index lists).
  std::optional<VideoSegment> segment;
  // At the end of the file, a stream that stops well short (by more than 2 frames and 2%) of the
  // duration its container declares is an error (a truncated file).
  bool check_truncation = true;
  // Live sources (network streams by URL, capture devices): the demuxer by name ("video4linux2";
  // "" = probed from the URL or file), options for avformat_open_input (rtsp_transport, video_size,
  // framerate...), and when to give up: open() and read() throw ItemError (stage "open" or
  // "decode") once no data came for stall_timeout_s (> 0), or at once when `interrupted` says so.
  std::string input_format;
  std::vector<std::pair<std::string, std::string>> demuxer_options;
  double stall_timeout_s = 0;
  std::function<bool()> interrupted;
};

struct VideoStreamInfo {
  int width = 0, height = 0;
  Rational frame_rate;           // average, or the container's guess; invalid() when unknown
  Rational time_base;            // of the stream's timestamps (VideoFrame::pts)
  std::int64_t frame_count = -1; // as the container declares it; else duration x rate; -1 unknown
  bool frame_count_declared = false;  // false: estimated (may differ from what decodes)
  double duration = -1;          // seconds, -1 unknown
  double start_time = 0;         // seconds of the first timestamp
  std::string codec;             // decoder name, e.g. "h264"
  std::string pixel_format;      // the stream's coded pixel format, e.g. "yuv420p"
  std::string container;         // e.g. "matroska,webm"
  int rotation = 0;              // degrees clockwise a player turns the picture (0, 90, 180, 270)
  // 360 video metadata, where the file has it (absent: the file says nothing either way).
  std::optional<VideoSpherical> spherical;
  std::optional<VideoStereo> stereo;
  int stream_index = 0;
};

// File extensions the subcommands take as video (containers libavformat reads; ".insv": Insta360's
// MP4s), lower case with the dot, and whether a path has one (in any case).
const std::vector<std::string>& video_file_extensions();
bool is_video_file(const std::string& path);

// Where a video file can be cut so that several readers decode its parts at once (each with
// VideoReaderOptions::segment) and number its frames as one reader would: at key frames, into at
// most `parts` runs of whole groups of pictures of about equal frame counts, none shorter than
// `min_frames`. Only where the cut is exact: an MP4/MOV whose index lists every frame (none
// discarded by an edit list), H.264 or HEVC whose key frames at the cuts are IDR pictures (closed
// groups: no frame decoded after one is shown before it). Otherwise one segment, and `why_whole`
// says why. first_seconds: the first frame's time (its first packet's), as VideoFrame::seconds().
struct VideoSegmentPlan {
  std::vector<VideoSegment> segments;
  double first_seconds = 0;
  std::string why_whole;
};
VideoSegmentPlan plan_video_segments(const std::string& path, int parts, std::int64_t min_frames);

class VideoReader {
 public:
  // Opens the file and its best video stream (the one libav would play) and the stream's decoder.
  // Throws gp::ItemError(path, "open", why): unreadable or unknown file, no video stream, no
  // decoder for its codec.
  explicit VideoReader(const std::string& path, const VideoReaderOptions& options = {});
  ~VideoReader();
  VideoReader(const VideoReader&) = delete;
  VideoReader& operator=(const VideoReader&) = delete;

  const VideoStreamInfo& info() const;
  const std::string& path() const;
  VideoPixels pixels() const;  // what read() delivers

  // Decodes the next frame into `frame`, releasing what it held before; returns false (frame left
  // empty) after the last one. Throws gp::ItemError(path, "decode", "frame N: ...") when the
  // data cannot be read or decoded (N = the index the frame would have had), for a truncated
  // stream (see check_truncation), and when the file has no frame at all. After an exception the
  // reader can only be destroyed.
  bool read(VideoFrame& frame);

  std::int64_t frames_read() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gp::io
