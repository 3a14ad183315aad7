#include "io/libav_support.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdlib>
#include <mutex>
#include <new>

#include "core/error.hpp"
#include "core/library_log.hpp"

extern "C" {
#include <libavutil/spherical.h>
#include <libavutil/stereo3d.h>
}

namespace gp::io::libav {

Frame make_frame() {
  Frame frame(av_frame_alloc());
  if (!frame) throw std::bad_alloc();
  return frame;
}

Packet make_packet() {
  Packet packet(av_packet_alloc());
  if (!packet) throw std::bad_alloc();
  return packet;
}

namespace {

std::atomic<bool> show_log{false};  // GPUPROC_LIBAV_LOG asked for the messages

LibraryLevel level_of(int av_level) {
  if (av_level <= AV_LOG_ERROR) return LibraryLevel::error;
  if (av_level <= AV_LOG_WARNING) return LibraryLevel::warning;
  if (av_level <= AV_LOG_INFO) return LibraryLevel::info;
  return LibraryLevel::debug;
}

// av_log's callback: libav builds some lines in pieces, so each thread collects its pieces up to
// the line's end. The context's address goes from the prefix ("[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55d0...]"),
// and a prefix that names no context ("[NULL @ 0x55d0...]": a parser's) goes altogether.
void route_log(void* context, int level, const char* format, va_list args) {
  level &= 0xff;  // the rest: colour hints
  if (level > av_log_get_level()) return;
  thread_local std::string pending;
  thread_local int print_prefix = 1;
  char piece[1024];
  av_log_format_line2(context, level, format, args, piece, sizeof piece, &print_prefix);
  pending += piece;
  if (pending.empty() || pending.back() != '\n') return;
  if (const auto at = pending.find(" @ 0x"); pending.front() == '[' && at != std::string::npos) {
    if (const auto end = pending.find(']', at); end != std::string::npos) {
      pending.erase(at, end - at);
      if (pending.compare(0, 7, "[NULL] ") == 0) pending.erase(0, 7);
    }
  }
  library_message("libav", level_of(level), pending, show_log);
  pending.clear();
}

}  // namespace

void quiet_logging_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    static const struct {
      const char* name;
      int level;
    } levels[] = {{"quiet", AV_LOG_QUIET},     {"panic", AV_LOG_PANIC}, {"fatal", AV_LOG_FATAL},
                  {"error", AV_LOG_ERROR},     {"warning", AV_LOG_WARNING}, {"info", AV_LOG_INFO},
                  {"verbose", AV_LOG_VERBOSE}, {"debug", AV_LOG_DEBUG}, {"trace", AV_LOG_TRACE}};
    if (const char* wanted = std::getenv("GPUPROC_LIBAV_LOG")) {
      for (const auto& l : levels) {
        if (std::string(wanted) == l.name) av_log_set_level(l.level);
      }
      show_log = true;
    } else if (av_log_get_level() == AV_LOG_INFO) {  // libav's default: nobody chose
      av_log_set_level(AV_LOG_WARNING);
    }
    av_log_set_callback(&route_log);
  });
}

std::string error_text(int averror) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  if (av_strerror(averror, text, sizeof text) < 0) return "libav error " + std::to_string(averror);
  return text;
}

AVPixelFormat pixel_format_of(VideoPixels pixels) {
  switch (pixels) {
    case VideoPixels::yuv420p: return AV_PIX_FMT_YUV420P;
    case VideoPixels::gray8: return AV_PIX_FMT_GRAY8;
    case VideoPixels::rgb24: return AV_PIX_FMT_RGB24;
    case VideoPixels::rgba: return AV_PIX_FMT_RGBA;
  }
  return AV_PIX_FMT_NONE;
}

bool is_full_range(AVPixelFormat format, AVColorRange range) {
  switch (format) {
    case AV_PIX_FMT_YUVJ420P:
    case AV_PIX_FMT_YUVJ422P:
    case AV_PIX_FMT_YUVJ444P:
    case AV_PIX_FMT_YUVJ440P:
    case AV_PIX_FMT_YUVJ411P: return true;
    default: return range == AVCOL_RANGE_JPEG;
  }
}

YuvMatrix matrix_of(AVColorSpace colorspace, int height) {
  switch (colorspace) {
    case AVCOL_SPC_BT709: return YuvMatrix::bt709;
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL: return YuvMatrix::bt2020;
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M:
    case AVCOL_SPC_FCC: return YuvMatrix::bt601;
    default: return height >= 720 ? YuvMatrix::bt709 : YuvMatrix::bt601;
  }
}

