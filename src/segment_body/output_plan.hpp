#pragma once
// The files segment-body writes for one input (paths inside the output folder).
#include <cstdint>
#include <string>
#include <vector>

#include "core/output_naming.hpp"
#include "segment_body/segment_settings.hpp"

namespace gp::segbody {

struct InputPlan {
  bool video = false;
  // Videos (empty when off).
  std::string mask_video, background_video;
  bool mask_frames = false, rgba_frames = false;  // per-frame PNGs (then `manifest` is written last)
  std::string manifest;
  // Images (empty when off).
  std::string mask_png, rgba_png, background_png;
  // BlazePose variants: the poses (a JSON line per video frame, or one object per image).
  std::string pose, pose_csv, pose_preview;
};

InputPlan plan_input(const Settings& s, const InputItem& item);
// A video frame's PNG from the template (mask_png or rgba_png frame_name).
std::string frame_path(const Settings& s, const ImageOutput& output, const std::string& field, const InputItem& item,
                       std::int64_t frame);
// Every file, per-frame PNGs as one "{frame}" pattern each.
std::vector<PlannedFile> planned_files(const Settings& s, const InputItem& item, const InputPlan& plan);

}  // namespace gp::segbody
