#include "io/image_io.hpp"

#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "core/error.hpp"
#include "io/png_encoder.hpp"

namespace gp::io {
namespace {

using OIIO::ImageInput;
using OIIO::ImageOutput;
using OIIO::ImageSpec;
using OIIO::TypeDesc;

constexpr int kMipTileSize = 64;

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool iequals(const std::string& a, const std::string& b) { return lowercase(a) == lowercase(b); }

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// OIIO's error text (which clears it), trimmed; `fallback` when it has nothing to say.
std::string oiio_message(std::string message, const char* fallback) {
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
  return message.empty() ? fallback : message;
}

// ---- reading ---------------------------------------------------------------------------------

// The layer of a channel name: everything before the last '.' ("diffuse.R" -> "diffuse", "R" -> "").
std::string layer_of(const std::string& channel) {
  auto dot = channel.rfind('.');
  return dot == std::string::npos ? "" : channel.substr(0, dot);
}

std::string part_name(const ImageSpec& spec) { return spec.get_string_attribute("oiio:subimagename"); }

std::vector<std::string> layers_of(const ImageSpec& spec) {
  std::vector<std::string> layers;
  for (auto& name : spec.channelnames)
    if (std::find(layers.begin(), layers.end(), layer_of(name)) == layers.end()) layers.push_back(layer_of(name));
  return layers;
}

// "parts "beauty" (R, G, B, A), "diffuse" (...)" or "channels R, G, B, A, diffuse.R, ... (layers ...)",
// for error messages that say what the file has.
std::string describe_contents(const std::vector<ImageSpec>& parts) {
  auto channels_and_layers = [](const ImageSpec& spec) {
    std::string s = join(spec.channelnames, ", ");
    std::vector<std::string> named_layers;
    for (auto& l : layers_of(spec))
      if (!l.empty()) named_layers.push_back(quoted(l));
    if (!named_layers.empty()) s += "; layers " + join(named_layers, ", ");
    return s;
  };
  if (parts.size() == 1 && part_name(parts[0]).empty()) return "the file has channels " + channels_and_layers(parts[0]);
  std::vector<std::string> described;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string name = part_name(parts[i]);
    described.push_back((name.empty() ? "#" + std::to_string(i) : quoted(name)) + " (" + channels_and_layers(parts[i]) + ")");
  }
  return "the file has parts " + join(described, ", ");
}

// Channel indices of `spec` directly in `layer` ("" = channels without a layer prefix).
std::vector<int> channels_in_layer(const ImageSpec& spec, const std::string& layer) {
  std::vector<int> found;
  for (int c = 0; c < spec.nchannels; ++c)
    if (layer_of(spec.channelnames[c]) == layer) found.push_back(c);
  return found;
}

// The channel of `candidates` whose name, without the layer prefix, is `short_name` (any case); -1 if none.
int find_in_layer(const ImageSpec& spec, const std::vector<int>& candidates, const std::string& layer,
                  const std::string& short_name) {
  const std::size_t prefix = layer.empty() ? 0 : layer.size() + 1;
  for (int c : candidates)
    if (iequals(spec.channelnames[c].substr(prefix), short_name)) return c;
  return -1;
}

// Default selection within a layer: R,G,B(,A); else Y (with A when present) as grey; else the
// first channel as grey. Returns channel indices in RGBA order (1..4 of them; grey repeats).
std::vector<int> default_channels(const ImageSpec& spec, const std::vector<int>& candidates, const std::string& layer) {
  auto find = [&](const char* n) { return find_in_layer(spec, candidates, layer, n); };
  const int r = find("R"), g = find("G"), b = find("B"), a = find("A"), y = find("Y");
  if (r >= 0 && g >= 0 && b >= 0) return a >= 0 ? std::vector<int>{r, g, b, a} : std::vector<int>{r, g, b};
  const int grey = y >= 0 ? y : candidates.front();
  return a >= 0 && a != grey ? std::vector<int>{grey, grey, grey, a} : std::vector<int>{grey, grey, grey};
}

// Where a requested layer is: the EXR part of that name (whole part, layer ""), else the first
// part with channels named "<requested>.*" (layer = requested). Nothing when neither exists.
std::optional<std::pair<int, std::string>> find_layer(const std::vector<ImageSpec>& parts, const std::string& requested) {
  for (std::size_t s = 0; s < parts.size(); ++s)
    if (part_name(parts[s]) == requested) return std::make_pair(int(s), std::string());
  for (std::size_t s = 0; s < parts.size(); ++s)
    for (auto& channel : parts[s].channelnames)
      if (starts_with(channel, requested + ".")) return std::make_pair(int(s), requested);
  return std::nullopt;
}

// An explicitly named channel: "<layer>.<name>" exactly, else `name` within the layer in any case; -1 if none.
int find_channel(const ImageSpec& spec, const std::vector<int>& candidates, const std::string& layer,
                 const std::string& name) {
  const std::string full = layer.empty() ? name : layer + "." + name;
  auto exact = std::find(spec.channelnames.begin(), spec.channelnames.end(), full);
  return exact != spec.channelnames.end() ? int(exact - spec.channelnames.begin())
                                          : find_in_layer(spec, candidates, layer, name);
}

}  // namespace