namespace {

int sws_colorspace_of(YuvMatrix matrix) {
  switch (matrix) {
    case YuvMatrix::bt709: return SWS_CS_ITU709;
    case YuvMatrix::bt2020: return SWS_CS_BT2020;
    case YuvMatrix::bt601: return SWS_CS_ITU601;
  }
  return SWS_CS_DEFAULT;
}

// swscale's own notion of the yuvj formats is "full range": hand it the plain format and the
// range separately (it warns about the deprecated yuvj formats otherwise).
AVPixelFormat without_j(AVPixelFormat format) {
  switch (format) {
    case AV_PIX_FMT_YUVJ420P: return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: return AV_PIX_FMT_YUV444P;
    case AV_PIX_FMT_YUVJ440P: return AV_PIX_FMT_YUV440P;
    case AV_PIX_FMT_YUVJ411P: return AV_PIX_FMT_YUV411P;
    default: return format;
  }
}

// Packed RGB(A) <-> planar GBR(A) by hand: swscale 6.7 (FFmpeg 5.1) changes about 12% of the
// values of rgba -> gbrap -> rgba, which Ut Video's lossless RGBA needs exact.
bool shuffle_planar_rgb(const PictureFormat& from, const std::uint8_t* const src[4], const int src_pitch[4],
                        const PictureFormat& to, std::uint8_t* const dst[4], const int dst_pitch[4]) {
  const auto packed_channels = [](AVPixelFormat f) { return f == AV_PIX_FMT_RGB24 ? 3 : f == AV_PIX_FMT_RGBA ? 4 : 0; };
  const auto planar_channels = [](AVPixelFormat f) { return f == AV_PIX_FMT_GBRP ? 3 : f == AV_PIX_FMT_GBRAP ? 4 : 0; };
  const bool to_planar = packed_channels(from.format) && packed_channels(from.format) == planar_channels(to.format);
  const bool to_packed = planar_channels(from.format) && planar_channels(from.format) == packed_channels(to.format);
  if (!to_planar && !to_packed) return false;
  const int channels = to_planar ? packed_channels(from.format) : packed_channels(to.format);
  static const int plane_of[4] = {2, 0, 1, 3};  // R, G, B, A live in planes 2 (R), 0 (G), 1 (B), 3 (A)
  for (int y = 0; y < from.height; ++y)
    for (int c = 0; c < channels; ++c) {
      const int plane = plane_of[c];
      if (to_planar) {
        const std::uint8_t* in = src[0] + std::ptrdiff_t(src_pitch[0]) * y + c;
        std::uint8_t* out = dst[plane] + std::ptrdiff_t(dst_pitch[plane]) * y;
        for (int x = 0; x < from.width; ++x) out[x] = in[x * channels];
      } else {
        const std::uint8_t* in = src[plane] + std::ptrdiff_t(src_pitch[plane]) * y;
        std::uint8_t* out = dst[0] + std::ptrdiff_t(dst_pitch[0]) * y + c;
        for (int x = 0; x < from.width; ++x) out[x * channels] = in[x];
      }
    }
  return true;
}

}  // namespace

void Converter::convert(const PictureFormat& from, const std::uint8_t* const src[4], const int src_pitch[4],
                        const PictureFormat& to, std::uint8_t* const dst[4], const int dst_pitch[4]) {
  if (from.width == to.width && from.height == to.height && shuffle_planar_rgb(from, src, src_pitch, to, dst, dst_pitch))
    return;
  if (!scaler_ || !(from == from_) || !(to == to_)) {
    scaler_.reset(sws_getContext(from.width, from.height, without_j(from.format), to.width, to.height,
                                 without_j(to.format),
                                 fast_ ? SWS_BILINEAR : SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
                                 nullptr, nullptr, nullptr));
    if (!scaler_)
      throw Error(std::string("swscale cannot convert ") + av_get_pix_fmt_name(from.format) + " to " +
                  av_get_pix_fmt_name(to.format));
    // Range and matrix of both sides; swscale ignores those of an RGB side.
    if (sws_setColorspaceDetails(scaler_.get(), sws_getCoefficients(sws_colorspace_of(from.matrix)), from.full_range,
                                 sws_getCoefficients(sws_colorspace_of(to.matrix)), to.full_range, 0, 1 << 16,
                                 1 << 16) < 0) {
      scaler_.reset();
      throw Error("swscale cannot set the YUV range and matrix");
    }
    from_ = from;
    to_ = to;
  }
  const int rows = sws_scale(scaler_.get(), src, src_pitch, 0, from.height, dst, dst_pitch);
  if (rows != to.height)
    throw Error(std::string("swscale converted ") + std::to_string(rows) + " of " + std::to_string(to.height) +
                " rows (" + av_get_pix_fmt_name(from.format) + " to " + av_get_pix_fmt_name(to.format) + ")");
}

// ---- 360 metadata -------------------------------------------------------------------------------
// AVSphericalMapping keeps angles in 16.16 fixed point degrees and bounds in 0.32 fixed point
// fractions.

namespace {

constexpr double kAngleOne = 65536.0;
constexpr double kBoundOne = 4294967296.0;

}  // namespace

