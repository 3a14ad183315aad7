#pragma once
// EXR test frames written by OpenImageIO in a chosen layout (compression, channel types, tiles,
// data window, line order, noise): camera-like content (a smooth HDR gradient with fine texture
// and sensor noise, a few negative values), shared by the EXR reader's and block decoder's tests.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace gp::test {

using OIIO::TypeDesc;

struct ExrLayout {
  std::string compression = "zip";
  int width = 301, height = 77;  // several blocks of every kind, partial last ones
  int x = 0, y = 0;              // data window origin
  int tile = 0;
  bool decreasing = false;
  float noise = 0.02f;           // 1: noise that no compression shrinks (blocks stored raw)
  std::vector<TypeDesc> types{TypeDesc::HALF, TypeDesc::HALF, TypeDesc::HALF, TypeDesc::HALF};  // A, B, G, R stored
};

inline void write_exr_frame(const std::string& path, const ExrLayout& l) {
  OIIO::ImageSpec spec(l.width, l.height, 4, TypeDesc::FLOAT);
  spec.x = l.x;
  spec.y = l.y;
  spec.full_x = spec.full_y = 0;
  spec.channelnames = {"R", "G", "B", "A"};
  spec.channelformats = l.types;
  spec.attribute("compression", l.compression);
  if (l.decreasing) spec.attribute("openexr:lineOrder", "decreasingY");
  spec.tile_width = spec.tile_height = l.tile;
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.f, l.noise);
  std::uniform_real_distribution<float> uniform(-1e4f, 1e4f);
  std::vector<float> pixels(std::size_t(l.width) * l.height * 4);
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x)
      for (int c = 0; c < 4; ++c) {
        const float base = std::exp2(-8.f + 16.f * float(x) / float(l.width)) * (1.f + 0.3f * c);
        const float texture = 1.f + 0.2f * std::sin(float(x * 3 + y * 5 + c));
        float v = l.noise >= 1.f ? uniform(rng) : c == 3 ? float(y) / float(l.height) : base * texture * (1.f + noise(rng));
        if ((x * 7 + y * 13 + c) % 997 == 0) v = -v;
        pixels[(std::size_t(y) * l.width + x) * 4 + c] = v;
      }
  auto out = OIIO::ImageOutput::create(path);
  REQUIRE(out);
  REQUIRE(out->open(path, spec));
  REQUIRE(out->write_image(TypeDesc::FLOAT, pixels.data()));
  REQUIRE(out->close());
}

// Every layout the block tests cover, for one compression: (description, layout).
inline std::vector<std::pair<std::string, ExrLayout>> exr_layouts(const std::string& compression) {
  const TypeDesc H = TypeDesc::HALF, F = TypeDesc::FLOAT;
  std::vector<std::pair<std::string, ExrLayout>> cases;
  ExrLayout half;
  half.compression = compression;
  cases.push_back({"half", half});
  ExrLayout mixed = half;
  mixed.types = {F, H, F, H};
  cases.push_back({"mixed", mixed});
  ExrLayout floats = half;
  floats.types = {F, F, F, F};
  floats.tile = 32;
  floats.x = -13;
  floats.y = 5;
  cases.push_back({"float tiled, offset window", floats});
  ExrLayout decreasing = half;
  decreasing.decreasing = true;
  decreasing.x = 7;
  decreasing.y = -3;
  cases.push_back({"decreasing, offset window", decreasing});
  ExrLayout line = half;
  line.height = 1;
  cases.push_back({"one scanline", line});
  ExrLayout noisy = half;
  noisy.noise = 1.f;
  noisy.types = {F, F, F, F};
  cases.push_back({"noise (stored raw)", noisy});
  ExrLayout tiles = half;
  tiles.tile = 64;
  cases.push_back({"half tiled", tiles});
  return cases;
}

}  // namespace gp::test
