// The video input sample (video_samples.hpp): shapes with known paths over a moving texture,
// rendered straight to YUV 4:2:0 and encoded with VideoWriter.
#include "video_samples.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/video_writer.hpp"
#include "value_noise.hpp"

namespace gp::samples {
namespace {

using Json = nlohmann::ordered_json;
constexpr double kPi = 3.14159265358979323846;
constexpr int kWidth = 320, kHeight = 240, kFrames = 60, kFps = 30;

// Three octaves: blotches of ~24 px with finer grain, in [0, 1).
double texture(double x, double y) {
  return (0.57 * value_noise(x / 24, y / 24, 11) + 0.29 * value_noise(x / 9, y / 9, 12) +
          0.14 * value_noise(x / 3.5, y / 3.5, 13));
}

// Coverage of a shape from its signed distance (negative inside), a one-pixel soft edge.
double coverage(double distance) { return std::clamp(0.5 - distance, 0.0, 1.0); }

struct Shapes {
  double disc_x, disc_y, disc_r;
  double hand_angle;  // radians, clockwise from 12 o'clock (y grows downward)
  double square_x0, square_y0, square_size;
};

Shapes shapes_at(int t) {
  const double phase = 2 * kPi * t / kFrames;  // one lap over the clip: it loops
  Shapes s;
  s.disc_x = kWidth * 0.5 + 100 * std::cos(phase);
  s.disc_y = kHeight * 0.5 + 60 * std::sin(phase);
  s.disc_r = 26;
  s.hand_angle = 2 * phase;
  const double travel = kWidth - 48;                                         // one way, in px
  const double bounce = std::abs(std::fmod(2 * travel * t / kFrames, 2 * travel) - travel);  // travel .. 0 .. travel
  s.square_x0 = kWidth - 48 - bounce + 8;
  s.square_y0 = 16;
  s.square_size = 32;
  return s;
}

struct Rgb {
  double r, g, b;
};

Rgb mix(Rgb a, Rgb b, double t) { return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t}; }

// The picture at a pixel centre, channels in [0, 1].
Rgb shade(int t, double x, double y, const Shapes& s) {
  // Background: a diagonal gradient, textured, the texture panning left 1.5 px per frame.
  const double n = texture(x + 1.5 * t, y);
  const double gx = x / kWidth, gy = y / kHeight;
  Rgb c{0.25 + 0.45 * gx, 0.35 + 0.3 * gy, 0.55 - 0.3 * gx * gy};
  c = mix(c, Rgb{c.r * 0.35, c.g * 0.45, c.b * 0.4}, n);
  // The hand: a 4 px wide segment from the centre, 90 px long.
  const double cx = kWidth * 0.5, cy = kHeight * 0.5;
  const double dx = std::sin(s.hand_angle), dy = -std::cos(s.hand_angle);
  const double along = std::clamp((x - cx) * dx + (y - cy) * dy, 0.0, 90.0);
  const double hand_distance = std::hypot(x - (cx + along * dx), y - (cy + along * dy)) - 2;
  c = mix(c, Rgb{0.95, 0.95, 0.9}, coverage(hand_distance));
  // The square, then the disc on top.
  const double sq = std::max({s.square_x0 - x, x - (s.square_x0 + s.square_size), s.square_y0 - y,
                              y - (s.square_y0 + s.square_size)});
  c = mix(c, Rgb{0.1, 0.2, 0.85}, coverage(sq));
  const double disc = std::hypot(x - s.disc_x, y - s.disc_y) - s.disc_r;
  c = mix(c, Rgb{0.9, 0.12, 0.1}, coverage(disc));
  return c;
}

// BT.601, limited range (Y 16..235, U/V 16..240).
void to_yuv(Rgb c, double& y, double& u, double& v) {
  y = 16 + 65.481 * c.r + 128.553 * c.g + 24.966 * c.b;
  u = 128 - 37.797 * c.r - 74.203 * c.g + 112.0 * c.b;
  v = 128 + 112.0 * c.r - 93.786 * c.g - 18.214 * c.b;
}

std::uint8_t level(double value) { return std::uint8_t(std::clamp(std::lround(value), 0L, 255L)); }

}  // namespace