std::size_t ReadPlan::row_bytes() const {
  return std::size_t(width) * std::size_t(channel_end - channel_begin) * pixel_type_bytes(type);
}

struct HdrReader::Impl {
  std::unique_ptr<ImageInput> input;
  std::vector<ImageSpec> parts;  // one per subimage, MIP level 0
};

HdrReader::HdrReader(const std::string& path) : path_(path), impl_(std::make_unique<Impl>()) {
  impl_->input = ImageInput::open(path);
  if (!impl_->input) throw ItemError(path, "decode", oiio_message(OIIO::geterror(), "cannot open the file"));
  for (int s = 0; impl_->input->seek_subimage(s, 0); ++s) impl_->parts.push_back(impl_->input->spec());
  impl_->input->geterror();  // seeking past the last subimage leaves an error; it is expected
  if (impl_->parts.empty()) throw ItemError(path, "decode", "the file has no images");
}

HdrReader::~HdrReader() = default;

std::string HdrReader::format_name() const { return impl_->input->format_name(); }

ReadPlan HdrReader::plan(const ChannelSelection& selection) const {
  const auto& parts = impl_->parts;
  auto missing = [&](const std::string& what) {
    return ItemError(path_, "decode", what + "; " + describe_contents(parts));
  };

  int subimage = 0;
  std::string layer;
  if (!selection.layer.empty()) {
    const auto found = find_layer(parts, selection.layer);
    if (!found) throw missing("no part or layer " + quoted(selection.layer));
    std::tie(subimage, layer) = *found;
  }
  const ImageSpec& spec = parts[subimage];
  if (spec.deep) throw ItemError(path_, "decode", "deep images are not supported");
  if (spec.depth > 1) throw ItemError(path_, "decode", "volume images are not supported");

  std::vector<int> candidates = channels_in_layer(spec, layer);
  // A part whose channels all have layer prefixes: default to the first channel's layer.
  if (candidates.empty() && selection.layer.empty() && spec.nchannels > 0) {
    layer = layer_of(spec.channelnames[0]);
    candidates = channels_in_layer(spec, layer);
  }
  if (candidates.empty()) throw missing("layer " + quoted(selection.layer) + " has no channels of its own");

  std::vector<int> selected;
  if (selection.channels.empty()) {
    selected = default_channels(spec, candidates, layer);
  } else {
    const std::size_t n = selection.channels.size();
    if (n != 1 && n != 3 && n != 4)
      throw ItemError(path_, "decode", "select 1 (grey), 3 (RGB) or 4 (RGBA) channels, not " + std::to_string(n));
    for (auto& name : selection.channels) {
      const int c = find_channel(spec, candidates, layer, name);
      if (c < 0) throw missing("no channel " + quoted(layer.empty() ? name : layer + "." + name));
      selected.push_back(c);
    }
    if (n == 1) selected = {selected[0], selected[0], selected[0]};
  }

  ReadPlan plan;
  plan.subimage = subimage;
  plan.width = spec.width;  // the data window: pixels outside it are not stored
  plan.height = spec.height;
  plan.y_begin = spec.y;
  plan.tiled = spec.tile_width > 0;
  plan.channel_begin = *std::min_element(selected.begin(), selected.end());
  plan.channel_end = *std::max_element(selected.begin(), selected.end()) + 1;
  bool all_half = true;
  for (std::size_t i = 0; i < 4; ++i) {
    plan.rgba_index[i] = i < selected.size() ? selected[i] - plan.channel_begin : -1;
    if (i < selected.size()) all_half = all_half && spec.channelformat(selected[i]) == TypeDesc::HALF;
  }
  plan.type = all_half ? PixelType::f16 : PixelType::f32;
  // A damaged header can claim any size; refuse before the caller allocates it.
  const double limit_mb = OIIO::get_int_attribute("limits:imagesize_MB", 32768);
  if (plan.width < 1 || plan.height < 1 || double(plan.bytes()) > limit_mb * 1024 * 1024)
    throw ItemError(path_, "decode", "implausible image size " + std::to_string(plan.width) + "x" +
                                         std::to_string(plan.height) + " (damaged header?)");
  const std::string part = part_name(spec);
  plan.layer_name = part.empty() ? layer : layer.empty() ? part : part + "." + layer;
  for (std::size_t i = 0; i < selected.size(); ++i)
    if (i == 0 || selected[i] != selected[i - 1]) plan.channel_names.push_back(spec.channelnames[selected[i]]);
  return plan;
}