std::optional<VideoSpherical> spherical_of(const AVStream* stream) {
  std::size_t size = 0;
  const auto* map = reinterpret_cast<const AVSphericalMapping*>(
      av_stream_get_side_data(stream, AV_PKT_DATA_SPHERICAL, &size));
  if (!map || size < sizeof(AVSphericalMapping)) return std::nullopt;
  VideoSpherical out;
  switch (map->projection) {
    case AV_SPHERICAL_EQUIRECTANGULAR: out.projection = VideoSpherical::Projection::equirect; break;
    case AV_SPHERICAL_EQUIRECTANGULAR_TILE: out.projection = VideoSpherical::Projection::equirect_tile; break;
    case AV_SPHERICAL_CUBEMAP: out.projection = VideoSpherical::Projection::cubemap; break;
    default: return std::nullopt;  // a projection this FFmpeg names but we do not know: as if absent
  }
  out.yaw_deg = map->yaw / kAngleOne;
  out.pitch_deg = map->pitch / kAngleOne;
  out.roll_deg = map->roll / kAngleOne;
  out.bound_left = map->bound_left / kBoundOne;
  out.bound_top = map->bound_top / kBoundOne;
  out.bound_right = map->bound_right / kBoundOne;
  out.bound_bottom = map->bound_bottom / kBoundOne;
  out.padding = int(map->padding);
  // Demuxers differ on whether bounds make a tile (Matroska: yes; MP4: the equi box keeps plain
  // equirect): one meaning here.
  if (out.projection == VideoSpherical::Projection::equirect && !out.whole_sphere())
    out.projection = VideoSpherical::Projection::equirect_tile;
  return out;
}

std::optional<VideoStereo> stereo_of(const AVStream* stream) {
  std::size_t size = 0;
  const auto* s3d = reinterpret_cast<const AVStereo3D*>(av_stream_get_side_data(stream, AV_PKT_DATA_STEREO3D, &size));
  if (!s3d || size < sizeof(AVStereo3D)) return std::nullopt;
  VideoStereo out;
  out.layout = s3d->type == AV_STEREO3D_2D            ? VideoStereo::Layout::mono
               : s3d->type == AV_STEREO3D_TOPBOTTOM   ? VideoStereo::Layout::top_bottom
               : s3d->type == AV_STEREO3D_SIDEBYSIDE  ? VideoStereo::Layout::side_by_side
                                                       : VideoStereo::Layout::other;
  out.right_first = (s3d->flags & AV_STEREO3D_FLAG_INVERT) != 0;
  out.name = av_stereo3d_type_name(unsigned(s3d->type));
  return out;
}

void add_spherical(AVStream* stream, const VideoSpherical& spherical) {
  std::size_t size = 0;
  AVSphericalMapping* map = av_spherical_alloc(&size);
  if (!map) throw std::bad_alloc();
  map->projection = spherical.projection == VideoSpherical::Projection::cubemap ? AV_SPHERICAL_CUBEMAP
                    : spherical.projection == VideoSpherical::Projection::equirect_tile
                        ? AV_SPHERICAL_EQUIRECTANGULAR_TILE
                        : AV_SPHERICAL_EQUIRECTANGULAR;
  map->yaw = std::int32_t(std::lround(spherical.yaw_deg * kAngleOne));
  map->pitch = std::int32_t(std::lround(spherical.pitch_deg * kAngleOne));
  map->roll = std::int32_t(std::lround(spherical.roll_deg * kAngleOne));
  const auto bound = [](double f) { return std::uint32_t(std::llround(std::min(std::max(f, 0.0), 1.0) * (kBoundOne - 1))); };
  map->bound_left = bound(spherical.bound_left);
  map->bound_top = bound(spherical.bound_top);
  map->bound_right = bound(spherical.bound_right);
  map->bound_bottom = bound(spherical.bound_bottom);
  map->padding = std::uint32_t(std::max(0, spherical.padding));
  // The stream takes the allocation (freed with it).
  if (av_stream_add_side_data(stream, AV_PKT_DATA_SPHERICAL, reinterpret_cast<std::uint8_t*>(map), size) < 0) {
    av_free(map);
    throw std::bad_alloc();
  }
}

void add_stereo(AVStream* stream, const VideoStereo& stereo) {
  auto* s3d = reinterpret_cast<AVStereo3D*>(av_stream_new_side_data(stream, AV_PKT_DATA_STEREO3D, sizeof(AVStereo3D)));
  if (!s3d) throw std::bad_alloc();
  *s3d = AVStereo3D{};
  switch (stereo.layout) {
    case VideoStereo::Layout::mono: s3d->type = AV_STEREO3D_2D; break;
    case VideoStereo::Layout::top_bottom: s3d->type = AV_STEREO3D_TOPBOTTOM; break;
    case VideoStereo::Layout::side_by_side: s3d->type = AV_STEREO3D_SIDEBYSIDE; break;
    case VideoStereo::Layout::other: s3d->type = AV_STEREO3D_FRAMESEQUENCE; break;
  }
  if (stereo.right_first) s3d->flags |= AV_STEREO3D_FLAG_INVERT;
}

}  // namespace gp::io::libav
