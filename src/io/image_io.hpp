#pragma once
// Image files: HDR sources (EXR of any compression, scanline or tiled, multi-part and multi-layer,
// through OpenEXR's Core library or OpenImageIO; .hdr; float TIFF) and 8/16-bit outputs (PNG through
// our encoder; JPEG, WebP, TIFF through OpenImageIO), including tiled MIP-mapped TIFF/EXR that
// OIIO's texture system and maketx read.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/views.hpp"
#include "io/read_plan.hpp"

namespace gp::io {

class ImageSource;
struct ExrBlocks;

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
  // threads > 1 decodes blocks of the file on that many threads: one file then keeps several cores
  // busy, which keeps the end of a batch from waiting on a few files decoding alone.
  // Throws gp::ItemError on truncated/corrupt data.
  void read(const ReadPlan& plan, void* dst, std::size_t pitch, int threads = 1);
  // The compressed blocks of plan's part, for decoders that take the file's bytes (the GPU's);
  // nullopt unless OpenEXR Core opened the file. See io/exr_blocks.hpp.
  std::optional<ExrBlocks> exr_blocks(const ReadPlan& plan) const;

  const std::string& path() const { return path_; }
  std::string format_name() const;  // "openexr", "hdr", "tiff"...

 private:
  std::string path_;
  std::unique_ptr<ImageSource> source_;
};

struct WriteOptions {
  int quality = 90;           // JPEG/WebP quality 1..100
  int png_compression = 6;    // zlib level 0..9 (1 = fast)
  std::string tiff_compression = "zip";  // for TIFF outputs: none, lzw, zip
  // EXR outputs: OpenEXR's compression (none, rle, zips, zip, piz, pxr24, b44, b44a, dwaa, dwab)
  // and, from float pixels, the stored type (half or float).
  std::string exr_compression = "zip";
  bool exr_half = true;
};

// Writes an 8/16-bit (u8/u16) interleaved image, or a float (f32, linear light) one as EXR or
// Radiance .hdr (3 channels); the format follows the file extension of `path`.
// Throws gp::ItemError(path, "encode", ...).
void write_image(const std::string& path, const ImageView& image, const WriteOptions& options);

// Writes levels[0] (full size) .. levels[n-1] as one tiled, MIP-mapped TIFF or EXR (by extension)
// that OIIO's texture system and maketx read. Tile size 64x64. An EXR from f32 levels holds them
// as half floats tagged linear (colour premultiplied by alpha, as EXR holds it); from u8/u16
// levels, their values tagged sRGB.
void write_mip_image(const std::string& path, const std::vector<ImageView>& levels, const WriteOptions& options);

// Whether this OpenImageIO build can write the format of `extension` (".webp", ".jpg"...).
bool can_write_extension(const std::string& extension);

// Library versions for reports and `gpuproc info`.
std::string oiio_version();
std::string oiio_formats();

}  // namespace gp::io
