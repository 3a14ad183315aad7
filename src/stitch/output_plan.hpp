#pragma once
// What one panorama produces: a file per view (mode views), per cube face or one layout image
// (cubemap), or one equirect (the other modes), with the image size each needs.
#include <cstddef>
#include <string>
#include <vector>

#include "stitch/rig.hpp"
#include "stitch/stitch_settings.hpp"

namespace gp::stitch {

struct PlannedOutput {
  std::string path;
  std::string label;        // {view}: the view's name, the face's name, or "equirect"/"cubemap"
  std::size_t view = 0;     // mode views: index into the views; cubemap faces: face index
  int eye = 0;              // stereo inputs: the eye projected (0 left, 1 right); 0 for mono
  int width = 0, height = 0;
  std::string mask_path;    // with /mask/enabled, else empty
  std::string preview_path; // with /output/preview/enabled, else empty
};

// A frame of a video input: named by /output/video_name with {frame} and {time}.
struct FrameTag {
  std::string frame = "{frame}", time = "{time}";  // as planned for all frames: the patterns
};
// Sizes need the input's (0 x 0: names only, for planning and the rig). Stereo inputs: the outputs
// of each eye of s.eyes in turn, as many per eye. `frame`: a video's frame (null: a still).
std::vector<PlannedOutput> plan_outputs(const Settings& s, const InputItem& item, int input_width, int input_height,
                                        const FrameTag* frame = nullptr);
// The files, as the batch runner plans them.
std::vector<PlannedFile> planned_files(const std::vector<PlannedOutput>& outputs);

// The views of mode views with their focal lengths and rotations (file names left empty).
std::vector<ViewCamera> resolve_views(const Settings& s);

// v360's face names in its order: right, left, up, down, front, back.
const char* cube_face_name(int face);

}  // namespace gp::stitch
