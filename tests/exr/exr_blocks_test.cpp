// The EXR block decoder's steps (cuda/exr, run on the CPU by decode_exr_blocks_cpu: what the GPU
// decoder runs) against OpenEXR Core (open_exr_source's reader), bit for bit: NONE, RLE, ZIPS and
// ZIP; half, float and mixed channels; scanline and tiled; offset data windows; decreasing line
// order; one-scanline images; blocks stored raw because compression did not help; and damaged
// blocks failing with the file and the block named.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "core/error.hpp"
#include "io/exr_blocks.hpp"
#include "io/file_bytes.hpp"
#include "io/image_source.hpp"
#include "support/test_data.hpp"

namespace {

using gp::io::ReadPlan;
using OIIO::TypeDesc;

struct Layout {
  std::string compression = "zip";
  int width = 301, height = 77;  // several blocks of every kind, partial last ones
  int x = 0, y = 0;              // data window origin
  int tile = 0;
  bool decreasing = false;
  float noise = 0.02f;           // 1: noise that no compression shrinks (blocks stored raw)
  std::vector<TypeDesc> types{TypeDesc::HALF, TypeDesc::HALF, TypeDesc::HALF, TypeDesc::HALF};  // A, B, G, R stored
};

void write_frame(const std::string& path, const Layout& l) {
  OIIO::ImageSpec spec(l.width, l.height, 4, TypeDesc::FLOAT);
  spec.x = l.x;
  spec.y = l.y;
  spec.full_x = spec.full_y = 0;
  spec.channelnames = {"R", "G", "B", "A"};
  spec.channelformats = l.types;
  spec.attribute("compression", l.compression);
  if (l.decreasing) spec.attribute("openexr:lineOrder", "decreasingY");
  spec.tile_width = spec.tile_height = l.tile;
  std::mt19937 rng(11);
  std::normal_distribution<float> noise(0.f, l.noise);
  std::uniform_real_distribution<float> uniform(-1e4f, 1e4f);
  std::vector<float> pixels(std::size_t(l.width) * l.height * 4);
  for (int y = 0; y < l.height; ++y)
    for (int x = 0; x < l.width; ++x)
      for (int c = 0; c < 4; ++c) {
        const float base = std::exp2(-8.f + 16.f * float(x) / float(l.width)) * (1.f + 0.3f * c);
        float v = l.noise >= 1.f ? uniform(rng) : base * (1.f + 0.2f * std::sin(float(x * 3 + y * 5 + c))) * (1.f + noise(rng));
        if ((x * 7 + y * 13 + c) % 997 == 0) v = -v;
        pixels[(std::size_t(y) * l.width + x) * 4 + c] = v;
      }
  auto out = OIIO::ImageOutput::create(path);
  REQUIRE(out);
  REQUIRE(out->open(path, spec));
  REQUIRE(out->write_image(TypeDesc::FLOAT, pixels.data()));
  REQUIRE(out->close());
}

struct Decoded {
  std::vector<unsigned char> core, blocks;
  gp::io::ExrBlocks table;
};

// The default selection read by Core and by the block steps, into buffers of the same pitch
// (padding bytes marked, so that a write outside the pixels shows).
Decoded decode_both(const std::string& path, int threads) {
  auto source = gp::io::open_exr_source(path);
  REQUIRE(source);
  const ReadPlan plan = gp::io::make_read_plan(path, source->parts(), gp::io::select_channels(path, source->parts(), {}),
                                               source->reads_channel_ranges());
  const std::size_t pitch = plan.row_bytes() + 8;
  Decoded d;
  d.core.assign(pitch * std::size_t(plan.height), 0xEE);
  d.blocks = d.core;
  source->read(plan, d.core.data(), pitch, threads);
  auto table = gp::io::exr_blocks(*source, plan);
  REQUIRE(table);
  d.table = *table;
  const std::vector<std::uint8_t> file = gp::io::read_file_bytes(path);
  gp::io::decode_exr_blocks_cpu(path, file.data(), file.size(), d.table, plan, d.blocks.data(), pitch, threads);
  return d;
}

}  // namespace

