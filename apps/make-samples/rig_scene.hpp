#pragma once
// A 360 video with parallax for stitch-360's COLMAP rig test: an equirect camera moving through a
// textured room with boxes in it, ray-cast (no photograph, no new dependency).
#include <filesystem>

namespace gp::samples {

// OUTDIR/rig_scene.mp4: `frames` equirect frames of width x width/2 (H.264, crf 12, every frame
// a key frame, 2 fps), the camera 0.3 m further along x (and 0.1 m along z) and turned 4 degrees
// more in yaw each frame, inside a 8 x 3 x 6 m room whose walls, floor, ceiling and four boxes
// carry distinct textures (random-coloured tiles with discs and fine noise: corners and blobs at
// several scales for SIFT). OUTDIR/rig_scene.json: the camera's position and yaw per frame
// (panorama frame of v360: x right, y down, z forward). Byte-identical run to run. Returns the
// exit code.
int make_rig_scene(const std::filesystem::path& dir, int width = 2048, int frames = 4);

}  // namespace gp::samples