int make_video_samples(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "video");
  const std::string clip = (dir / "video" / "moving_shapes.mp4").string();

  io::VideoWriterOptions options;
  options.codec = "libx264";
  options.crf = 23;
  options.preset = "medium";
  options.frame_rate = {kFps, 1};
  options.threads = 1;      // x264's output depends on its thread count
  options.bitexact = true;  // no version strings from libavformat
  options.keyframe_interval = 30;
  io::VideoWriter writer(clip, kWidth, kHeight, options);

  std::vector<std::uint8_t> y_plane(kWidth * kHeight), u_plane(kWidth * kHeight / 4), v_plane(kWidth * kHeight / 4);
  std::vector<double> u_full(kWidth * kHeight), v_full(kWidth * kHeight);
  Json frames = Json::array();
  for (int t = 0; t < kFrames; ++t) {
    const Shapes s = shapes_at(t);
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x) {
        double luma, u, v;
        to_yuv(shade(t, x + 0.5, y + 0.5, s), luma, u, v);
        y_plane[y * kWidth + x] = level(luma);
        u_full[y * kWidth + x] = u;
        v_full[y * kWidth + x] = v;
      }
    // Chroma: the mean of each 2x2 block (centred between its pixels, as MPEG-1/JPEG siting).
    for (int y = 0; y < kHeight / 2; ++y)
      for (int x = 0; x < kWidth / 2; ++x) {
        const int i = 2 * y * kWidth + 2 * x;
        u_plane[y * kWidth / 2 + x] = level((u_full[i] + u_full[i + 1] + u_full[i + kWidth] + u_full[i + kWidth + 1]) / 4);
        v_plane[y * kWidth / 2 + x] = level((v_full[i] + v_full[i + 1] + v_full[i + kWidth] + v_full[i + kWidth + 1]) / 4);
      }
    writer.write_yuv420(y_plane.data(), kWidth, u_plane.data(), kWidth / 2, v_plane.data(), kWidth / 2);
    frames.push_back({{"frame", t},
                      {"seconds", double(t) / kFps},
                      {"disc_center", {s.disc_x, s.disc_y}},
                      {"disc_radius", s.disc_r},
                      {"hand_angle_deg", s.hand_angle * 180 / kPi},
                      {"square_box", {s.square_x0, s.square_y0, s.square_size, s.square_size}}});
  }
  writer.finish();

  const Json truth = {
      {"generator", "gpuproc-make-samples video-samples"},
      {"file", "moving_shapes.mp4"},
      {"width", kWidth},
      {"height", kHeight},
      {"frame_rate", kFps},
      {"frames", kFrames},
      {"codec", "h264 (libx264 crf 23, preset medium, keyframe every 30 frames)"},
      {"pixels", "yuv420p, BT.601, limited range"},
      {"coordinates", "pixels; pixel (i, j) has its centre at (i + 0.5, j + 0.5); y down"},
      {"colours_rgb", {{"disc", {0.9, 0.12, 0.1}}, {"hand", {0.95, 0.95, 0.9}}, {"square", {0.1, 0.2, 0.85}}}},
      {"hand", "4 px wide, 90 px long from the frame centre (160, 120); angle clockwise from straight up"},
      {"background", "diagonal colour gradient darkened by value noise that pans left 1.5 px per frame"},
      {"per_frame", frames}};
  std::ofstream((dir / "video" / "moving_shapes.json").string()) << truth.dump(1) << "\n";
  std::cout << clip << ": " << kFrames << " frames, " << std::filesystem::file_size(clip) << " bytes\n";
  return 0;
}

}  // namespace gp::samples
