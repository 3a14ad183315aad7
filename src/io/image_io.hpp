#pragma once
// Image files through OpenImageIO: HDR sources (EXR of any compression, scanline or tiled,
// multi-part and multi-layer; .hdr; float TIFF) and 8/16-bit outputs (PNG, JPEG, WebP, TIFF),
// including tiled MIP-mapped TIFF/EXR that OIIO's texture system and maketx read.
#include <memory>
#include <string>
#include <vector>

#include "core/views.hpp"

namespace gp::io {

// Which part of a source to read. Empty = defaults: R,G,B(,A) (case-insensitive), else Y as grey,
// else the first channel as grey.
struct ChannelSelection {
  std::string layer;                  // EXR part name, or channel-name prefix ("diffuse" -> diffuse.R)
  std::vector<std::string> channels;  // explicit names (1, 3 or 4: grey, RGB, RGBA), within the layer
};

// Where the selected channels are: read [channel_begin, channel_end) of `subimage` as `type`
// (f16 when every selected channel is half, else f32) and map them with `rgba_index` (indices into
// that range; rgba_index[3] == -1 = no alpha).
struct ReadPlan {
  int subimage = 0;
  int channel_begin = 0, channel_end = 0;
  int rgba_index[4] = {0, 1, 2, -1};
  int width = 0, height = 0;
  int y_begin = 0;                           // first row of the data window
  bool tiled = false;
  PixelType type = PixelType::f32;
  std::string layer_name;                    // resolved part/layer, for messages and reports
  std::vector<std::string> channel_names;    // names of the selected R,G,B(,A)
  std::size_t row_bytes() const;             // width * (channel_end - channel_begin) * type size
  std::size_t bytes() const { return row_bytes() * std::size_t(height); }
};

class HdrReader {
 public:
  // Opens and inspects the file. Throws gp::ItemError(path, "decode", ...) when it cannot be read.
  explicit HdrReader(const std::string& path);
  ~HdrReader();
  HdrReader(const HdrReader&) = delete;
  HdrReader& operator=(const HdrReader&) = delete;

  // Resolves the selection; throws gp::ItemError naming the missing layer/channel and listing
  // what the file has.
  ReadPlan plan(const ChannelSelection& selection) const;
  // Decodes the planned channels into dst (plan.bytes() at least, rows `pitch` bytes apart).
  // strips > 1 splits a scanline file's rows into that many bands decoded on their own threads,
  // each through its own handle on the file: one file then keeps several cores busy, which keeps
  // the end of a batch from waiting on a few files decoding alone.
  // Throws gp::ItemError on truncated/corrupt data.
  void read(const ReadPlan& plan, void* dst, std::size_t pitch, int strips = 1);

  const std::string& path() const { return path_; }
  std::string format_name() const;  // "openexr", "hdr", "tiff"...

 private:
  struct Impl;
  std::string path_;
  std::unique_ptr<Impl> impl_;
};

struct WriteOptions {
  int quality = 90;           // JPEG/WebP quality 1..100
  int png_compression = 6;    // zlib level 0..9 (1 = fast)
  std::string tiff_compression = "zip";  // for TIFF outputs: none, lzw, zip
};

// Writes an 8/16-bit (u8/u16) interleaved image; the format follows the file extension of
// `format_path` (the final name; `path` may be a temporary with the same extension).
// Throws gp::ItemError(path, "encode", ...).
void write_image(const std::string& path, const ImageView& image, const WriteOptions& options);

// Writes levels[0] (full size) .. levels[n-1] as one tiled, MIP-mapped TIFF or EXR (by extension)
// that OIIO's texture system and maketx read. Tile size 64x64.
void write_mip_image(const std::string& path, const std::vector<ImageView>& levels, const WriteOptions& options);

// Whether this OpenImageIO build can write the format of `extension` (".webp", ".jpg"...).
bool can_write_extension(const std::string& extension);

// Library versions for reports and `gpuproc info`.
std::string oiio_version();
std::string oiio_formats();

}  // namespace gp::io
