#include "stitch/stitch_settings.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "core/outputs.hpp"
#include "core/text.hpp"

namespace gp::stitch {
namespace {

void lens_fields(config::Schema& s, const std::string& at, double center_x, double yaw) {
  s.object(at, "one lens: circle centre and radius in the frame, field of view, orientation");
  s.number(at + "/center_x", center_x, 0, 1, "circle centre x as a fraction of the frame width");
  s.number(at + "/center_y", 0.5, 0, 1, "circle centre y as a fraction of the frame height");
  s.number(at + "/radius", 0.25, 0.01, 1, "circle radius as a fraction of the frame width");
  s.number(at + "/fov", 195, 10, 360, "lens field of view in degrees (the circle's edge)");
  s.number(at + "/yaw", yaw, -360, 360, "lens direction: yaw in degrees (the back lens: 180)");
  s.number(at + "/pitch", 0, -90, 90, "lens direction: pitch in degrees");
  s.number(at + "/roll", 0, -360, 360, "lens roll in degrees");
  for (int i = 1; i <= 4; ++i)
    s.number(at + "/k" + std::to_string(i), 0, -10, 10,
             "polynomial r = f (theta + k1 theta^2 + k2 theta^3 + ...); all 0 = equidistant");
}

config::Schema make_schema() {
  config::Schema s("stitch-360");
  s.required_string_list("/inputs", "panoramas (files, folders, globs or @list.txt files)");
  s.object("/input", "how inputs are found");
  s.boolean("/input/recursive", false, "search folders recursively");
  s.choice("/mode", "views", {"views", "cubemap", "equirect_from_cubemap", "equirect_from_dual_fisheye"},
           "views: equirect -> perspective views; cubemap: equirect -> 6 faces; equirect_from_cubemap: a 3x2 or "
           "1x6 cubemap -> equirect; equirect_from_dual_fisheye: a two-lens fisheye frame -> equirect");

  s.object("/views", "mode views: virtual pinhole cameras (ffmpeg v360 conventions: +yaw right, +pitch up)");
  s.choice("/views/preset", "ring8", {"ring8", "ring8+zenith+nadir", "cube", "custom"},
           "ring8: 8 views 45 degrees apart; +zenith+nadir adds up and down; cube: the 6 faces; custom: /views/custom");
  s.integer("/views/width", 1920, 1, 65535, "view width in pixels (presets and custom views without width=)");
  s.integer("/views/height", 1920, 1, 65535, "view height in pixels");
  s.number("/views/hfov", 90, 1, 179, "horizontal field of view in degrees");
  s.string_list("/views/custom", {},
                "custom views, one string each: \"name=front yaw=0 pitch=0 roll=0 hfov=90 width=1920 height=1920\" "
                "(focal=PIXELS instead of hfov; keys optional)");

  s.object("/cubemap", "mode cubemap and equirect_from_cubemap");
  s.choice("/cubemap/layout", "faces", {"faces", "3x2", "1x6"},
           "faces: 6 files; 3x2 and 1x6: one image in ffmpeg v360's layout (face order r l u d f b)");
  s.integer("/cubemap/face_size", 0, 0, 65535, "face edge in pixels; 0 = panorama width / 4");
  s.object("/equirect", "equirect outputs");
  s.integer("/equirect/width", 0, 0, 65535, "width (height = width / 2); 0 = 4 x face edge, or 2 x fisheye frame height");

  s.object("/fisheye", "mode equirect_from_dual_fisheye: the two lenses (equidistant model)");
  lens_fields(s, "/fisheye/front", 0.25, 0);
  lens_fields(s, "/fisheye/back", 0.75, 180);
  s.number("/fisheye/blend", 5, 0, 90, "feathering band in degrees where both lenses see the scene");

  s.object("/sampling", "resampling of the panorama");
  s.choice("/sampling/interpolation", "bilinear", {"nearest", "bilinear", "bicubic", "lanczos3"}, "interpolation");
  s.boolean("/sampling/antialias", true,
            "average sub-samples where an output pixel covers more than one panorama pixel");

  s.object("/output", "written files");
  s.string("/output/dir", "out/stitch-360", "output folder (created)");
  s.string("/output/name", "{stem}_{view}.{ext}",
           std::string("file per view or face: {view} (its name), {ext} (the format's), ") + naming_variables_doc);
  declare_mirror_inputs(s);
  s.choice("/output/format", "jpg", {"jpg", "png", "tif"}, "image format");
  s.integer("/output/quality", 95, 1, 100, "JPEG quality");
  s.choice("/output/chroma", "420", {"420", "444"}, "JPEG chroma subsampling");
  s.boolean("/output/exif", true, "JPEG views: EXIF focal length and 35 mm equivalent");
  s.boolean("/output/rig", true, "cameras.json and COLMAP cameras.txt / images.txt in the output folder");

  s.object("/mask", "masks of the outputs as PNG (white keep, black drop), e.g. the tripod at the nadir; modes views "
                    "and cubemap");
  s.boolean("/mask/enabled", false, "write a mask per output");
  s.string("/mask/image", "",
           "equirect mask for every panorama, any 2:1 size, dark = drop (e.g. the tripod painted black); empty: none");
  s.number("/mask/nadir", 0, 0, 90, "drop the cap within this many degrees of the nadir (tripod, operator); 0: none");
  s.string("/mask/name", "masks/{output}.png",
           "file per output, in the output folder: {output} is the output's file name (COLMAP's mask_path layout), "
           "and {stem} {name} {view} {index} {ext}");
  s.boolean("/mask/apply", false, "also black out the dropped pixels in the views (mode views)");

  s.object("/run", "behaviour of the batch");
  s.integer("/run/batch", 16, 1, 256, "panoramas per GPU batch: decoded, projected and encoded together (one per GPU worker)");
  s.integer("/run/gpu_workers", 2, 1, 8,
            "GPU workers, each with its own stream, JPEG codec and batch: while one decodes, another encodes");
  s.choice("/run/on_error", "skip", {"skip", "fail"}, "skip: report failed panoramas and go on; fail: stop at the first");
  return s;
}

LensConfig read_lens(const config::json& c, const std::string& at) {
  LensConfig l;
  l.center_x = config::value_at<double>(c, at + "/center_x");
  l.center_y = config::value_at<double>(c, at + "/center_y");
  l.radius = config::value_at<double>(c, at + "/radius");
  l.fov_deg = config::value_at<double>(c, at + "/fov");
  l.yaw_deg = config::value_at<double>(c, at + "/yaw");
  l.pitch_deg = config::value_at<double>(c, at + "/pitch");
  l.roll_deg = config::value_at<double>(c, at + "/roll");
  for (int i = 0; i < 4; ++i) l.k[i] = config::value_at<double>(c, at + "/k" + std::to_string(i + 1));
  return l;
}

}  // namespace

const config::Schema& schema() {
  static const config::Schema s = make_schema();
  return s;
}

ViewSpec parse_view(const std::string& text, const ViewSpec& defaults, const std::string& where) {
  ViewSpec v = defaults;
  v.name.clear();
  std::istringstream words(text);
  std::string word;
  auto fail = [&](const std::string& why) {
    throw UsageError(where + ": " + why + " in \"" + text + "\" (expected key=value words: name yaw pitch roll "
                     "hfov focal width height)");
  };
  auto number = [&](const std::string& key, const std::string& value) {
    std::size_t used = 0;
    double x = 0;
    try {
      x = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != value.size() || !std::isfinite(x)) fail(key + "=" + value + " is not a number");
    return x;
  };
  while (words >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) fail("\"" + word + "\" is not key=value");
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "name") v.name = value;
    else if (key == "yaw") v.yaw_deg = number(key, value);
    else if (key == "pitch") v.pitch_deg = number(key, value);
    else if (key == "roll") v.roll_deg = number(key, value);
    else if (key == "hfov") v.hfov_deg = number(key, value), v.focal_px = 0;
    else if (key == "focal") v.focal_px = number(key, value);
    else if (key == "width") v.width = int(number(key, value));
    else if (key == "height") v.height = int(number(key, value));
    else fail("unknown key \"" + key + "\"");
  }
  resolve_view(v);  // range checks, naming the view
  return v;
}

