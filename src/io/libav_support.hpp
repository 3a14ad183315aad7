#pragma once
// Internal to the video reader/writer: owning handles for libav objects (each freed by its own
// libav call, so no early return or exception leaks one), libav error text, and a cached swscale
// conversion. Not for headers that other parts include: it pulls in the libav headers.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>
}

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "io/video_frame.hpp"

namespace gp::io::libav {

struct InputContextDeleter {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
// An output context also owns its file (opened with avio_open): closed before the context goes.
struct OutputContextDeleter {
  void operator()(AVFormatContext* c) const {
    if (c->oformat && !(c->oformat->flags & AVFMT_NOFILE)) avio_closep(&c->pb);
    avformat_free_context(c);
  }
};
struct CodecContextDeleter {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameDeleter {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketDeleter {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsDeleter {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};

using InputContext = std::unique_ptr<AVFormatContext, InputContextDeleter>;
using OutputContext = std::unique_ptr<AVFormatContext, OutputContextDeleter>;
using CodecContext = std::unique_ptr<AVCodecContext, CodecContextDeleter>;
using Frame = std::unique_ptr<AVFrame, FrameDeleter>;
using Packet = std::unique_ptr<AVPacket, PacketDeleter>;
using Scaler = std::unique_ptr<SwsContext, SwsDeleter>;

// Allocations that throw std::bad_alloc instead of returning null.
Frame make_frame();
Packet make_packet();

// Once per process, before the first libav object: libav's log goes to gp::library_message
// (core/library_log.hpp: off stderr unless --verbose) instead of stderr, at "warning" and worse
// (libav logs at "info" by default: libx264 prints pages of statistics per file), unless the
// program set a level of its own before. GPUPROC_LIBAV_LOG naming a level (quiet, panic, fatal,
// error, warning, info, verbose, debug, trace) sets it and shows the messages without --verbose.
void quiet_logging_once();

// av_strerror's text for an AVERROR code ("Invalid data found when processing input").
std::string error_text(int averror);

// The libav pixel format of our frame formats.
AVPixelFormat pixel_format_of(VideoPixels pixels);

// Whether YUV values of this frame use the full 0..255 range (yuvj* formats or AVCOL_RANGE_JPEG).
bool is_full_range(AVPixelFormat format, AVColorRange range);

// The YUV matrix of a frame: its tag, else BT.709 for 720 lines or more and BT.601 below (what
// players assume for untagged video).
YuvMatrix matrix_of(AVColorSpace colorspace, int height);

// A stream's 360 metadata (spherical mapping and stereo 3D side data), absent where it has none;
// and the same written into an output stream's side data.
std::optional<VideoSpherical> spherical_of(const AVStream* stream);
std::optional<VideoStereo> stereo_of(const AVStream* stream);
void add_spherical(AVStream* stream, const VideoSpherical& spherical);
void add_stereo(AVStream* stream, const VideoStereo& stereo);

// One side of a conversion: pixel layout plus, for YUV, its range and matrix.
struct PictureFormat {
  int width = 0, height = 0;
  AVPixelFormat format = AV_PIX_FMT_NONE;
  bool full_range = false;
  YuvMatrix matrix = YuvMatrix::bt601;
  bool operator==(const PictureFormat& o) const {
    return width == o.width && height == o.height && format == o.format && full_range == o.full_range && matrix == o.matrix;
  }
};

// swscale from one picture format to another at the same size, honouring YUV range and matrix.
// The SwsContext is made on the first call and again only when a format changes. One object per
// thread. Chroma is resampled with a bicubic filter, rounding accurately (SWS_ACCURATE_RND); a
// conversion that only drops or adds chroma planes (gray <-> YUV at the same range) copies luma
// unchanged. `fast`: swscale's unscaled SIMD path for YUV 4:2:0 to RGB where it has one (chroma
// repeated over its 2x2 pixels, as ffmpeg's command line converts), 10-15x faster at 8K.
class Converter {
 public:
  explicit Converter(bool fast = false) : fast_(fast) {}
  void convert(const PictureFormat& from, const std::uint8_t* const src[4], const int src_pitch[4],
               const PictureFormat& to, std::uint8_t* const dst[4], const int dst_pitch[4]);

 private:
  bool fast_ = false;
  Scaler scaler_;
  PictureFormat from_, to_;
};

}  // namespace gp::io::libav
