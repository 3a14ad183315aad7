#pragma once
// Host images and synthetic panoramas shared by the projection tests (CPU and GPU).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <vector>

#include "core/views.hpp"
#include "cuda/stitch/sphere.hpp"

namespace gp::stitch::test {

// A packed (or row-padded) u8 image on the host.
struct HostImage {
  std::vector<std::uint8_t> pixels;
  ImageView view;
  HostImage() = default;
  HostImage(int width, int height, int channels, std::size_t row_padding = 0) {
    view = packed_view(nullptr, width, height, channels, PixelType::u8);
    view.pitch += row_padding;
    pixels.assign(view.pitch * std::size_t(height), 0);
    view.data = pixels.data();
  }
  HostImage(const HostImage& o) : pixels(o.pixels), view(o.view) { view.data = pixels.data(); }
  // A moved vector keeps its buffer, so the view stays valid (copies would leave views that
  // point into a vector's old storage dangling when a std::vector<HostImage> grows).
  HostImage(HostImage&&) noexcept = default;
  HostImage& operator=(HostImage&&) noexcept = default;
  HostImage& operator=(const HostImage& o) {
    pixels = o.pixels;
    view = o.view;
    view.data = pixels.data();
    return *this;
  }
  std::uint8_t* px(int x, int y) { return pixels.data() + view.pitch * std::size_t(y) + std::size_t(x) * view.channels; }
  const std::uint8_t* px(int x, int y) const {
    return pixels.data() + view.pitch * std::size_t(y) + std::size_t(x) * view.channels;
  }
};

// Exact (double) direction of equirect pixel (i, j), the conventions of sphere.hpp.
inline void equirect_pixel_direction(int i, int j, int w, int h, double d[3]) {
  const double pi = 3.14159265358979323846;
  const double phi = ((2.0 * i + 1.0) / w - 1.0) * pi, theta = ((2.0 * j + 1.0) / h - 1.0) * pi / 2;
  d[0] = std::cos(theta) * std::sin(phi);
  d[1] = std::sin(theta);
  d[2] = std::cos(theta) * std::cos(phi);
}

// A texture defined on the sphere (seamless across the +-180 deg seam and the poles): channel c of
// direction d, 0..255. Sinusoids of several orientations with wavelengths of about 2pi / k rad.
inline double sphere_texture(const double d[3], int c, double detail = 1.0) {
  const double k1 = 7.0 * detail, k2 = 13.0 * detail, k3 = 23.0 * detail;
  const double a = std::sin(k1 * (0.8 * d[0] + 0.6 * d[1]) + 0.5 * c);
  const double b = std::sin(k2 * (0.6 * d[2] - 0.8 * d[1]) + 1.1 * c);
  const double e = std::sin(k3 * (0.48 * d[0] + 0.64 * d[1] + 0.6 * d[2]) + 2.0 * c);
  return 127.5 + 55.0 * a + 40.0 * b + 25.0 * e;
}

inline std::uint8_t to_byte(double v) { return std::uint8_t(std::lround(std::fmin(255.0, std::fmax(0.0, v)))); }

// W x H equirect of a function of the direction.
inline HostImage equirect_of(int w, int h, int channels, const std::function<double(const double*, int)>& f) {
  HostImage img(w, h, channels);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      double d[3];
      equirect_pixel_direction(i, j, w, h, d);
      for (int c = 0; c < channels; ++c) img.px(i, j)[c] = to_byte(f(d, c));
    }
  return img;
}

inline HostImage textured_equirect(int w, int h, int channels, double detail = 1.0) {
  return equirect_of(w, h, channels, [detail](const double* d, int c) { return sphere_texture(d, c, detail); });
}

inline HostImage constant_image(int w, int h, int channels, std::uint8_t value) {
  HostImage img(w, h, channels);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w * channels; ++i) img.px(0, j)[i] = value;
  return img;
}

// PSNR over all pixels and channels (infinite when equal).
inline double psnr(const HostImage& a, const HostImage& b) {
  double sum = 0;
  long n = 0;
  for (int y = 0; y < a.view.height; ++y)
    for (int x = 0; x < a.view.width * a.view.channels; ++x) {
      const double d = double(a.px(0, y)[x]) - double(b.px(0, y)[x]);
      sum += d * d;
      ++n;
    }
  return sum == 0 ? INFINITY : 10.0 * std::log10(255.0 * 255.0 / (sum / double(n)));
}

// Largest absolute difference and the number of differing values.
inline int max_difference(const HostImage& a, const HostImage& b, long* differing = nullptr) {
  int worst = 0;
  long count = 0;
  for (int y = 0; y < a.view.height; ++y)
    for (int x = 0; x < a.view.width * a.view.channels; ++x) {
      const int d = std::abs(int(a.px(0, y)[x]) - int(b.px(0, y)[x]));
      worst = std::max(worst, d);
      count += d != 0;
    }
  if (differing) *differing = count;
  return worst;
}

}  // namespace gp::stitch::test