Settings read_settings(const config::json& c) {
  Settings s;
  s.recursive = config::value_at<bool>(c, "/input/recursive");
  s.mode = config::value_at<std::string>(c, "/mode");

  const std::string preset = config::value_at<std::string>(c, "/views/preset");
  ViewSpec defaults;
  defaults.width = config::value_at<int>(c, "/views/width");
  defaults.height = config::value_at<int>(c, "/views/height");
  defaults.hfov_deg = config::value_at<double>(c, "/views/hfov");
  const auto custom = config::value_at<std::vector<std::string>>(c, "/views/custom");
  if (preset == "custom") {
    if (custom.empty()) throw UsageError("/views/custom: preset custom needs at least one view");
    for (std::size_t i = 0; i < custom.size(); ++i) {
      ViewSpec v = parse_view(custom[i], defaults, "/views/custom/" + std::to_string(i));
      if (v.name.empty()) v.name = "view" + std::to_string(i);
      s.views.push_back(v);
    }
  } else {
    if (!custom.empty()) throw UsageError("/views/custom: only used with /views/preset custom (it is \"" + preset + "\")");
    s.views = view_preset(preset, defaults.width, defaults.height, defaults.hfov_deg);
  }
  for (std::size_t i = 0; i < s.views.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (s.views[i].name == s.views[j].name)
        throw UsageError("/views/custom: two views are named \"" + s.views[i].name + "\"");

  s.cube_layout = config::value_at<std::string>(c, "/cubemap/layout");
  s.cube_face_size = config::value_at<int>(c, "/cubemap/face_size");
  s.equirect_width = config::value_at<int>(c, "/equirect/width");
  if (s.equirect_width % 2) throw UsageError("/equirect/width: must be even (height = width / 2)");
  s.lenses[0] = read_lens(c, "/fisheye/front");
  s.lenses[1] = read_lens(c, "/fisheye/back");
  s.blend_deg = config::value_at<double>(c, "/fisheye/blend");

  s.interpolation = config::value_at<std::string>(c, "/sampling/interpolation");
  s.antialias = config::value_at<bool>(c, "/sampling/antialias");

  s.naming.dir = config::value_at<std::string>(c, "/output/dir");
  if (s.naming.dir.empty()) throw UsageError("/output/dir: must not be empty");
  s.naming.mirror_inputs = config::value_at<bool>(c, "/output/mirror_inputs");
  s.name_template = config::value_at<std::string>(c, "/output/name");
  if (s.name_template.find("{view}") == std::string::npos && s.mode != "equirect_from_cubemap" &&
      s.mode != "equirect_from_dual_fisheye" && !(s.mode == "cubemap" && s.cube_layout != "faces"))
    throw UsageError("/output/name: \"" + s.name_template + "\" needs {view}: each panorama gives several files");
  s.format = config::value_at<std::string>(c, "/output/format");
  {
    // The format comes from /output/format: another extension (or none) would fail after the work.
    auto example = naming_variables(InputItem{"shots/a/x.jpg", 0, "a"});
    example["view"] = "front";
    example["ext"] = s.format;
    const std::string ext = lowercase_extension(expand_template(s.name_template, example));
    if (ext != "." + s.format && !(s.format == "jpg" && ext == ".jpeg") && !(s.format == "tif" && ext == ".tiff"))
      throw UsageError("/output/name: \"" + s.name_template + "\" gives " +
                       (ext.empty() ? std::string("no extension") : "the extension " + ext) + " but /output/format is " +
                       s.format + "; end the name with .{ext}");
  }
  s.jpeg_quality = config::value_at<int>(c, "/output/quality");
  s.chroma_444 = config::value_at<std::string>(c, "/output/chroma") == "444";
  s.exif = config::value_at<bool>(c, "/output/exif");
  s.rig_files = config::value_at<bool>(c, "/output/rig");
  s.mask.enabled = config::value_at<bool>(c, "/mask/enabled");
  s.mask.image = config::value_at<std::string>(c, "/mask/image");
  s.mask.nadir_deg = config::value_at<double>(c, "/mask/nadir");
  s.mask.name_template = config::value_at<std::string>(c, "/mask/name");
  s.mask.apply = config::value_at<bool>(c, "/mask/apply");
  if (s.mask.enabled) {
    if (s.mode != "views" && s.mode != "cubemap")
      throw UsageError("/mask/enabled: masks are made in modes views and cubemap (the mode is " + s.mode + ")");
    if (s.mask.image.empty() && s.mask.nadir_deg == 0)
      throw UsageError("/mask/enabled: set /mask/image, /mask/nadir or both");
    if (!s.mask.image.empty()) require_regular_file(s.mask.image, "/mask/image");
    if (s.mask.apply && s.mode != "views")
      throw UsageError("/mask/apply: only in mode views (cubemap faces get mask files only)");
    if (s.mask.name_template.find("{output}") == std::string::npos && s.mask.name_template.find("{view}") == std::string::npos)
      throw UsageError("/mask/name: \"" + s.mask.name_template + "\" needs {output} or {view}: each output has its own mask");
  }
  s.batch = config::value_at<int>(c, "/run/batch");
  s.gpu_workers = config::value_at<int>(c, "/run/gpu_workers");
  s.stop_on_error = config::value_at<std::string>(c, "/run/on_error") == "fail";
  return s;
}

}  // namespace gp::stitch
