#pragma once
// stitch-360 inputs: a synthetic equirectangular panorama with a 15-degree grid and labelled
// direction markers, the same scene seen by a dual-fisheye camera with known lenses, a truncated
// JPEG, and benchmark panoramas. Axis conventions: see the top of stitch_samples.cpp.
#include <filesystem>

namespace gp::samples {

// OUTDIR/stitch/: equirect.jpg + equirect.json (marker directions, pixel centres and colours),
// dual_fisheye.jpg + dual_fisheye.json (lens parameters and where each marker lands), corrupt.jpg
// (equirect.jpg cut in the middle of its entropy-coded data). Byte-identical run to run. Returns
// the exit code.
int make_stitch_samples(const std::filesystem::path& dir);

// OUTDIR/pano_00000.jpg ...: `count` panoramas of width x width/2, JPEG quality 95, 4:2:0. A few
// scenes are rendered once on all cores; each frame is one of them turned by its own yaw, with
// its own exposure, white balance and sensor noise (so no two frames are alike), encoded on all
// cores. Returns the exit code.
int make_stitch_bench(const std::filesystem::path& dir, int count, int width = 7680);

}  // namespace gp::samples
