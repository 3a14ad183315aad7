#pragma once
// Video input sample: a short synthetic clip with textured, moving content and its ground truth.
#include <filesystem>

namespace gp::samples {

// OUTDIR/video/moving_shapes.mp4: 320x240, 30 fps, 60 frames, H.264 (libx264 crf 23, one thread,
// bitexact) yuv420p BT.601 limited range, over a scrolling value-noise texture on a colour
// gradient: a red disc on an elliptic path, a white hand turning about the centre and a blue
// square bouncing left and right. OUTDIR/video/moving_shapes.json: per frame the disc centre and
// radius, the hand angle and the square's box (pixel coordinates, pixel (i, j) centred at
// (i + 0.5, j + 0.5)). The YUV is computed here (not by swscale, whose SIMD paths vary by CPU),
// so the file is byte-identical run to run with Debian 12's libx264. Returns the exit code.
int make_video_samples(const std::filesystem::path& dir);

}  // namespace gp::samples
