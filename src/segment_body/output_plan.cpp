#include "segment_body/output_plan.hpp"

#include <filesystem>
#include <map>

#include "core/outputs.hpp"
#include "segment_body/rgb_image.hpp"

namespace gp::segbody {
namespace {

std::map<std::string, std::string> vars_for(const std::string& input, std::size_t index) {
  const std::filesystem::path p(input);
  return {{"stem", p.stem().string()}, {"name", p.filename().string()}, {"index", std::to_string(index)}};
}

std::string path_for(const Settings& s, const std::string& pattern, const std::string& field,
                     const std::map<std::string, std::string>& vars) {
  return output_path(s.output_dir, checked_relative_name(expand_template(pattern, vars), field), field);
}

}  // namespace

InputPlan plan_input(const Settings& s, const std::string& input, std::size_t index) {
  InputPlan plan;
  plan.video = !is_image_file(input);
  const auto vars = vars_for(input, index);
  if (plan.video) {
    if (s.mask_video.enabled) plan.mask_video = path_for(s, s.mask_video.name, "/output/mask_video/name", vars);
    if (s.background_video.enabled)
      plan.background_video = path_for(s, s.background_video.name, "/output/background/video/name", vars);
    plan.mask_frames = s.mask_png.coverage == Coverage::all;
    plan.rgba_frames = s.rgba_png.coverage == Coverage::all;
    if (plan.mask_frames || plan.rgba_frames)
      plan.manifest = path_for(s, s.frames_manifest, "/output/frames_manifest", vars);
    return plan;
  }
  if (s.mask_png.coverage != Coverage::off) plan.mask_png = path_for(s, s.mask_png.name, "/output/mask_png/name", vars);
  if (s.rgba_png.coverage != Coverage::off) plan.rgba_png = path_for(s, s.rgba_png.name, "/output/rgba_png/name", vars);
  if (s.background) plan.background_png = path_for(s, s.background_name, "/output/background/name", vars);
  return plan;
}

std::string frame_path(const Settings& s, const ImageOutput& output, const std::string& field, const std::string& input,
                       std::size_t index, std::int64_t frame) {
  auto vars = vars_for(input, index);
  vars["frame"] = std::to_string(frame);
  return path_for(s, output.frame_name, field, vars);
}

std::vector<std::string> planned_files(const InputPlan& plan) {
  std::vector<std::string> files;
  for (const std::string* f : {&plan.mask_video, &plan.background_video, &plan.manifest, &plan.mask_png,
                               &plan.rgba_png, &plan.background_png})
    if (!f->empty()) files.push_back(*f);
  return files;
}

}  // namespace gp::segbody
