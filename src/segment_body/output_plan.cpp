#include "segment_body/output_plan.hpp"

#include <filesystem>
#include <map>

#include "core/outputs.hpp"
#include "frames/rgb_image.hpp"

namespace gp::segbody {
namespace {

std::string path_for(const Settings& s, const InputItem& item, const std::string& pattern, const std::string& field,
                     const std::map<std::string, std::string>& vars) {
  return s.naming.path(item, expand_template(pattern, vars), field);
}

// A frame's PNG; `frame` is its number, or "{frame}" for the pattern of them all.
std::string frame_file(const Settings& s, const ImageOutput& output, const std::string& field, const InputItem& item,
                       const std::string& frame) {
  auto vars = naming_variables(item);
  vars["frame"] = frame;
  return path_for(s, item, output.frame_name, field, vars);
}

}  // namespace

InputPlan plan_input(const Settings& s, const InputItem& item) {
  InputPlan plan;
  plan.video = !gp::frames::is_image_file(item.path);
  const auto vars = naming_variables(item);
  if (s.pose_output) {
    plan.pose = plan.video ? path_for(s, item, s.pose_video_name, "/output/pose/video_name", vars)
                           : path_for(s, item, s.pose_image_name, "/output/pose/image_name", vars);
    if (s.pose_csv) plan.pose_csv = std::filesystem::path(plan.pose).replace_extension(".csv").string();
    if (s.pose_preview)
      plan.pose_preview =
          plan.video ? path_for(s, item, s.pose_preview_video_name, "/output/pose/preview_video_name", vars)
                     : path_for(s, item, s.pose_preview_image_name, "/output/pose/preview_image_name", vars);
  }
  if (plan.video) {
    if (s.mask_video.enabled) plan.mask_video = path_for(s, item, s.mask_video.name, "/output/mask_video/name", vars);
    if (s.background_video.enabled)
      plan.background_video = path_for(s, item, s.background_video.name, "/output/background/video/name", vars);
    plan.mask_frames = s.mask_png.coverage == Coverage::all;
    plan.rgba_frames = s.rgba_png.coverage == Coverage::all;
    if (plan.mask_frames || plan.rgba_frames)
      plan.manifest = path_for(s, item, s.frames_manifest, "/output/frames_manifest", vars);
    return plan;
  }
  if (s.mask_png.coverage != Coverage::off) plan.mask_png = path_for(s, item, s.mask_png.name, "/output/mask_png/name", vars);
  if (s.rgba_png.coverage != Coverage::off) plan.rgba_png = path_for(s, item, s.rgba_png.name, "/output/rgba_png/name", vars);
  if (s.background) plan.background_png = path_for(s, item, s.background_name, "/output/background/name", vars);
  return plan;
}

std::string frame_path(const Settings& s, const ImageOutput& output, const std::string& field, const InputItem& item,
                       std::int64_t frame) {
  return frame_file(s, output, field, item, std::to_string(frame));
}

std::vector<PlannedFile> planned_files(const Settings& s, const InputItem& item, const InputPlan& plan) {
  std::vector<PlannedFile> files;
  auto add = [&](const std::string& path, const char* field) {
    if (!path.empty()) files.push_back({path, field});
  };
  add(plan.mask_video, "/output/mask_video/name");
  add(plan.background_video, "/output/background/video/name");
  add(plan.manifest, "/output/frames_manifest");
  add(plan.mask_png, "/output/mask_png/name");
  add(plan.rgba_png, "/output/rgba_png/name");
  add(plan.background_png, "/output/background/name");
  add(plan.pose, plan.video ? "/output/pose/video_name" : "/output/pose/image_name");
  add(plan.pose_csv, "/output/pose/csv");
  add(plan.pose_preview, plan.video ? "/output/pose/preview_video_name" : "/output/pose/preview_image_name");
  if (plan.mask_frames)
    add(frame_file(s, s.mask_png, "/output/mask_png/frame_name", item, "{frame}"), "/output/mask_png/frame_name");
  if (plan.rgba_frames)
    add(frame_file(s, s.rgba_png, "/output/rgba_png/frame_name", item, "{frame}"), "/output/rgba_png/frame_name");
  return files;
}

}  // namespace gp::segbody