namespace {

// Rows [y0, y1) of the planned channels (y relative to the data window) into dst's rows.
bool read_rows(ImageInput& input, const ReadPlan& plan, int y0, int y1, void* dst, std::size_t pitch) {
  const TypeDesc type = plan.type == PixelType::f16 ? TypeDesc::HALF : TypeDesc::FLOAT;
  const auto pixel_bytes = OIIO::stride_t((plan.channel_end - plan.channel_begin) * pixel_type_bytes(plan.type));
  auto* first_row = static_cast<unsigned char*>(dst) + pitch * std::size_t(y0);
  if (y0 == 0 && y1 == plan.height)
    return input.read_image(plan.subimage, 0, plan.channel_begin, plan.channel_end, type, first_row, pixel_bytes,
                            OIIO::stride_t(pitch));
  return input.read_scanlines(plan.subimage, 0, plan.y_begin + y0, plan.y_begin + y1, 0, plan.channel_begin,
                              plan.channel_end, type, first_row, pixel_bytes, OIIO::stride_t(pitch));
}

}  // namespace

void HdrReader::read(const ReadPlan& plan, void* dst, std::size_t pitch, int strips) {
  if (plan.type != PixelType::f16 && plan.type != PixelType::f32)
    throw ItemError(path_, "decode", "reads produce half or float pixels");
  if (plan.subimage < 0 || plan.subimage >= int(impl_->parts.size()) || pitch < plan.row_bytes())
    throw ItemError(path_, "decode", "the read plan does not fit this file");
  // Bands of whole 64-row groups, so compressed blocks (16 or 32 rows) are not decoded twice.
  constexpr int kRowAlign = 64;
  const int rows_per_strip = (plan.height / std::max(1, strips) + kRowAlign - 1) / kRowAlign * kRowAlign;
  if (plan.tiled || strips <= 1 || rows_per_strip >= plan.height) strips = 1;

  std::vector<std::string> errors(std::size_t(std::max(1, strips)));
  auto run_strip = [&](int k) {
    const int y0 = k * rows_per_strip, y1 = strips == 1 ? plan.height : std::min(plan.height, y0 + rows_per_strip);
    if (y0 >= y1) return;
    try {
      std::unique_ptr<ImageInput> own;
      ImageInput* input = impl_->input.get();
      if (k > 0) {
        own = ImageInput::open(path_);
        if (!own) throw std::runtime_error(oiio_message(OIIO::geterror(), "cannot open the file again"));
        input = own.get();
      }
      if (!read_rows(*input, plan, y0, y1, dst, pitch))
        errors[std::size_t(k)] = oiio_message(input->geterror(), "the pixels could not be read");
    } catch (const std::exception& e) {  // plugins catch their libraries' exceptions; this is a backstop
      errors[std::size_t(k)] = e.what();
    }
  };
  std::vector<std::thread> helpers;
  for (int k = 1; k < strips; ++k) helpers.emplace_back(run_strip, k);
  run_strip(0);
  for (auto& t : helpers) t.join();
  for (auto& e : errors)
    if (!e.empty()) throw ItemError(path_, "decode", e);
}