TEST_CASE("EXR blocks: decoded bit for bit as OpenEXR Core does", "[exr][blocks]") {
  const auto dir = gp::test::scratch_dir("exr-blocks");
  const TypeDesc H = TypeDesc::HALF, F = TypeDesc::FLOAT;
  struct Case {
    const char* name;
    Layout layout;
  };
  std::vector<Case> cases;
  for (const char* c : {"none", "rle", "zips", "zip"}) {
    Layout half;
    half.compression = c;
    cases.push_back({"half", half});
    Layout mixed = half;
    mixed.types = {F, H, F, H};
    cases.push_back({"mixed", mixed});
    Layout floats = half;
    floats.types = {F, F, F, F};
    floats.tile = 32;
    floats.x = -13;
    floats.y = 5;
    cases.push_back({"float tiled, offset window", floats});
    Layout decreasing = half;
    decreasing.decreasing = true;
    decreasing.x = 7;
    decreasing.y = -3;
    cases.push_back({"decreasing, offset window", decreasing});
    Layout line = half;
    line.height = 1;
    cases.push_back({"one scanline", line});
    Layout noisy = half;
    noisy.noise = 1.f;
    noisy.types = {F, F, F, F};
    cases.push_back({"noise (stored raw)", noisy});
    Layout tiles = half;
    tiles.tile = 64;
    cases.push_back({"half tiled", tiles});
  }
  for (const Case& c : cases) {
    const std::string path = (dir / (std::string(c.layout.compression) + "-" + std::to_string(&c - cases.data()) + ".exr")).string();
    write_frame(path, c.layout);
    for (const int threads : {1, 3}) {
      INFO(c.layout.compression << " " << c.name << ", " << threads << " thread(s)");
      const Decoded d = decode_both(path, threads);
      CHECK(d.table.compression == (c.layout.compression == std::string("none") ? 0
                                    : c.layout.compression == std::string("rle") ? 1
                                    : c.layout.compression == std::string("zips") ? 2 : 3));
      CHECK(d.blocks == d.core);
      if (c.layout.noise >= 1.f && c.layout.compression != std::string("none")) {
        std::size_t raw = 0;
        for (const gp::io::ExrBlock& b : d.table.blocks) raw += b.packed_size == b.unpacked_size;
        CHECK(raw > 0);  // the case meant: compression did not help, the block is stored as is
      }
    }
  }
}

TEST_CASE("EXR blocks: damaged blocks fail naming the file and the block", "[exr][blocks]") {
  const auto dir = gp::test::scratch_dir("exr-blocks-damaged");
  for (const char* compression : {"zip", "rle"}) {
    const std::string path = (dir / (std::string(compression) + ".exr")).string();
    Layout l;
    l.compression = compression;
    write_frame(path, l);
    auto source = gp::io::open_exr_source(path);
    REQUIRE(source);
    const ReadPlan plan = gp::io::make_read_plan(path, source->parts(), gp::io::select_channels(path, source->parts(), {}), false);
    const gp::io::ExrBlocks table = *gp::io::exr_blocks(*source, plan);
    std::vector<std::uint8_t> file = gp::io::read_file_bytes(path);
    std::vector<unsigned char> out(plan.bytes());
    // The third block's data cut short in the table, then garbled in place.
    gp::io::ExrBlocks cut = table;
    cut.blocks[2].packed_size /= 2;
    const std::string where = "the block at x 0, y " + std::to_string(table.blocks[2].y);
    INFO(compression);
    try {
      gp::io::decode_exr_blocks_cpu(path, file.data(), file.size(), cut, plan, out.data(), plan.row_bytes(), 2);
      FAIL("a block cut short decoded");
    } catch (const gp::ItemError& e) {
      CHECK(std::string(e.what()).find(path) != std::string::npos);
      CHECK(std::string(e.what()).find(where) != std::string::npos);
    }
    for (std::uint64_t k = 0; k < table.blocks[2].packed_size; k += 7) file[table.blocks[2].offset + k] ^= 0x5a;
    CHECK_THROWS_AS(gp::io::decode_exr_blocks_cpu(path, file.data(), file.size(), table, plan, out.data(), plan.row_bytes(), 2),
                    gp::ItemError);
    // A block said to lie past the end of the file.
    gp::io::ExrBlocks past = table;
    past.blocks.back().offset = file.size() - 1;
    CHECK_THROWS_AS(gp::io::decode_exr_blocks_cpu(path, file.data(), file.size(), past, plan, out.data(), plan.row_bytes(), 2),
                    gp::ItemError);
  }
}
