#include "frames/annotate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace gp::frames {
namespace {

// Distinct on video and to most colour-blind viewers (Sasha Trubetskoy's 20 distinct colours, the
// first 12).
constexpr Rgb kPalette[] = {{230, 25, 75},  {60, 180, 75},  {255, 225, 25}, {0, 130, 200},
                            {245, 130, 48}, {145, 30, 180}, {70, 240, 240}, {240, 50, 230},
                            {210, 245, 60}, {250, 190, 212}, {0, 128, 128}, {170, 110, 40}};
constexpr int kPaletteSize = static_cast<int>(sizeof kPalette / sizeof kPalette[0]);

constexpr int kGlyphAdvance = (kGlyphWidth + 1) * kLabelScale;

}  // namespace

Rgb track_colour(int track_id) {
  const int index = static_cast<int>(((static_cast<long long>(track_id) - 1) % kPaletteSize + kPaletteSize) % kPaletteSize);
  return kPalette[index];
}

Rgb tint(const Rgb& c) {
  return {static_cast<std::uint8_t>((c[0] + 255) / 2), static_cast<std::uint8_t>((c[1] + 255) / 2),
          static_cast<std::uint8_t>((c[2] + 255) / 2)};
}

Rgb readable_ink(const Rgb& background) {
  const int luma = (299 * background[0] + 587 * background[1] + 114 * background[2]) / 1000;
  return luma > 140 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
}

std::array<std::uint8_t, kGlyphHeight> glyph_rows(char c) {
  static constexpr std::uint8_t kDigits[10][kGlyphHeight] = {
      {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},  // 0
      {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},  // 1
      {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},  // 2
      {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},  // 3
      {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},  // 4
      {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},  // 5
      {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},  // 6
      {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},  // 7
      {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},  // 8
      {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},  // 9
  };
  static constexpr std::uint8_t kHash[kGlyphHeight] = {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A};
  const std::uint8_t* rows = c >= '0' && c <= '9' ? kDigits[c - '0'] : c == '#' ? kHash : nullptr;
  std::array<std::uint8_t, kGlyphHeight> out{};
  if (rows != nullptr) std::copy(rows, rows + kGlyphHeight, out.begin());
  return out;
}

int to_pixel(float v) { return static_cast<int>(std::lround(std::clamp(v, -1e7f, 1e7f))); }

Canvas::Canvas(const ImageView& rgb, const char* who) : image_(rgb) {
  if (rgb.type != PixelType::u8 || rgb.channels != 3)
    throw std::invalid_argument(std::string(who) + ": expected an 8-bit RGB image (u8, 3 channels)");
  if (rgb.width > 0 && rgb.height > 0 && (rgb.data == nullptr || rgb.pitch < rgb.row_bytes()))
    throw std::invalid_argument(std::string(who) + ": image without data or with a pitch shorter than a row");
}

void Canvas::fill(int x0, int y0, int x1, int y1, const Rgb& c) const {
  x0 = std::max(x0, 0);
  y0 = std::max(y0, 0);
  x1 = std::min(x1, image_.width - 1);
  y1 = std::min(y1, image_.height - 1);
  if (x0 > x1 || y0 > y1) return;
  for (int y = y0; y <= y1; ++y) {
    std::uint8_t* p = image_.row<std::uint8_t>(y) + 3 * x0;
    for (int x = x0; x <= x1; ++x, p += 3) {
      p[0] = c[0];
      p[1] = c[1];
      p[2] = c[2];
    }
  }
}

void Canvas::box(int x0, int y0, int x1, int y1, int thickness, const Rgb& c) const {
  const int t = thickness - 1;
  fill(x0, y0, x1, y0 + t, c);  // top
  fill(x0, y1 - t, x1, y1, c);  // bottom
  fill(x0, y0, x0 + t, y1, c);  // left
  fill(x1 - t, y0, x1, y1, c);  // right
}

void Canvas::line(int x0, int y0, int x1, int y1, int thickness, const Rgb& c) const {
  // Lines far outside the image are not walked pixel by pixel.
  const int limit = 4 * std::max(image_.width, image_.height) + 16;
  if (std::abs(x0) > limit || std::abs(x1) > limit || std::abs(y0) > limit || std::abs(y1) > limit) return;
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  const int before = (thickness - 1) / 2, after = thickness / 2;
  for (int err = dx + dy;;) {
    fill(x0 - before, y0 - before, x0 + after, y0 + after, c);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
}

void Canvas::label(const std::string& text, int x, int y, const Rgb& background, const Rgb& ink) const {
  const int width = static_cast<int>(text.size()) * kGlyphAdvance - kLabelScale + 2 * kLabelPadding;
  fill(x, y, x + width - 1, y + kLabelHeight - 1, background);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto rows = glyph_rows(text[i]);
    const int gx = x + kLabelPadding + static_cast<int>(i) * kGlyphAdvance, gy = y + kLabelPadding;
    for (int r = 0; r < kGlyphHeight; ++r)
      for (int col = 0; col < kGlyphWidth; ++col)
        if (rows[r] & (0x10 >> col))
          fill(gx + col * kLabelScale, gy + r * kLabelScale, gx + (col + 1) * kLabelScale - 1, gy + (r + 1) * kLabelScale - 1,
               ink);
  }
}

}  // namespace gp::frames
