// gp::io over real files: EXR of every compression (half/float, scanline/tiled), parts, layers,
// channel rules, broken inputs, 8/16-bit outputs and tiled MIP-mapped TIFF/EXR.
#include <catch2/catch.hpp>

#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>

#include "core/error.hpp"
#include "io/image_io.hpp"
#include "support/test_data.hpp"

namespace {

using gp::ItemError;
using gp::io::ChannelSelection;
using gp::io::HdrReader;
using gp::io::ReadPlan;
using OIIO::ImageSpec;
using OIIO::TypeDesc;

// A smooth HDR value, 2^-10 .. 2^10 across x, different per part and channel, so each channel
// read back can be told apart and lossy codecs stay close.
float source_value(int part, int channel, int x, int y, int width) {
  const float t = width > 1 ? float(x) / float(width - 1) : 0.f;
  return std::exp2(-10.f + 20.f * t) * (1.f + 0.5f * float(channel)) * (1.f + 2.f * float(part)) + 0.01f * float(y);
}

struct Part {
  std::string name;                   // EXR part name ("" = none)
  std::vector<std::string> channels;  // written in this order
  TypeDesc type = TypeDesc::HALF;
};

struct ExrLayout {
  int width = 37, height = 23;  // odd sizes: partial tiles and blocks
  std::string compression = "zip";
  int tile = 0;                 // 0 = scanline
};

void write_exr(const std::string& path, const std::vector<Part>& parts, const ExrLayout& layout = {}) {
  std::vector<ImageSpec> specs;
  for (auto& p : parts) {
    ImageSpec spec(layout.width, layout.height, int(p.channels.size()), p.type);
    spec.channelnames = p.channels;
    spec.attribute("compression", layout.compression);
    if (!p.name.empty()) spec.attribute("oiio:subimagename", p.name);
    spec.tile_width = spec.tile_height = layout.tile;
    specs.push_back(spec);
  }
  auto out = OIIO::ImageOutput::create(path);
  REQUIRE(out);
  for (std::size_t s = 0; s < parts.size(); ++s) {
    const bool ok = s == 0 ? out->open(path, int(specs.size()), specs.data())
                           : out->open(path, specs[s], OIIO::ImageOutput::AppendSubimage);
    INFO(out->geterror());
    REQUIRE(ok);
    const int nch = int(parts[s].channels.size());
    std::vector<float> pixels(std::size_t(layout.width) * layout.height * nch);
    for (int y = 0; y < layout.height; ++y)
      for (int x = 0; x < layout.width; ++x)
        for (int c = 0; c < nch; ++c)
          pixels[(std::size_t(y) * layout.width + x) * nch + c] = source_value(int(s), c, x, y, layout.width);
    REQUIRE(out->write_image(TypeDesc::FLOAT, pixels.data()));
  }
  REQUIRE(out->close());
}

// Reads a selection as RGBA floats through the plan's mapping (alpha 1 when there is none).
struct Decoded {
  ReadPlan plan;
  std::vector<float> rgba;
  float at(int x, int y, int c) const { return rgba[(std::size_t(y) * plan.width + x) * 4 + c]; }
};

Decoded decode(const std::string& path, const ChannelSelection& selection = {}) {
  HdrReader reader(path);
  Decoded d;
  d.plan = reader.plan(selection);
  const std::size_t pitch = d.plan.row_bytes() + 16;  // padded rows: the pitch is honoured
  std::vector<unsigned char> raw(pitch * d.plan.height);
  reader.read(d.plan, raw.data(), pitch);
  const int nch = d.plan.channel_count();
  const TypeDesc type = d.plan.type == gp::PixelType::f16 ? TypeDesc::HALF : TypeDesc::FLOAT;
  std::vector<float> row(std::size_t(d.plan.width) * nch);
  d.rgba.resize(std::size_t(d.plan.width) * d.plan.height * 4);
  for (int y = 0; y < d.plan.height; ++y) {
    OIIO::convert_pixel_values(type, raw.data() + pitch * y, TypeDesc::FLOAT, row.data(), int(row.size()));
    for (int x = 0; x < d.plan.width; ++x)
      for (int c = 0; c < 4; ++c) {
        const int src = d.plan.rgba_index[c];
        d.rgba[(std::size_t(y) * d.plan.width + x) * 4 + c] = src >= 0 ? row[std::size_t(x) * nch + src] : 1.f;
      }
  }
  return d;
}

// `v` as the file holds it: rounded to half for half channels.
float stored(float v, TypeDesc type) {
  if (type != TypeDesc::HALF) return v;
  std::uint16_t half_bits;
  OIIO::convert_pixel_values(TypeDesc::FLOAT, &v, TypeDesc::HALF, &half_bits, 1);
  OIIO::convert_pixel_values(TypeDesc::HALF, &half_bits, TypeDesc::FLOAT, &v, 1);
  return v;
}

// Max relative error of `d` against part `part`'s written channels `channels` (RGBA order; -1 = 1.0).
double max_relative_error(const Decoded& d, int part, std::vector<int> channels, TypeDesc type) {
  double worst = 0;
  for (int y = 0; y < d.plan.height; ++y)
    for (int x = 0; x < d.plan.width; ++x)
      for (int c = 0; c < 4; ++c) {
        const float want = channels[c] < 0 ? 1.f : stored(source_value(part, channels[c], x, y, d.plan.width), type);
        worst = std::max(worst, std::abs(double(d.at(x, y, c)) - want) / std::max(1e-3, double(std::abs(want))));
      }
  return worst;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ItemError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string decode_error(const std::string& path, const ChannelSelection& selection = {}) {
  return error_of([&] { decode(path, selection); });
}

const Part rgba_half{"", {"R", "G", "B", "A"}, TypeDesc::HALF};

}  // namespace

TEST_CASE("EXR compressions round trip, half and float, scanline and tiled", "[io]") {
  const std::string compression = GENERATE(as<std::string>{}, "none", "zip", "zips", "piz", "rle", "pxr24", "b44", "dwaa");
  const TypeDesc type = GENERATE(TypeDesc::HALF, TypeDesc::FLOAT);
  const int tile = GENERATE(0, 16);
  INFO(compression << " " << type.c_str() << (tile ? " tiled" : " scanline"));

  const auto dir = gp::test::scratch_dir("io-exr");
  const std::string path = (dir / "frame.exr").string();
  write_exr(path, {{"", {"R", "G", "B", "A"}, type}}, {37, 23, compression, tile});

  const Decoded d = decode(path);
  CHECK(d.plan.width == 37);
  CHECK(d.plan.height == 23);
  CHECK(d.plan.type == (type == TypeDesc::HALF ? gp::PixelType::f16 : gp::PixelType::f32));
  CHECK(d.plan.channel_names == std::vector<std::string>{"R", "G", "B", "A"});
  CHECK(HdrReader(path).format_name() == "openexr");

  // Lossy: b44 and dwaa on half channels, pxr24 on float ones (24-bit floats).
  const bool lossy = (type == TypeDesc::HALF && (compression == "b44" || compression == "dwaa")) ||
                     (type == TypeDesc::FLOAT && (compression == "pxr24" || compression == "dwaa"));
  const double error = max_relative_error(d, 0, {0, 1, 2, 3}, type);
  if (lossy)
    CHECK(error < 0.15);  // channels differ by 50%: a mix-up would still show
  else
    CHECK(error == 0);
}

TEST_CASE("EXR parts are selected by name", "[io]") {
  const auto dir = gp::test::scratch_dir("io-parts");
  const std::string path = (dir / "parts.exr").string();
  write_exr(path, {{"beauty", {"R", "G", "B", "A"}, TypeDesc::HALF},
                   {"diffuse", {"R", "G", "B"}, TypeDesc::FLOAT},
                   {"depth", {"Z"}, TypeDesc::FLOAT}});

  const Decoded beauty = decode(path);
  CHECK(beauty.plan.subimage == 0);
  CHECK(beauty.plan.layer_name == "beauty");
  CHECK(max_relative_error(beauty, 0, {0, 1, 2, 3}, TypeDesc::HALF) == 0);

  const Decoded diffuse = decode(path, {"diffuse", {}});
  CHECK(diffuse.plan.subimage == 1);
  CHECK(diffuse.plan.type == gp::PixelType::f32);
  CHECK(diffuse.plan.rgba_index[3] == -1);
  CHECK(max_relative_error(diffuse, 1, {0, 1, 2, -1}, TypeDesc::FLOAT) == 0);

  // A single channel that is not Y: the first channel, as grey.
  const Decoded depth = decode(path, {"depth", {}});
  CHECK(depth.plan.subimage == 2);
  CHECK(depth.plan.channel_names == std::vector<std::string>{"Z"});
  CHECK(max_relative_error(depth, 2, {0, 0, 0, -1}, TypeDesc::FLOAT) == 0);

  const std::string missing = decode_error(path, {"specular", {}});
  CHECK_THAT(missing, Catch::Contains(path) && Catch::Contains("\"specular\"") && Catch::Contains("\"beauty\"") &&
                          Catch::Contains("\"diffuse\""));
}

TEST_CASE("layers of a single-part EXR are selected by channel prefix", "[io]") {
  const auto dir = gp::test::scratch_dir("io-layers");
  const std::string path = (dir / "layers.exr").string();
  const std::vector<std::string> written = {"R", "G", "B", "A", "diffuse.R", "diffuse.G", "diffuse.B", "normal.X"};
  write_exr(path, {{"", written, TypeDesc::HALF}});
  auto index_of = [&](const std::string& name) { return int(std::find(written.begin(), written.end(), name) - written.begin()); };

  const Decoded main = decode(path);
  CHECK(max_relative_error(main, 0, {index_of("R"), index_of("G"), index_of("B"), index_of("A")}, TypeDesc::HALF) == 0);

  const Decoded diffuse = decode(path, {"diffuse", {}});
  CHECK(diffuse.plan.layer_name == "diffuse");
  CHECK(diffuse.plan.channel_names == std::vector<std::string>{"diffuse.R", "diffuse.G", "diffuse.B"});
  CHECK(max_relative_error(diffuse, 0, {index_of("diffuse.R"), index_of("diffuse.G"), index_of("diffuse.B"), -1},
                           TypeDesc::HALF) == 0);

  SECTION("explicit channels within the layer, in any order and case") {
    const Decoded swapped = decode(path, {"diffuse", {"b", "G", "R"}});
    CHECK(max_relative_error(swapped, 0, {index_of("diffuse.B"), index_of("diffuse.G"), index_of("diffuse.R"), -1},
                             TypeDesc::HALF) == 0);
  }
  SECTION("a full channel name without a layer reads as grey") {
    const Decoded grey = decode(path, {"", {"normal.X"}});
    CHECK(max_relative_error(grey, 0, {index_of("normal.X"), index_of("normal.X"), index_of("normal.X"), -1},
                             TypeDesc::HALF) == 0);
  }
  SECTION("a missing channel names the file and lists what it has") {
    const std::string e = decode_error(path, {"diffuse", {"R", "G", "X"}});
    CHECK_THAT(e, Catch::Contains(path) && Catch::Contains("\"diffuse.X\"") && Catch::Contains("diffuse.G") &&
                      Catch::Contains("\"normal\""));
  }
  SECTION("two channels are neither grey nor RGB") {
    CHECK_THAT(decode_error(path, {"", {"R", "G"}}), Catch::Contains("1 (grey), 3 (RGB) or 4 (RGBA)"));
  }
  SECTION("a missing layer") {
    CHECK_THAT(decode_error(path, {"specular", {}}), Catch::Contains("no part or layer \"specular\""));
  }
}

TEST_CASE("default channels: RGB(A) in any case, else Y, else the first channel", "[io]") {
  const auto dir = gp::test::scratch_dir("io-defaults");
  auto plan_of = [&](const std::vector<std::string>& channels) {
    const std::string path = (dir / "c.exr").string();
    write_exr(path, {{"", channels, TypeDesc::HALF}}, {8, 4, "zip", 0});
    return decode(path);
  };
  auto rgba = [](const Decoded& d) {
    return std::vector<int>(d.plan.rgba_index, d.plan.rgba_index + 4);
  };
  CHECK(rgba(plan_of({"r", "g", "b"})) == std::vector<int>{0, 1, 2, -1});
  CHECK(plan_of({"R", "G", "B", "A"}).plan.channel_names == std::vector<std::string>{"R", "G", "B", "A"});

  const Decoded ya = plan_of({"Y", "A"});
  CHECK(ya.plan.channel_names == std::vector<std::string>{"Y", "A"});
  CHECK(ya.at(3, 2, 0) == ya.at(3, 2, 1));
  CHECK(ya.at(3, 2, 3) != 1.f);

  const Decoded first = plan_of({"Z", "depth2"});
  CHECK(first.plan.channel_names.size() == 1);
  CHECK(first.plan.rgba_index[3] == -1);
  CHECK(first.plan.rgba_index[0] == first.plan.rgba_index[2]);

  // Only prefixed channels: the first channel's layer is the default one.
  const Decoded prefixed = plan_of({"beauty.R", "beauty.G", "beauty.B", "beauty.A", "depth.Z"});
  CHECK(prefixed.plan.layer_name == "beauty");
  CHECK(prefixed.plan.channel_names == std::vector<std::string>{"beauty.R", "beauty.G", "beauty.B", "beauty.A"});
}

TEST_CASE("the committed samples decode", "[io]") {
  struct Sample { const char* path; const char* layer; int width, height; bool alpha; };
  for (const Sample& s : {Sample{"exr/sunset_half_zip.exr", "", 512, 256, true},
                          Sample{"exr/noon_float_piz.exr", "", 320, 180, false},
                          Sample{"exr/dusk_half_dwaa_tiled.exr", "", 480, 270, true},
                          Sample{"exr/render_multipart.exr", "", 320, 180, true},
                          Sample{"exr/render_multipart.exr", "diffuse", 320, 180, false},
                          Sample{"exr/render_multilayer.exr", "", 320, 180, true},
                          Sample{"exr/render_multilayer.exr", "emission", 320, 180, false},
                          Sample{"hdr/sunset_sky.hdr", "", 256, 128, false}}) {
    INFO(s.path << " " << s.layer);
    const Decoded d = decode(gp::test::source_path(std::string("data-samples/") + s.path), {s.layer, {}});
    CHECK(d.plan.width == s.width);
    CHECK(d.plan.height == s.height);
    CHECK((d.plan.rgba_index[3] >= 0) == s.alpha);
    CHECK(*std::max_element(d.rgba.begin(), d.rgba.end()) > 2.f);  // high dynamic range
  }
}

TEST_CASE("Radiance .hdr and float TIFF sources", "[io]") {
  const auto dir = gp::test::scratch_dir("io-hdr");
  for (const char* name : {"sky.hdr", "sky.tif"}) {
    const std::string path = (dir / name).string();
    ImageSpec spec(16, 8, 3, TypeDesc::FLOAT);
    std::vector<float> pixels;
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 16; ++x)
        for (int c = 0; c < 3; ++c) pixels.push_back(source_value(0, c, x, y, 16));
    auto out = OIIO::ImageOutput::create(path);
    REQUIRE(out);
    REQUIRE(out->open(path, spec));
    REQUIRE(out->write_image(TypeDesc::FLOAT, pixels.data()));
    REQUIRE(out->close());

    const Decoded d = decode(path);
    CHECK(d.plan.type == gp::PixelType::f32);
    // RGBE keeps about 1% (8-bit mantissas shared over the pixel); TIFF floats are exact.
    CHECK(max_relative_error(d, 0, {0, 1, 2, -1}, TypeDesc::FLOAT) <= (std::string(name) == "sky.hdr" ? 0.02 : 0.0));
  }
}

