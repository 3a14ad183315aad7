#pragma once
// A cubemap given as six face files in a folder (mode equirect_from_cubemap, cubemap.layout
// faces), as renderers, game engines and skybox tools write them: each file named after its face
// at the end of its stem, after "_", "-" or "." or alone: right/left/up/down/front/back (also top
// and bottom), px/nx/py/ny/pz/nz or posx/negx/posy/negy/posz/negz (+x right, -x left, +y up,
// -y down, +z front, -z back: ffmpeg v360's face order r l u d f b).
#include <array>
#include <string>
#include <vector>

namespace gp::stitch {

// The face (v360's order: 0 right, 1 left, 2 up, 3 down, 4 front, 5 back) a file stem names, or -1.
int cube_face_of_stem(const std::string& stem);

// The image files stitch-360 reads (lowercase, with the dot): JPEG, PNG, TIFF, EXR, Radiance .hdr.
const std::vector<std::string>& still_image_extensions();

// The six face files of `folder` in v360's order. Throws ItemError(folder, "decode", ...) naming
// the faces missing or named twice. Other files (not of still_image_extensions, or naming no
// face) are ignored.
std::array<std::string, 6> cube_face_files(const std::string& folder);

}  // namespace gp::stitch
