#pragma once
// A 360 video clip for the video tests, made from the sample panorama (data-samples/stitch/
// equirect.jpg, 1024x512, a rendered landscape): the camera turns (the panorama shifts by a yaw of
// 9 pixels a frame), and every frame has motion blur along the turn (a horizontal box of 15
// pixels) but the frames listed sharp. H.264 (libx264, crf 12) at 10 frames/s.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "io/file_bytes.hpp"
#include "io/jpeg_codec.hpp"
#include "io/video_writer.hpp"
#include "support/test_data.hpp"

namespace gp::stitch::test {

inline std::string turning_clip(const std::string& path, int frames, const std::set<int>& sharp) {
  const std::string sample = gp::test::source_path("data-samples/stitch/equirect.jpg");
  const std::vector<std::uint8_t> bytes = io::read_file_bytes(sample);
  const io::JpegInfo info = io::jpeg_info(bytes, sample);
  const int w = info.width, h = info.height;
  std::vector<std::uint8_t> panorama(std::size_t(w) * h * 3), frame(panorama.size());
  io::decode_jpeg(bytes.data(), bytes.size(), packed_view(panorama.data(), w, h, 3, PixelType::u8), sample);
  io::VideoWriterOptions options;
  options.input = io::VideoPixels::rgb24;
  options.frame_rate = {10, 1};
  options.crf = 12;
  options.preset = "veryfast";
  io::VideoWriter writer(path, w, h, options);
  constexpr int kShift = 9, kBlur = 7;  // box of 2 x 7 + 1 pixels
  for (int t = 0; t < frames; ++t) {
    const bool blurred = sharp.count(t) == 0;
    for (int y = 0; y < h; ++y) {
      const std::uint8_t* in = &panorama[std::size_t(y) * w * 3];
      std::uint8_t* out = &frame[std::size_t(y) * w * 3];
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 3; ++c) {
          if (!blurred) {
            out[3 * x + c] = in[3 * ((x + t * kShift) % w) + c];
            continue;
          }
          int sum = 0;
          for (int d = -kBlur; d <= kBlur; ++d) sum += in[3 * (((x + t * kShift + d) % w + w) % w) + c];
          out[3 * x + c] = std::uint8_t((sum + kBlur) / (2 * kBlur + 1));
        }
    }
    writer.write(packed_view(frame.data(), w, h, 3, PixelType::u8));
  }
  writer.finish();
  return path;
}

}  // namespace gp::stitch::test
