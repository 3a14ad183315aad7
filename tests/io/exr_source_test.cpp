// The EXR reader over OpenEXR's Core library against OpenImageIO's reader of the same files:
// every compression Core decodes, half/float/mixed channels, scanline and tiled, offset data
// windows, decreasing line order, one or many threads. Lossless or not, both must produce the
// same values bit for bit: they decode the same stored data.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>

#include "core/error.hpp"
#include "io/image_source.hpp"
#include "support/exr_frames.hpp"
#include "support/test_data.hpp"

namespace {

using gp::io::ImageSource;
using gp::io::ReadPlan;
using OIIO::TypeDesc;

// RGBA bytes (as decoded: half or float) of the default selection, in R, G, B, A order.
std::vector<unsigned char> decode_rgba(ImageSource& source, const std::string& path, int threads, ReadPlan* plan_out = nullptr) {
  const ReadPlan plan = gp::io::make_read_plan(path, source.parts(), gp::io::select_channels(path, source.parts(), {}),
                                               source.reads_channel_ranges());
  const std::size_t pitch = plan.row_bytes() + 8;
  std::vector<unsigned char> raw(pitch * plan.height, 0xEE);
  source.read(plan, raw.data(), pitch, threads);
  const std::size_t value = gp::pixel_type_bytes(plan.type);
  std::vector<unsigned char> rgba;
  for (int y = 0; y < plan.height; ++y)
    for (int x = 0; x < plan.width; ++x)
      for (int c = 0; c < 4; ++c) {
        const unsigned char* v = raw.data() + pitch * y + (std::size_t(x) * plan.channels.size() + plan.rgba_index[c]) * value;
        rgba.insert(rgba.end(), v, v + value);
      }
  if (plan_out) *plan_out = plan;
  return rgba;
}

}  // namespace

TEST_CASE("Core EXR reads match OpenImageIO's bit for bit", "[io][exr]") {
  gp::test::ExrLayout l;
  l.compression = GENERATE(as<std::string>{}, "none", "rle", "zips", "zip", "piz", "pxr24", "b44", "b44a");
  const int variant = GENERATE(0, 1, 2, 3);
  if (variant == 1) l.types = std::vector<TypeDesc>(4, TypeDesc::FLOAT);
  if (variant == 2) l.types = {TypeDesc::HALF, TypeDesc::FLOAT, TypeDesc::HALF, TypeDesc::HALF};  // read as float
  if (variant == 3) {
    l.x = -5, l.y = 11, l.decreasing = true;
  }
  const int tile = GENERATE(0, 32);
  l.tile = tile;
  if (tile && l.decreasing) l.decreasing = false;  // line order is a scanline property
  INFO(l.compression << " variant " << variant << (tile ? " tiled" : " scanline"));

  const auto dir = gp::test::scratch_dir("exr-core");
  const std::string path = (dir / "frame.exr").string();
  gp::test::write_exr_frame(path, l);

  auto oiio = gp::io::open_oiio_source(path);
  const auto expected = decode_rgba(*oiio, path, 1);
  auto core = gp::io::open_exr_source(path);
  const bool float_b44 = (l.compression == "b44" || l.compression == "b44a") && variant != 0 && variant != 3;
  if (float_b44) {
    CHECK_FALSE(core);  // Core 3.1 decodes B44 parts with float channels wrongly; OpenImageIO reads them
    return;
  }
  REQUIRE(core);
  CHECK(core->format_name() == "openexr");
  ReadPlan plan;
  CHECK(decode_rgba(*core, path, 1, &plan) == expected);
  CHECK(decode_rgba(*core, path, 5) == expected);
  CHECK(plan.width == l.width);
  CHECK(plan.height == l.height);
  CHECK(plan.y_begin == l.y);
  CHECK(plan.channels.size() == 4);
}

TEST_CASE("files Core does not read go to OpenImageIO", "[io][exr]") {
  const auto dir = gp::test::scratch_dir("exr-decline");
  gp::test::ExrLayout l;
  l.compression = "dwaa";
  gp::test::write_exr_frame((dir / "dwaa.exr").string(), l);
  CHECK_FALSE(gp::io::open_exr_source((dir / "dwaa.exr").string()));
  std::ofstream(dir / "text.exr") << "not an image\n";
  CHECK_FALSE(gp::io::open_exr_source((dir / "text.exr").string()));
  CHECK_FALSE(gp::io::open_exr_source((dir / "missing.exr").string()));
}

TEST_CASE("a damaged EXR block is an ItemError naming the file and the block", "[io][exr]") {
  const auto dir = gp::test::scratch_dir("exr-damaged");
  const std::string path = (dir / "damaged.exr").string();
  gp::test::ExrLayout l;
  l.compression = GENERATE(as<std::string>{}, "zip", "piz");
  gp::test::write_exr_frame(path, l);
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(0, std::ios::end);
  const auto size = std::streamoff(file.tellg());
  // Overwrite the middle of the pixel data with junk.
  file.seekp(size / 2);
  const std::string junk(64, '\x5a');
  file.write(junk.data(), std::streamsize(junk.size()));
  file.close();

  auto core = gp::io::open_exr_source(path);
  REQUIRE(core);
  std::string message;
  try {
    decode_rgba(*core, path, 3);
  } catch (const gp::ItemError& e) {
    message = e.what();
  }
  INFO(l.compression);
  CHECK_THAT(message, Catch::StartsWith(path + ": decode: the block at x 0, y "));
}