// ---- writing ---------------------------------------------------------------------------------

namespace {

void check_view(const std::string& path, const ImageView& image) {
  if (image.type != PixelType::u8 && image.type != PixelType::u16)
    throw ItemError(path, "encode", "outputs are 8- or 16-bit");
  if (image.channels < 1 || image.channels > 4 || image.width < 1 || image.height < 1 || !image.data ||
      image.pitch < image.row_bytes())
    throw ItemError(path, "encode", "invalid image (" + std::to_string(image.width) + "x" +
                                        std::to_string(image.height) + "x" + std::to_string(image.channels) + ")");
}

TypeDesc integer_type(PixelType t) { return t == PixelType::u8 ? TypeDesc::UINT8 : TypeDesc::UINT16; }

std::unique_ptr<ImageOutput> create_output(const std::string& path) {
  auto out = ImageOutput::create(path);
  if (!out) throw ItemError(path, "encode", oiio_message(OIIO::geterror(), "no writer for this file extension"));
  return out;
}

// Size, channels and the format's compression settings. Alpha is straight (not premultiplied):
// "oiio:UnassociatedAlpha" stops PNG/TIFF/WebP writers from un-premultiplying it.
ImageSpec output_spec(const ImageView& image, const std::string& format, const WriteOptions& options) {
  ImageSpec spec(image.width, image.height, image.channels, integer_type(image.type));
  static const std::vector<std::string> names[4] = {{"Y"}, {"Y", "A"}, {"R", "G", "B"}, {"R", "G", "B", "A"}};
  spec.channelnames = names[image.channels - 1];
  spec.alpha_channel = image.channels % 2 == 0 ? image.channels - 1 : -1;
  if (spec.alpha_channel >= 0) spec.attribute("oiio:UnassociatedAlpha", 1);
  if (format == "jpeg" || format == "webp")
    spec.attribute("Compression", format + ":" + std::to_string(std::clamp(options.quality, 1, 100)));
  if (format == "tiff") spec.attribute("Compression", options.tiff_compression);
  if (format == "openexr") spec.attribute("Compression", "zip");
  return spec;
}

void write_pixels(ImageOutput& out, const std::string& path, const ImageView& image) {
  const auto pixel_bytes = OIIO::stride_t(image.channels * pixel_type_bytes(image.type));
  if (!out.write_image(integer_type(image.type), image.data, pixel_bytes, OIIO::stride_t(image.pitch)))
    throw ItemError(path, "encode", oiio_message(out.geterror(), "writing the pixels failed"));
}

void close_output(ImageOutput& out, const std::string& path) {
  if (!out.close()) throw ItemError(path, "encode", oiio_message(out.geterror(), "closing the file failed"));
}

// Grey (+alpha) as RGB(A), for writers without grey images (WebP).
std::vector<unsigned char> grey_to_rgb(const ImageView& grey, ImageView& rgb) {
  const int channels = grey.channels + 2;
  const std::size_t value_bytes = pixel_type_bytes(grey.type);
  std::vector<unsigned char> pixels(std::size_t(grey.width) * grey.height * channels * value_bytes);
  rgb = packed_view(pixels.data(), grey.width, grey.height, channels, grey.type);
  for (int y = 0; y < grey.height; ++y)
    for (int x = 0; x < grey.width; ++x) {
      const unsigned char* src = grey.row<unsigned char>(y) + std::size_t(x) * grey.channels * value_bytes;
      unsigned char* dst = rgb.row<unsigned char>(y) + std::size_t(x) * channels * value_bytes;
      for (int c = 0; c < channels; ++c)
        std::copy_n(src + (c < 3 ? 0 : value_bytes), value_bytes, dst + c * value_bytes);
    }
  return pixels;
}

}  // namespace