TEST_CASE("broken sources give an ItemError that names the file", "[io]") {
  const auto dir = gp::test::scratch_dir("io-broken");
  const std::string good = (dir / "good.exr").string();
  const int tile = GENERATE(0, 32);
  write_exr(good, {rgba_half}, {256, 128, "zip", tile});
  std::ifstream in(good, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() > 4000);

  for (std::size_t keep : {std::size_t(0), std::size_t(8), std::size_t(300), std::size_t(3000), bytes.size() / 2,
                           bytes.size() - 1}) {
    INFO("kept " << keep << " of " << bytes.size() << " bytes" << (tile ? ", tiled" : ""));
    const std::string path = (dir / ("truncated-" + std::to_string(keep) + ".exr")).string();
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(keep));
    CHECK_THAT(decode_error(path), Catch::StartsWith(path + ": decode: "));
  }

  const std::string text = (dir / "text.exr").string();
  std::ofstream(text) << "not an image\n";
  CHECK_THAT(decode_error(text), Catch::StartsWith(text + ": decode: "));
  CHECK_THAT(decode_error((dir / "missing.exr").string()), Catch::Contains("missing.exr"));
}

// ---- outputs ---------------------------------------------------------------------------------

namespace {

// An interleaved u8/u16 test image with distinct values per pixel and channel, rows padded.
struct TestImage {
  std::vector<unsigned char> bytes;
  gp::ImageView view;
  TestImage(int width, int height, int channels, gp::PixelType type, int seed = 0) {
    view = gp::packed_view(nullptr, width, height, channels, type);
    view.pitch += 8;
    bytes.resize(view.bytes());
    view.data = bytes.data();
    const unsigned max = type == gp::PixelType::u8 ? 255 : 65535;
    for (int y = 0; y < height; ++y)
      for (int i = 0; i < width * channels; ++i) {
        const unsigned v = unsigned(i * 2654435761u + y * 40503u + seed * 977u) % (max + 1);
        if (type == gp::PixelType::u8) view.row<std::uint8_t>(y)[i] = std::uint8_t(v);
        else view.row<std::uint16_t>(y)[i] = std::uint16_t(v);
      }
  }
  unsigned at(int x, int y, int c) const {
    const int i = x * view.channels + c;
    return view.type == gp::PixelType::u8 ? view.row<std::uint8_t>(y)[i] : view.row<std::uint16_t>(y)[i];
  }
};

// Reads every MIP level (or the only image) back as unsigned integers, straight alpha.
struct ReadBack {
  std::vector<ImageSpec> levels;
  std::vector<std::vector<float>> pixels;  // normalised 0..1
};

ReadBack read_back(const std::string& path) {
  ImageSpec config;
  config.attribute("oiio:UnassociatedAlpha", 1);
  auto in = OIIO::ImageInput::open(path, &config);
  REQUIRE(in);
  ReadBack r;
  for (int level = 0; in->seek_subimage(0, level); ++level) {
    const ImageSpec spec = in->spec();
    std::vector<float> px(std::size_t(spec.width) * spec.height * spec.nchannels);
    REQUIRE(in->read_image(0, level, 0, spec.nchannels, TypeDesc::FLOAT, px.data()));
    r.levels.push_back(spec);
    r.pixels.push_back(std::move(px));
  }
  return r;
}

// Largest difference, in integer steps of the source's type, between `image` and `back`.
double max_step_difference(const TestImage& image, const std::vector<float>& back) {
  const double max = image.view.type == gp::PixelType::u8 ? 255 : 65535;
  double worst = 0;
  for (int y = 0; y < image.view.height; ++y)
    for (int x = 0; x < image.view.width; ++x)
      for (int c = 0; c < image.view.channels; ++c) {
        const double got = back[(std::size_t(y) * image.view.width + x) * image.view.channels + c] * max;
        worst = std::max(worst, std::abs(got - image.at(x, y, c)));
      }
  return worst;
}

}  // namespace

