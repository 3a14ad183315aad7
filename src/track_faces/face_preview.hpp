#pragma once
// The annotated preview people look at: each tracked face's box, id, keypoints and landmarks drawn
// into an 8-bit RGB frame on the CPU (frames/annotate.hpp), before the preview encoder.
#include <vector>

#include "core/views.hpp"
#include "frames/annotate.hpp"
#include "track_faces/face_frame.hpp"

namespace gp::track {

// The shared drawing primitives (frames/annotate.hpp), by their names here too.
using frames::glyph_rows;
using frames::kGlyphHeight;
using frames::kGlyphWidth;
using frames::kLabelScale;
using frames::Rgb;
using frames::track_colour;

// Draws onto `rgb` (u8, 3 channels, any pitch): landmarks as single pixels (a light tint of the
// track colour), the box as a 2 px outline inside its corners, the keypoints as 5x5 squares, and
// "#<id>" above the box (inside its top when there is no room) in black or white on the track
// colour. Everything is clipped to the image; faces with non-finite boxes are skipped.
// Throws std::invalid_argument for other image formats.
void draw_faces(const gp::ImageView& rgb, const std::vector<TrackedFace>& faces);

}  // namespace gp::track
