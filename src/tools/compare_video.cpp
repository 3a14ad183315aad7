// Videos (segment-body's mask videos, track-faces' previews; any container and codec libav reads):
// decoded frame by frame and each frame compared as an image, with the image tolerances.
#include <fmt/format.h>

#include <limits>

#include "tools/compare_parts.hpp"
#include "io/oiio_module.hpp"
#include "io/video_reader.hpp"

namespace gp::tools::compare {
namespace {

// A decoded 8-bit frame as an integer-format image (samples k / 255, as a PNG reads).
class FrameImage final : public FloatImage {
 public:
  explicit FrameImage(VideoPixels pixels) {
    integer_format = true;
    channels = channels_of(pixels);
    channel_names = pixels == VideoPixels::gray8 ? std::vector<std::string>{"Y"} : std::vector<std::string>{"R", "G", "B"};
  }
  void show(const VideoFrame& frame) {
    frame_ = &frame;
    width = frame.width();
    height = frame.height();
  }
  void read_row(int row, std::vector<float>& values) const override {
    const std::uint8_t* p = frame_->plane(0) + std::size_t(row) * std::size_t(frame_->pitch(0));
    values.resize(std::size_t(width) * std::size_t(channels));
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = float(p[i]) / 255.0f;
  }

 private:
  const VideoFrame* frame_ = nullptr;
};

// Grey streams (masks) compare as one channel, without a colour conversion; others as RGB.
VideoPixels pixels_of(const std::string& path) {
  return VideoReader(path).info().pixel_format.rfind("gray", 0) == 0 ? VideoPixels::gray8 : VideoPixels::rgb24;
}

VideoReaderOptions reading(VideoPixels pixels) {
  VideoReaderOptions options;
  options.pixels = pixels;
  return options;  // decode errors and truncation throw: such a file cannot be compared
}

// How many frames `reader` has: it decodes the rest (into `frame`), for the frame count message.
std::int64_t frame_count(VideoReader& reader, VideoFrame& frame) {
  while (reader.read(frame)) {
  }
  return reader.frames_read();
}

}  // namespace

FileComparison compare_videos(const std::string& a, const std::string& b, const CompareOptions& o) {
  FileComparison result;
  const VideoPixels pixels = pixels_of(a);
  if (pixels != pixels_of(b)) {
    result.differ(fmt::format("{} frames vs {} in {}", pixels == VideoPixels::gray8 ? "grey" : "colour",
                              pixels == VideoPixels::gray8 ? "colour" : "grey", b));
    return result;
  }
  VideoReader reader_a(a, reading(pixels)), reader_b(b, reading(pixels));
  const VideoStreamInfo &info_a = reader_a.info(), &info_b = reader_b.info();
  result.details = {{"width", info_a.width}, {"height", info_a.height}, {"channels", channels_of(pixels)},
                    {"frame_rate", info_a.frame_rate.value()}};
  if (info_a.frame_rate.num * std::int64_t(info_b.frame_rate.den) != info_b.frame_rate.num * std::int64_t(info_a.frame_rate.den))
    result.differ(fmt::format("frame rate {:.6g} vs {:.6g} in {}", info_a.frame_rate.value(), info_b.frame_rate.value(), b));

  VideoFrame frame_a, frame_b;
  FrameImage image_a(pixels), image_b(pixels);
  std::vector<double> channel_max(std::size_t(image_a.channels), 0.0);
  double min_psnr = std::numeric_limits<double>::infinity();
  std::size_t differing_frames = 0;
  std::string first_difference, frame_counts;
  for (;;) {
    const bool more_a = reader_a.read(frame_a), more_b = reader_b.read(frame_b);
    if (!more_a || !more_b) {
      const std::int64_t frames_a = more_a ? frame_count(reader_a, frame_a) : reader_a.frames_read();
      const std::int64_t frames_b = more_b ? frame_count(reader_b, frame_b) : reader_b.frames_read();
      result.details["frames"] = frames_a;
      if (frames_a != frames_b) frame_counts = fmt::format("{} frames vs {} in {}", frames_a, frames_b, b);
      break;
    }
    const std::int64_t index = frame_a.index();
    image_a.show(frame_a);
    image_b.show(frame_b);
    if (const auto shape = image_shape_difference(image_a, image_b)) {
      result.differ(fmt::format("frame {}: {} in {}", index, *shape, b));
      return result;
    }
    const ImageDifference d = measure_images(image_a, image_b, o);
    for (std::size_t c = 0; c < channel_max.size(); ++c) channel_max[c] = std::max(channel_max[c], d.channel_max[c]);
    min_psnr = std::min(min_psnr, d.psnr_db());
    if (d.acceptable(o) || differing_frames++ > 0) continue;
    json first{{"frame", index}};
    first.update(image_metrics(image_a, d));
    result.details["first_differing_frame"] = std::move(first);
    first_difference = fmt::format("frame {}: {}", index, describe_image_difference(image_a, d, o));
  }
  if (differing_frames > 0)
    result.differ(first_difference + (differing_frames > 1 ? fmt::format("; {} frames differ", differing_frames) : ""));
  if (!frame_counts.empty()) result.differ(frame_counts);
  json max_abs = json::object();
  for (std::size_t c = 0; c < channel_max.size(); ++c) max_abs[image_a.channel_names[c]] = finite_or_null(channel_max[c]);
  result.details["differing_frames"] = differing_frames;
  result.details["max_abs_difference"] = std::move(max_abs);
  result.details["min_psnr_db"] = finite_or_null(min_psnr);
  return result;
}

}  // namespace gp::tools::compare
