// The rig test's scene (rig_scene.hpp): rays from the camera centre through each equirect pixel
// (2x2 samples) to the nearest surface of an axis-aligned room and the boxes in it.
#include "rig_scene.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "io/video_writer.hpp"
#include "value_noise.hpp"

namespace gp::samples {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct Vec {
  double x, y, z;
};

struct Rgb {
  double r, g, b;
};

// A surface's texture at (u, v) metres: tiles of 0.35 m, each a random colour and brightness,
// holding a disc of another colour; fine noise over all.
Rgb surface_texture(double u, double v, std::uint64_t seed) {
  constexpr double tile = 0.35;
  const double tu = u / tile, tv = v / tile;
  const auto iu = std::int64_t(std::floor(tu)), iv = std::int64_t(std::floor(tv));
  auto colour = [&](std::uint64_t salt) {
    const double level = 0.15 + 0.8 * lattice(iu, iv, seed ^ salt);
    return Rgb{level * (0.5 + 0.5 * lattice(iu, iv, seed ^ (salt + 1))), level * (0.5 + 0.5 * lattice(iu, iv, seed ^ (salt + 2))),
               level * (0.5 + 0.5 * lattice(iu, iv, seed ^ (salt + 3)))};
  };
  Rgb c = colour(0x100);
  const double cx = 0.25 + 0.5 * lattice(iu, iv, seed ^ 0x200), cy = 0.25 + 0.5 * lattice(iu, iv, seed ^ 0x201);
  const double radius = 0.08 + 0.17 * lattice(iu, iv, seed ^ 0x202);
  const double fu = tu - double(iu), fv = tv - double(iv);
  if (std::hypot(fu - cx, fv - cy) < radius) c = colour(0x300);
  const double grain = 0.8 + 0.2 * value_noise(u / 0.04, v / 0.04, seed ^ 0x400) + 0.15 * value_noise(u / 0.13, v / 0.13, seed ^ 0x401);
  return {c.r * grain, c.g * grain, c.b * grain};
}

struct Box {
  Vec lo, hi;
  std::uint64_t seed;
};

// The room (seen from inside) and the boxes in it (seen from outside). y is down: the floor is at
// y = +1.5, the ceiling at y = -1.5.
const Box kRoom{{-4, -1.5, -3}, {4, 1.5, 3}, 1000};
const std::array<Box, 4> kBoxes{{{{1.2, 0.6, 1.0}, {2.0, 1.5, 1.8}, 2000},
                                 {{-2.5, -0.2, -2.0}, {-1.8, 1.5, -1.2}, 3000},
                                 {{-0.5, 0.9, -2.2}, {0.4, 1.5, -1.5}, 4000},
                                 {{2.6, -1.5, -1.0}, {3.2, -0.6, -0.2}, 5000}}};

double axis(const Vec& v, int k) { return k == 0 ? v.x : k == 1 ? v.y : v.z; }

// Colour seen along the ray o + t d.
Rgb trace(const Vec& o, const Vec& d) {
  // The nearest box entered (slabs), else the room's wall where the ray leaves it.
  double best_t = INFINITY;
  int best_axis = 0, best_side = 0;
  std::uint64_t best_seed = 0;
  for (const Box& b : kBoxes) {
    double enter = -INFINITY, leave = INFINITY;
    int enter_axis = 0;
    for (int k = 0; k < 3; ++k) {
      const double dk = axis(d, k), ok = axis(o, k);
      if (dk == 0) {
        if (ok < axis(b.lo, k) || ok > axis(b.hi, k)) enter = INFINITY;
        continue;
      }
      double t0 = (axis(b.lo, k) - ok) / dk, t1 = (axis(b.hi, k) - ok) / dk;
      if (t0 > t1) std::swap(t0, t1);
      if (t0 > enter) enter = t0, enter_axis = k;
      leave = std::min(leave, t1);
    }
    if (enter <= leave && enter > 0 && enter < best_t) {
      best_t = enter, best_axis = enter_axis, best_side = axis(d, enter_axis) > 0 ? 0 : 1;
      best_seed = b.seed + std::uint64_t(2 * enter_axis + best_side);
    }
  }
  if (!std::isfinite(best_t)) {
    for (int k = 0; k < 3; ++k) {
      const double dk = axis(d, k);
      if (dk == 0) continue;
      const double t = ((dk > 0 ? axis(kRoom.hi, k) : axis(kRoom.lo, k)) - axis(o, k)) / dk;
      if (t < best_t) best_t = t, best_axis = k, best_side = dk > 0 ? 1 : 0;
    }
    best_seed = kRoom.seed + std::uint64_t(2 * best_axis + best_side);
  }
  const Vec p{o.x + best_t * d.x, o.y + best_t * d.y, o.z + best_t * d.z};
  // The two coordinates within the surface.
  const double u = best_axis == 0 ? p.z : p.x, v = best_axis == 1 ? p.z : p.y;
  const Rgb c = surface_texture(u, v, best_seed);
  // Each orientation lit differently, so that edges between surfaces show.
  static const double light[3][2] = {{0.75, 0.9}, {1.0, 0.6}, {0.85, 0.7}};
  const double shade = light[best_axis][best_side];
  return {c.r * shade, c.g * shade, c.b * shade};
}

std::uint8_t level(double value) { return std::uint8_t(std::clamp(std::lround(value * 255), 0L, 255L)); }

}  // namespace

