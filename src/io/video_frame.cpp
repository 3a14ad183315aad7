#include "io/video_frame.hpp"

#include <new>
#include <utility>

#include "core/error.hpp"
#include "io/libav_support.hpp"

namespace gp::io {

const char* to_string(VideoPixels pixels) {
  switch (pixels) {
    case VideoPixels::yuv420p: return "yuv420p";
    case VideoPixels::gray8: return "gray8";
    case VideoPixels::rgb24: return "rgb24";
    case VideoPixels::rgba: return "rgba";
  }
  return "?";
}

int channels_of(VideoPixels pixels) {
  switch (pixels) {
    case VideoPixels::rgb24: return 3;
    case VideoPixels::rgba: return 4;
    default: return 1;
  }
}

const char* to_string(VideoSpherical::Projection projection) {
  switch (projection) {
    case VideoSpherical::Projection::equirect: return "equirect";
    case VideoSpherical::Projection::equirect_tile: return "equirect tile";
    case VideoSpherical::Projection::cubemap: return "cubemap";
  }
  return "unknown";
}

const char* to_string(YuvMatrix matrix) {
  switch (matrix) {
    case YuvMatrix::bt601: return "bt601";
    case YuvMatrix::bt709: return "bt709";
    case YuvMatrix::bt2020: return "bt2020";
  }
  return "?";
}

VideoFrame::VideoFrame() = default;

VideoFrame::~VideoFrame() { av_frame_free(&frame_); }

VideoFrame::VideoFrame(VideoFrame&& other) noexcept { *this = std::move(other); }

VideoFrame& VideoFrame::operator=(VideoFrame&& other) noexcept {
  if (this != &other) {
    av_frame_free(&frame_);
    frame_ = std::exchange(other.frame_, nullptr);  // other is empty, and usable again
    pixels_ = other.pixels_;
    index_ = std::exchange(other.index_, -1);
    pts_ = other.pts_;
    seconds_ = other.seconds_;
  }
  return *this;
}

AVFrame* VideoFrame::libav_frame() {
  if (!frame_ && !(frame_ = av_frame_alloc())) throw std::bad_alloc();
  return frame_;
}

bool VideoFrame::empty() const { return !frame_ || !frame_->data[0]; }
int VideoFrame::width() const { return empty() ? 0 : frame_->width; }
int VideoFrame::height() const { return empty() ? 0 : frame_->height; }

const std::uint8_t* VideoFrame::plane(int p) const {
  return !empty() && p >= 0 && p < 3 ? frame_->data[p] : nullptr;
}
int VideoFrame::pitch(int p) const { return plane(p) ? frame_->linesize[p] : 0; }

int VideoFrame::plane_width(int p) const {
  if (!plane(p)) return 0;
  return p == 0 ? frame_->width : (frame_->width + 1) / 2;
}

int VideoFrame::plane_height(int p) const {
  if (!plane(p)) return 0;
  return p == 0 ? frame_->height : (frame_->height + 1) / 2;
}

ImageView VideoFrame::plane_view(int p) const {
  ImageView v;
  if (!plane(p)) return v;
  v.data = const_cast<std::uint8_t*>(plane(p));
  v.width = plane_width(p);
  v.height = plane_height(p);
  v.channels = p == 0 ? channels_of(pixels_) : 1;
  v.type = PixelType::u8;
  v.pitch = std::size_t(pitch(p));
  return v;
}

bool VideoFrame::full_range() const {
  return !empty() && libav::is_full_range(AVPixelFormat(frame_->format), frame_->color_range);
}

YuvMatrix VideoFrame::matrix() const {
  return empty() ? YuvMatrix::bt601 : libav::matrix_of(frame_->colorspace, frame_->height);
}

bool VideoFrame::key_frame() const { return !empty() && frame_->key_frame != 0; }

VideoRgbConverter::VideoRgbConverter(Quality quality)
    : converter_(std::make_unique<libav::Converter>(quality == Quality::fast)) {}
VideoRgbConverter::~VideoRgbConverter() = default;

void VideoRgbConverter::convert(const VideoFrame& frame, const ImageView& dst) {
  if (frame.empty()) throw Error("VideoRgbConverter: the frame is empty");
  if (dst.type != PixelType::u8 || dst.channels != 3 || dst.width != frame.width() || dst.height != frame.height())
    throw Error("VideoRgbConverter: the destination must be u8 RGB of " + std::to_string(frame.width()) + "x" +
                std::to_string(frame.height()) + ", got " + std::to_string(dst.width) + "x" +
                std::to_string(dst.height) + "x" + std::to_string(dst.channels));
  libav::PictureFormat from{frame.width(), frame.height(), libav::pixel_format_of(frame.pixels()), frame.full_range(),
                            frame.matrix()};
  const libav::PictureFormat to{dst.width, dst.height, AV_PIX_FMT_RGB24, true, frame.matrix()};
  // Grey is the luma of an RGB picture: full range, so that 0 and 255 stay black and white.
  if (frame.pixels() == VideoPixels::gray8) from.full_range = true;
  const std::uint8_t* src[4] = {frame.plane(0), frame.plane(1), frame.plane(2), nullptr};
  const int src_pitch[4] = {frame.pitch(0), frame.pitch(1), frame.pitch(2), 0};
  std::uint8_t* dst_planes[4] = {static_cast<std::uint8_t*>(dst.data), nullptr, nullptr, nullptr};
  const int dst_pitch[4] = {int(dst.pitch), 0, 0, 0};
  converter_->convert(from, src, src_pitch, to, dst_planes, dst_pitch);
}

}  // namespace gp::io