TEST_CASE("8- and 16-bit outputs round trip exactly", "[io]") {
  const auto dir = gp::test::scratch_dir("io-write");
  struct Case { const char* name; int channels; gp::PixelType type; };
  for (const Case& c : {Case{"rgba8.png", 4, gp::PixelType::u8}, Case{"rgb16.png", 3, gp::PixelType::u16},
                        Case{"grey8.png", 1, gp::PixelType::u8}, Case{"greyalpha16.png", 2, gp::PixelType::u16},
                        Case{"rgba16.tif", 4, gp::PixelType::u16}, Case{"rgb8.tif", 3, gp::PixelType::u8}}) {
    INFO(c.name);
    const std::string path = (dir / c.name).string();
    const TestImage image(33, 17, c.channels, c.type);
    gp::io::write_image(path, image.view, {90, 1, "zip"});
    const ReadBack back = read_back(path);
    REQUIRE(back.levels.size() == 1);
    CHECK(back.levels[0].width == 33);
    CHECK(back.levels[0].height == 17);
    CHECK(back.levels[0].nchannels == c.channels);
    CHECK(back.levels[0].format == (c.type == gp::PixelType::u8 ? TypeDesc::UINT8 : TypeDesc::UINT16));
    CHECK(max_step_difference(image, back.pixels[0]) < 0.01);  // straight alpha: colours untouched
  }
}

