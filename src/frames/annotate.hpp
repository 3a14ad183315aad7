#pragma once
// Drawing the annotated previews people look at, on the CPU into 8-bit RGB frames: a fixed colour
// per track, filled rectangles, lines, box outlines and "#<id>" labels from a built-in bitmap font
// (no font files). track-faces draws faces with them, segment-body skeletons. Everything is
// clipped to the image.
#include <array>
#include <cstdint>
#include <string>

#include "core/views.hpp"

namespace gp::frames {

using Rgb = std::array<std::uint8_t, 3>;

// The colour of a track: a fixed palette, the same id always the same colour.
Rgb track_colour(int track_id);
Rgb tint(const Rgb& c);            // halfway to white
Rgb readable_ink(const Rgb& background);  // black or white, whichever reads on it

// Bitmap font: kGlyphWidth x kGlyphHeight cells, drawn kLabelScale times larger.
constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kLabelScale = 2;
constexpr int kLabelPadding = 2;
constexpr int kLabelHeight = kGlyphHeight * kLabelScale + 2 * kLabelPadding;
// Row bits of '0'-'9' and '#' (bit 4 = leftmost column); all zero for other characters.
std::array<std::uint8_t, kGlyphHeight> glyph_rows(char c);

// A float coordinate as a pixel index, far outside any frame but safe to add widths to in int.
int to_pixel(float v);

class Canvas {
 public:
  // u8, 3 channels, any pitch; std::invalid_argument otherwise (`who` names the caller).
  Canvas(const ImageView& rgb, const char* who);

  // Inclusive corners.
  void fill(int x0, int y0, int x1, int y1, const Rgb& c) const;
  void dot(int x, int y, const Rgb& c) const { fill(x, y, x, y, c); }
  // An outline `thickness` px wide inside the inclusive corners.
  void box(int x0, int y0, int x1, int y1, int thickness, const Rgb& c) const;
  // A line of squares `thickness` px wide along the pixels Bresenham visits.
  void line(int x0, int y0, int x1, int y1, int thickness, const Rgb& c) const;
  // `text` (digits and '#') with its top-left corner at (x, y), in `ink` on `background`.
  void label(const std::string& text, int x, int y, const Rgb& background, const Rgb& ink) const;

 private:
  ImageView image_;
};

}  // namespace gp::frames
