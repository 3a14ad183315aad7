#pragma once
// PNG encoding, faster than OpenImageIO's writer (libpng + zlib). Rows are filtered per row by
// libpng's minimum-sum heuristic. Level 1 is the fast path of cuda/png (None/Sub/Up filters,
// Huffman coding with runs, no LZ77 search), here through its CPU reference, which writes the
// same bytes as the GPU; levels 0 and 2-9 deflate with libdeflate (2-3 try None/Sub/Up, 4-9
// every filter). The output is a standard PNG any reader opens.
#include <cstdint>
#include <string>
#include <vector>

#include "core/views.hpp"

namespace gp::io {

// The PNG file bytes of an 8- or 16-bit image with 1 (grey), 2 (grey, alpha), 3 (RGB) or 4 (RGBA)
// straight-alpha channels. `level` is zlib's scale: 0 stores, 1 is fastest, 9 smallest.
// Throws gp::Error on views it cannot encode.
std::vector<std::uint8_t> encode_png(const ImageView& image, int level);

// encode_png, then the bytes to `path`. Throws gp::ItemError(path, "encode", ...).
void write_png(const std::string& path, const ImageView& image, int level);

// A PNG file of `shape` (size, channels and type; no pixels needed) from a finished zlib stream
// of its filtered rows, such as the GPU fast path makes. Throws gp::ItemError(path, "encode", ...).
void write_png_stream(const std::string& path, const ImageView& shape, const std::uint8_t* zlib, std::size_t size);

}  // namespace gp::io