TEST_CASE("PNG compression level and JPEG quality are applied", "[io]") {
  const auto dir = gp::test::scratch_dir("io-options");
  const TestImage image(128, 64, 3, gp::PixelType::u8);
  auto size_of = [&](const std::string& name, const gp::io::WriteOptions& options) {
    const std::string path = (dir / name).string();
    gp::io::write_image(path, image.view, options);
    return std::filesystem::file_size(path);
  };
  CHECK(size_of("fast.png", {90, 0, "zip"}) > size_of("small.png", {90, 9, "zip"}));
  CHECK(size_of("q95.jpg", {95, 6, "zip"}) > size_of("q20.jpg", {20, 6, "zip"}));
  if (gp::io::can_write_extension(".webp"))
    CHECK(size_of("q95.webp", {95, 6, "zip"}) > size_of("q20.webp", {20, 6, "zip"}));
}

TEST_CASE("WebP takes grey images as RGB", "[io]") {
  if (!gp::io::can_write_extension(".webp")) return;  // optional in OpenImageIO builds
  const auto dir = gp::test::scratch_dir("io-webp");
  for (int channels : {1, 2}) {
    const std::string path = (dir / ("grey" + std::to_string(channels) + ".webp")).string();
    gp::io::write_image(path, TestImage(16, 8, channels, gp::PixelType::u8).view, {100, 6, "zip"});
    CHECK(read_back(path).levels.at(0).nchannels == channels + 2);
  }
}

