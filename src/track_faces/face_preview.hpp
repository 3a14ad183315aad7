#pragma once
// The annotated preview people look at: each tracked face's box, id, keypoints and landmarks drawn
// into an 8-bit RGB frame on the CPU, before the preview encoder. No font files: digits come from
// a built-in bitmap font.
#include <array>
#include <cstdint>
#include <vector>

#include "core/views.hpp"
#include "track_faces/face_frame.hpp"

namespace gp::track {

using Rgb = std::array<std::uint8_t, 3>;

// The colour of a track: a fixed palette, the same id always the same colour.
Rgb track_colour(int track_id);

// Bitmap font: kGlyphWidth x kGlyphHeight cells, drawn kLabelScale times larger.
constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kLabelScale = 2;
// Row bits of '0'-'9' and '#' (bit 4 = leftmost column); all zero for other characters.
std::array<std::uint8_t, kGlyphHeight> glyph_rows(char c);

// Draws onto `rgb` (u8, 3 channels, any pitch): landmarks as single pixels (a light tint of the
// track colour), the box as a 2 px outline inside its corners, the keypoints as 5x5 squares, and
// "#<id>" above the box (inside its top when there is no room) in black or white on the track
// colour. Everything is clipped to the image; faces with non-finite boxes are skipped.
// Throws std::invalid_argument for other image formats.
void draw_faces(const gp::ImageView& rgb, const std::vector<TrackedFace>& faces);

}  // namespace gp::track
