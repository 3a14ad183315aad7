#include "stitch/output_plan.hpp"

#include <map>

#include "core/error.hpp"
#include "core/outputs.hpp"

namespace gp::stitch {

const char* cube_face_name(int face) {
  static const char* const names[6] = {"right", "left", "up", "down", "front", "back"};
  return names[face];
}

std::vector<ViewCamera> resolve_views(const Settings& s) {
  std::vector<ViewCamera> views;
  for (const ViewSpec& v : s.views) views.push_back(resolve_view(v));
  return views;
}

std::vector<PlannedFile> planned_files(const std::vector<PlannedOutput>& outputs) {
  std::vector<PlannedFile> files;
  for (const PlannedOutput& p : outputs) {
    files.push_back({p.path, "/output/name"});
    if (!p.mask_path.empty()) files.push_back({p.mask_path, "/mask/name"});
    if (!p.preview_path.empty()) files.push_back({p.preview_path, "/output/preview/name"});
  }
  return files;
}

namespace {

// One eye's outputs (mono: the only ones), for an eye of this size.
std::vector<PlannedOutput> plan_eye_outputs(const Settings& s, const InputItem& item, int eye, int input_width,
                                            int input_height, const FrameTag* frame) {
  const std::string& name_template = frame ? s.video_name_template : s.name_template;
  // Both eyes: the eye in the names ({eye}, else added to {view} so the names differ).
  const std::string eye_label = eye_name(s.stereo, eye);
  const bool eye_in_view = s.eyes.size() > 1 && name_template.find("{eye}") == std::string::npos;
  auto named = [&](const std::string& view_label, std::size_t view, int width, int height) {
    const std::string label = eye_in_view ? view_label + "_" + eye_label : view_label;
    auto tokens = naming_variables(item);
    tokens["view"] = label;
    tokens["eye"] = eye_label;
    tokens["ext"] = s.format;
    if (frame) tokens["frame"] = frame->frame, tokens["time"] = frame->time;
    const char* field = frame ? "/output/video_name" : "/output/name";
    const std::string name = checked_relative_name(expand_template(name_template, tokens), field);
    PlannedOutput planned{s.naming.path(item, name, field), label, view, eye, width, height, {}, {}};
    // With its folders: COLMAP's mask of "front/a.jpg" is "front/a.jpg.png", and the views' masks and
    // previews, a folder per view, would otherwise collide.
    tokens["output"] = name;
    if (s.mask.enabled)
      planned.mask_path = s.naming.path(item, expand_template(s.mask.name_template, tokens), "/mask/name");
    if (s.hdr.preview)
      planned.preview_path =
          s.naming.path(item, expand_template(s.hdr.preview_name_template, tokens), "/output/preview/name");
    return planned;
  };
  std::vector<PlannedOutput> out;
  if (s.mode == "views") {
    for (std::size_t v = 0; v < s.views.size(); ++v)
      out.push_back(named(s.views[v].name, v, s.views[v].width, s.views[v].height));
  } else if (s.mode == "cubemap") {
    // A quarter of a 360-degree panorama's width; half a VR180 eye's (it spans 180 degrees).
    const int face = s.cube_face_size > 0 ? s.cube_face_size
                     : hemisphere_eye(s, input_width, input_height) ? input_height / 2 : input_width / 4;
    if (s.cube_layout == "faces") {
      for (int f = 0; f < 6; ++f) out.push_back(named(cube_face_name(f), std::size_t(f), face, face));
    } else {
      const bool row = s.cube_layout == "3x2";
      out.push_back(named("cubemap", 0, row ? 3 * face : face, row ? 2 * face : 6 * face));
    }
  } else {
    int width = s.equirect_width;
    if (width == 0 && s.mode == "equirect_from_cubemap") {
      // The input's face edge from its layout: 3x2 is 3 faces wide, 1x6 one.
      width = 4 * (s.cube_layout == "1x6" ? input_width : input_width / 3);
    } else if (width == 0) {
      width = 2 * input_height;
    }
    width -= width % 2;
    out.push_back(named("equirect", 0, width, width / 2));
  }
  return out;
}

}  // namespace

std::vector<PlannedOutput> plan_outputs(const Settings& s, const InputItem& item, int input_width, int input_height,
                                        const FrameTag* frame) {
  std::vector<PlannedOutput> out;
  for (const int eye : s.eyes) {
    const ImageView eye_size = eye_view(packed_view(nullptr, input_width, input_height, 3, PixelType::u8), s.stereo, eye);
    for (PlannedOutput& p : plan_eye_outputs(s, item, eye, eye_size.width, eye_size.height, frame)) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace gp::stitch