TEST_CASE("write errors are ItemErrors naming the file", "[io]") {
  const auto dir = gp::test::scratch_dir("io-write-errors");
  const TestImage image(8, 8, 3, gp::PixelType::u8);
  for (const std::string& path : {(dir / "no-such-dir" / "x.png").string(), (dir / "x.unknownext").string()}) {
    const std::string e = error_of([&] { gp::io::write_image(path, image.view, {}); });
    CHECK_THAT(e, Catch::StartsWith(path + ": encode: "));
  }
  TestImage wide(8, 8, 3, gp::PixelType::f32);
  CHECK_THAT(error_of([&] { gp::io::write_image((dir / "f.png").string(), wide.view, {}); }),
             Catch::Contains("8- or 16-bit"));
}

TEST_CASE("tiled MIP-mapped TIFF and EXR hold every level", "[io]") {
  const std::string ext = GENERATE(as<std::string>{}, ".tif", ".exr");
  const gp::PixelType type = GENERATE(gp::PixelType::u8, gp::PixelType::u16);
  const auto dir = gp::test::scratch_dir("io-mip");
  const std::string path = (dir / ("chain" + ext)).string();

  std::vector<TestImage> levels;
  for (int w = 150, h = 70, l = 0;; w = std::max(1, w / 2), h = std::max(1, h / 2), ++l) {
    levels.emplace_back(w, h, 4, type, l);
    if (w == 1 && h == 1) break;
  }
  std::vector<gp::ImageView> views;
  for (auto& l : levels) views.push_back(l.view);
  gp::io::write_mip_image(path, views, {});

  const ReadBack back = read_back(path);
  REQUIRE(back.levels.size() == levels.size());  // 150x70 .. 1x1: 8 levels
  CHECK(back.levels.size() == 8);
  for (std::size_t l = 0; l < levels.size(); ++l) {
    INFO("level " << l);
    CHECK(back.levels[l].width == levels[l].view.width);
    CHECK(back.levels[l].height == levels[l].view.height);
    CHECK(back.levels[l].tile_width == 64);
    CHECK(back.levels[l].tile_height == 64);
    // EXR stores the integers as half (11-bit mantissa): 8-bit values round back exactly, 16-bit
    // ones to within 16 steps.
    const double steps = max_step_difference(levels[l], back.pixels[l]);
    if (ext == ".exr")
      CHECK(steps <= (type == gp::PixelType::u8 ? 0.49 : 16));
    else
      CHECK(steps < 0.01);
  }
  CHECK(back.levels[0].get_string_attribute("textureformat") == "Plain Texture");

  SECTION("levels that do not halve are refused") {
    views.erase(views.begin() + 1);
    CHECK_THAT(error_of([&] { gp::io::write_mip_image(path, views, {}); }), Catch::Contains("not half the size"));
  }
}

TEST_CASE("MIP-mapped outputs need a tiled format", "[io]") {
  const auto dir = gp::test::scratch_dir("io-mip-png");
  const TestImage image(2, 2, 3, gp::PixelType::u8), level1(1, 1, 3, gp::PixelType::u8);
  const std::string path = (dir / "chain.png").string();
  CHECK_THAT(error_of([&] { gp::io::write_mip_image(path, {image.view, level1.view}, {}); }),
             Catch::StartsWith(path + ": encode: ") && Catch::Contains("tiled MIP-mapped"));
}

TEST_CASE("format support and versions", "[io]") {
  CHECK(gp::io::can_write_extension(".png"));
  CHECK(gp::io::can_write_extension(".TIF"));
  CHECK(gp::io::can_write_extension("exr"));
  CHECK_FALSE(gp::io::can_write_extension(".notaformat"));
  CHECK_THAT(gp::io::oiio_version(), Catch::StartsWith("2."));
  CHECK_THAT(gp::io::oiio_formats(), Catch::Contains("openexr") && Catch::Contains("png"));
}