void write_image(const std::string& path, const ImageView& image, const WriteOptions& options) {
  check_view(path, image);
  if (path.size() > 4 && lowercase(path.substr(path.size() - 4)) == ".png") {
    write_png(path, image, options.png_compression);  // several times faster than OIIO's libpng writer
    return;
  }
  auto out = create_output(path);
  const std::string format = out->format_name();
  ImageView source = image;
  std::vector<unsigned char> expanded;
  if (format == "webp" && image.channels < 3) expanded = grey_to_rgb(image, source);
  if (!out->open(path, output_spec(source, format, options)))
    throw ItemError(path, "encode", oiio_message(out->geterror(), "cannot create the file"));
  write_pixels(*out, path, source);
  close_output(*out, path);
}

void write_mip_image(const std::string& path, const std::vector<ImageView>& levels, const WriteOptions& options) {
  if (levels.empty()) throw ItemError(path, "encode", "no MIP levels to write");
  for (std::size_t l = 0; l < levels.size(); ++l) {
    check_view(path, levels[l]);
    if (levels[l].channels != levels[0].channels || levels[l].type != levels[0].type)
      throw ItemError(path, "encode", "MIP levels differ in channels or type");
    if (l > 0 && (levels[l].width != std::max(1, levels[l - 1].width / 2) ||
                  levels[l].height != std::max(1, levels[l - 1].height / 2)))
      throw ItemError(path, "encode", "MIP level " + std::to_string(l) + " is not half the size of the previous one");
  }
  auto out = create_output(path);
  const std::string format = out->format_name();
  // TIFF has no MIP levels of its own: like maketx, write them as subimages (reduced-resolution
  // directories), which OIIO reads back as MIP levels because of "textureformat".
  const bool native_mip = out->supports("mipmap");
  if (!out->supports("tiles") || (!native_mip && !out->supports("multiimage")))
    throw ItemError(path, "encode", "the " + format + " writer cannot write tiled MIP-mapped files");
  const auto append_mode = native_mip ? ImageOutput::AppendMIPLevel : ImageOutput::AppendSubimage;
  // OpenEXR's MIPMAP_LEVELS mode (ROUND_DOWN) expects every level down to 1x1.
  const ImageView& last = levels.back();
  if (format == "openexr" && (last.width != 1 || last.height != 1) && levels.size() > 1)
    throw ItemError(path, "encode", "a MIP-mapped EXR needs every level down to 1x1");

  for (std::size_t l = 0; l < levels.size(); ++l) {
    ImageSpec spec = output_spec(levels[l], format, options);
    spec.tile_width = spec.tile_height = kMipTileSize;
    // What maketx writes: the texture system and the EXR writer (MIP mode) key on it.
    spec.attribute("textureformat", "Plain Texture");
    if (format == "openexr") spec.attribute("openexr:roundingmode", 0 /* ROUND_DOWN */);
    if (!out->open(path, spec, l == 0 ? ImageOutput::Create : append_mode))
      throw ItemError(path, "encode", oiio_message(out->geterror(), "cannot add a MIP level"));
    write_pixels(*out, path, levels[l]);
  }
  close_output(*out, path);
}

bool can_write_extension(const std::string& extension) {
  std::string ext = lowercase(extension);
  if (!ext.empty() && ext[0] != '.') ext.insert(0, ".");
  const bool ok = ImageOutput::create("file" + ext) != nullptr;
  OIIO::geterror();  // a failed create leaves a message for this thread; drop it
  return ok;
}

std::string oiio_version() { return OIIO::get_string_attribute("version"); }

std::string oiio_formats() { return OIIO::get_string_attribute("format_list"); }

}  // namespace gp::io
