#pragma once
// PNG encoding for tonemap outputs, faster than OpenImageIO's writer (libpng + zlib): per-row
// filters chosen by the minimum-sum-of-absolute-differences heuristic (libpng's own), the zlib
// stream made by libdeflate in one call, chunks written directly. At the fast levels (1-3) only
// the None, Sub and Up filters are tried; the output is a standard PNG any reader opens.
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

}  // namespace gp::io
