#pragma once
// Decoded video frames as VideoReader delivers them and VideoWriter takes them, and the RGB24
// conversion for CPU paths. No libav headers here: AVFrame is only declared.
//
// Ownership: a VideoFrame holds one reference-counted libav picture. Frames straight from the
// decoder share the decoder's buffer pool (no copy, no allocation once the pool is warm); frames
// that needed a conversion own a buffer that the next read() into the same VideoFrame reuses.
// Plane pointers stay valid until the frame is read into again, moved from or destroyed. A frame
// may be handed to another thread (and released there): libav's buffer pools are thread-safe.
// Holding many frames at once makes the decoder's pool grow by as many pictures.
#include <cstdint>
#include <memory>
#include <string>

#include "core/views.hpp"

struct AVFrame;

namespace gp::io {

namespace libav {
class Converter;
}

// A rational number as libav uses for frame rates and time bases (num/den; den > 0).
struct Rational {
  int num = 0, den = 1;
  double value() const { return den != 0 ? double(num) / double(den) : 0.0; }
  bool valid() const { return num > 0 && den > 0; }
};

// Pixel layouts of frames given to VideoWriter and delivered by VideoReader.
enum class VideoPixels {
  yuv420p,  // planar Y, U, V; chroma half width and height (rounded up), 8 bits
  gray8,    // one 8-bit plane (masks)
  rgb24,    // interleaved R, G, B
  rgba,     // interleaved R, G, B, A (A straight, not premultiplied)
};
const char* to_string(VideoPixels pixels);
int channels_of(VideoPixels pixels);  // of the interleaved formats; 1 for yuv420p's planes

// The matrix between YUV and RGB (ITU-R BT.601, BT.709, BT.2020 non-constant luminance).
enum class YuvMatrix { bt601, bt709, bt2020 };
const char* to_string(YuvMatrix matrix);

// How a 360 video is projected, as the file says (Google's Spherical Video V2 metadata: MP4's
// sv3d box, Matroska's Projection element), from the stream's side data.
struct VideoSpherical {
  // equirect_tile: an equirect panorama cut to `bound_*` (e.g. a 180-degree half); cubemap: six
  // faces in a 3x2 grid (the metadata's layout 0) with `padding` pixels around each face.
  enum class Projection { equirect, equirect_tile, cubemap };
  Projection projection = Projection::equirect;
  // The projection's pose: yaw, pitch, roll in degrees (sv3d's prhd box), the rotation a player
  // applies to the sphere before showing it.
  double yaw_deg = 0, pitch_deg = 0, roll_deg = 0;
  // equirect_tile: the fractions (0..1) of the full panorama's width and height that the picture
  // leaves out on each side; all 0: the whole sphere.
  double bound_left = 0, bound_top = 0, bound_right = 0, bound_bottom = 0;
  int padding = 0;  // cubemap
  bool whole_sphere() const { return bound_left == 0 && bound_top == 0 && bound_right == 0 && bound_bottom == 0; }
};
const char* to_string(VideoSpherical::Projection projection);  // "equirect", "equirect tile", "cubemap"

// How a stereoscopic video holds its two views (MP4's st3d box, Matroska's StereoMode): mono (explicitly 2D), the left view above the right, beside
// it, or something else (frame sequence, lines, columns, checkerboard).
struct VideoStereo {
  enum class Layout { mono, top_bottom, side_by_side, other };
  Layout layout = Layout::mono;
  bool right_first = false;  // the right view is the top or left one
  std::string name;          // libav's name of the type ("2D", "top and bottom", "side by side"...)
};

class VideoFrame {
 public:
  VideoFrame();
  ~VideoFrame();
  VideoFrame(VideoFrame&& other) noexcept;
  VideoFrame& operator=(VideoFrame&& other) noexcept;
  VideoFrame(const VideoFrame&) = delete;
  VideoFrame& operator=(const VideoFrame&) = delete;

  bool empty() const;
  int width() const;
  int height() const;
  VideoPixels pixels() const { return pixels_; }

  // Plane p of yuv420p: 0 = Y (width x height), 1 = U, 2 = V ((width+1)/2 x (height+1)/2);
  // gray8/rgb24/rgba have plane 0 only. pitch(p) = bytes between row starts (positive).
  const std::uint8_t* plane(int p) const;
  int pitch(int p) const;
  int plane_width(int p) const;
  int plane_height(int p) const;
  // Plane p as a 1-channel u8 view; for gray8/rgb24/rgba, plane 0 is the whole interleaved image
  // (view()). The data pointer is non-const only because ImageView's is: do not write through it.
  ImageView plane_view(int p) const;
  ImageView view() const { return plane_view(0); }

  // YUV range: true for 0..255 (JPEG, yuvj420p), false for 16..235 luma / 16..240 chroma.
  bool full_range() const;
  YuvMatrix matrix() const;

  std::int64_t index() const { return index_; }  // 0-based, in presentation order
  std::int64_t pts() const { return pts_; }      // in the stream's time base
  double seconds() const { return seconds_; }    // pts in seconds (container timeline)
  bool key_frame() const;

 private:
  friend class VideoReader;
  AVFrame* libav_frame();     // allocated on first use
  AVFrame* frame_ = nullptr;  // null until first read into, and after a move
  VideoPixels pixels_ = VideoPixels::yuv420p;
  std::int64_t index_ = -1, pts_ = 0;
  double seconds_ = 0;
};

// YUV 4:2:0 frames to interleaved RGB24 for CPU paths (swscale, honouring the frame's range and
// matrix). Keeps its swscale context between calls: one object per thread.
class VideoRgbConverter {
 public:
  // accurate: chroma interpolated (bicubic) to every pixel, exact rounding; fast: swscale's SIMD
  // path (chroma repeated over its 2x2 pixels, as ffmpeg's command line converts), 10-15x faster,
  // for frames that go on to be resampled anyway (stitch-360's panoramas at 8K).
  enum class Quality { accurate, fast };
  explicit VideoRgbConverter(Quality quality = Quality::accurate);
  ~VideoRgbConverter();
  VideoRgbConverter(const VideoRgbConverter&) = delete;
  VideoRgbConverter& operator=(const VideoRgbConverter&) = delete;
  // dst: u8, 3 channels, the frame's size, any pitch. Throws gp::Error on a mismatch.
  void convert(const VideoFrame& frame, const ImageView& dst);

 private:
  std::unique_ptr<libav::Converter> converter_;
};

}  // namespace gp::io