int make_rig_scene(const std::filesystem::path& dir, int width, int frames) {
  std::filesystem::create_directories(dir);
  const int height = width / 2;
  const std::string clip = (dir / "rig_scene.mp4").string();
  io::VideoWriterOptions options;
  options.input = io::VideoPixels::rgb24;
  options.codec = "libx264";
  options.crf = 12;
  options.preset = "fast";
  options.frame_rate = {2, 1};
  options.threads = 1;      // x264's output depends on its thread count
  options.bitexact = true;  // no version strings from libavformat
  options.keyframe_interval = 1;
  io::VideoWriter writer(clip, width, height, options);

  nlohmann::ordered_json poses = nlohmann::ordered_json::array();
  std::vector<std::uint8_t> rgb(std::size_t(width) * height * 3);
  for (int f = 0; f < frames; ++f) {
    const Vec centre{-0.45 + 0.3 * f, 0.0, 0.1 * f};
    const double yaw = 4.0 * f * kPi / 180, cy = std::cos(yaw), sy = std::sin(yaw);
    auto rows = [&](int first, int step) {
      for (int j = first; j < height; j += step)
        for (int i = 0; i < width; ++i) {
          Rgb sum{0, 0, 0};
          for (int s = 0; s < 4; ++s) {
            // v360's equirect: yaw from -180 at the left edge, pitch +90 at the top.
            const double x = i + 0.25 + 0.5 * (s % 2), y = j + 0.25 + 0.5 * (s / 2);
            const double lon = (x / width - 0.5) * 2 * kPi, lat = (0.5 - y / height) * kPi;
            const Vec local{std::cos(lat) * std::sin(lon), -std::sin(lat), std::cos(lat) * std::cos(lon)};
            const Vec d{cy * local.x + sy * local.z, local.y, -sy * local.x + cy * local.z};  // turned by the camera's yaw
            const Rgb c = trace(centre, d);
            sum = {sum.r + c.r / 4, sum.g + c.g / 4, sum.b + c.b / 4};
          }
          std::uint8_t* out = &rgb[(std::size_t(j) * width + i) * 3];
          out[0] = level(sum.r), out[1] = level(sum.g), out[2] = level(sum.b);
        }
    };
    const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(rows, t, threads);
    for (auto& t : pool) t.join();
    writer.write(packed_view(rgb.data(), width, height, 3, PixelType::u8));
    poses.push_back({{"frame", f}, {"position_m", {centre.x, centre.y, centre.z}}, {"yaw_deg", 4.0 * f}});
  }
  writer.finish();
  const nlohmann::ordered_json truth = {
      {"generator", "gpuproc-make-samples rig-scene"},
      {"file", "rig_scene.mp4"},
      {"width", width},
      {"height", height},
      {"frame_rate", 2},
      {"frame", "v360's panorama frame: x right, y down, z forward; the camera turned by yaw (degrees, to the right)"},
      {"room_m", {{"min", {-4, -1.5, -3}}, {"max", {4, 1.5, 3}}}},
      {"per_frame", poses}};
  std::ofstream((dir / "rig_scene.json").string()) << truth.dump(1) << "\n";
  std::cout << clip << ": " << frames << " frames of " << width << "x" << height << "\n";
  return 0;
}

}  // namespace gp::samples
