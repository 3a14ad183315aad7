#pragma once
// HDR (float) panoramas for the stitch-360 tests: a sky-like radiance over the sphere texture with
// a small sun far above 1, the range an HDR environment map has.
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/views.hpp"
#include "stitch/projection_images.hpp"

namespace gp::stitch::test {

struct FloatImage {
  std::vector<float> pixels;
  ImageView view;
  FloatImage() = default;
  FloatImage(int width, int height, int channels) : pixels(std::size_t(width) * height * channels, 0.0f) {
    view = packed_view(pixels.data(), width, height, channels, PixelType::f32);
  }
  FloatImage(const FloatImage& o) : pixels(o.pixels), view(o.view) { view.data = pixels.data(); }
  FloatImage(FloatImage&&) noexcept = default;
  float* px(int x, int y) { return pixels.data() + (std::size_t(y) * view.width + x) * view.channels; }
  const float* px(int x, int y) const { return pixels.data() + (std::size_t(y) * view.width + x) * view.channels; }
};

// Sun direction (yaw 20, pitch 15 degrees up: sphere.hpp's y points down; inside the front cube
// face), the angular width of its glow and its peak radiance.
constexpr double sun_direction[3] = {0.33036608954935, -0.25881904510252, 0.90767337119781};
constexpr double sun_width_rad = 0.03;
constexpr float sun_radiance = 2000.0f;

// Radiance of direction d, channel c: 0.02..4 from the texture (exponential, as skies span
// stops) plus the sun, a Gaussian glow peaking at sun_radiance.
inline float hdr_radiance(const double d[3], int c) {
  const double dot = d[0] * sun_direction[0] + d[1] * sun_direction[1] + d[2] * sun_direction[2];
  const double angle = std::acos(std::fmin(1.0, dot)) / sun_width_rad;
  const double t = sphere_texture(d, c) / 255.0;  // 0..1
  return float(0.02 * std::exp2(7.6 * t) + sun_radiance * std::exp(-angle * angle));
}

inline FloatImage hdr_equirect(int w, int h) {
  FloatImage img(w, h, 3);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      double d[3];
      equirect_pixel_direction(i, j, w, h, d);
      for (int c = 0; c < 3; ++c) img.px(i, j)[c] = hdr_radiance(d, c);
    }
  return img;
}

}  // namespace gp::stitch::test
