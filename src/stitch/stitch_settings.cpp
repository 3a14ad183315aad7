#include "stitch/stitch_settings.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "core/outputs.hpp"
#include "core/settings_table.hpp"
#include "core/text.hpp"

namespace gp::stitch {
namespace {

using config::member;
using Table = config::SettingsTable<Settings>;
using ViewRequest = Settings::ViewRequest;

void lens_fields(Table& t, const std::string& at, double center_x, double yaw, int lens) {
  auto into = [lens](double LensConfig::*field) {
    return [lens, field](Settings& s, double v) { s.lenses[lens].*field = v; };
  };
  t.object(at, "one lens: circle centre and radius in the frame, field of view, orientation");
  t.number(at + "/center_x", center_x, 0, 1, "circle centre x as a fraction of the frame width", into(&LensConfig::center_x));
  t.number(at + "/center_y", 0.5, 0, 1, "circle centre y as a fraction of the frame height", into(&LensConfig::center_y));
  t.number(at + "/radius", 0.25, 0.01, 1, "circle radius as a fraction of the frame width", into(&LensConfig::radius));
  t.number(at + "/fov", 195, 10, 360, "lens field of view in degrees (the circle's edge)", into(&LensConfig::fov_deg));
  t.number(at + "/yaw", yaw, -360, 360, "lens direction: yaw in degrees (the back lens: 180)", into(&LensConfig::yaw_deg));
  t.number(at + "/pitch", 0, -90, 90, "lens direction: pitch in degrees", into(&LensConfig::pitch_deg));
  t.number(at + "/roll", 0, -360, 360, "lens roll in degrees", into(&LensConfig::roll_deg));
  for (int i = 1; i <= 4; ++i)
    t.number(at + "/k" + std::to_string(i), 0, -10, 10, "polynomial r = f (theta + k1 theta^2 + k2 theta^3 + ...); all 0 = equidistant",
             [lens, i](Settings& s, double v) { s.lenses[lens].k[i - 1] = v; });
}

// Each field once: its schema entry and where its value lands in Settings.
Table make_table() {
  Table t("stitch-360");
  t.required_string_list("/inputs", "panoramas (files, folders, globs or @list.txt files)", config::read_by_batch_job);
  t.object("/input", "how inputs are found");
  t.boolean("/input/recursive", false, "search folders recursively", &Settings::recursive);
  t.choice("/input/stereo", "mono", {"mono", "top_bottom", "side_by_side"},
           "modes views and cubemap: how an equirect input holds its eyes: mono (one 2:1 panorama), top_bottom (the "
           "left eye above the right, as VR360 cameras write them) or side_by_side (the left eye beside the right, as "
           "VR180 cameras write them); each eye a 2:1 panorama, or a square one covering 180 degrees (VR180)",
           [](Settings& s, const std::string& v) {
             s.stereo = v == "top_bottom" ? Stereo::top_bottom : v == "side_by_side" ? Stereo::side_by_side : Stereo::mono;
           });
  t.object("/input/video", "video inputs (any video libavformat reads): which frames become panoramas");
  t.choice("/input/video/select", "all", {"all", "every", "interval", "sharpest"},
           "all frames; every: every N-th frame; interval: one frame per interval (the first at or after its "
           "start); sharpest: the sharpest frame of each interval (variance of the Laplacian of its luma: motion "
           "blur ruins a reconstruction)",
           [](Settings& s, const std::string& v) {
             s.video.mode = v == "every"      ? VideoSelection::Mode::every
                            : v == "interval" ? VideoSelection::Mode::interval
                            : v == "sharpest" ? VideoSelection::Mode::sharpest
                                              : VideoSelection::Mode::all;
           });
  t.integer("/input/video/every", 10, 1, 1000000, "select every: N", member(&Settings::video, &VideoSelection::every));
  t.number("/input/video/interval_s", 1.0, 0.001, 86400, "select interval and sharpest: seconds per interval",
           member(&Settings::video, &VideoSelection::interval_s));
  t.number("/input/video/start_s", 0, 0, 1e9, "frames from this time on (seconds)",
           member(&Settings::video, &VideoSelection::start_s));
  t.number("/input/video/end_s", 0, 0, 1e9, "frames before this time (seconds); 0 = to the end",
           member(&Settings::video, &VideoSelection::end_s));
  t.integer("/input/video/decoders", 0, 0, 16,
            "decoders working on one video at once, each on a part of it (0: one per 8 CPU cores, at most 4): for "
            "select all and every over the whole video of an MP4/MOV file (H.264, HEVC) whose key frames start closed "
            "groups of pictures; otherwise, or with 1, one decoder reads it in order",
            &Settings::video_decoders);
  t.choice("/input/eye", "left", {"left", "right", "both"},
           "stereo inputs: the eye projected; both: every output once per eye, {eye} in the names (else the eye is "
           "added to {view})",
           [](Settings& s, const std::string& v) {
             s.eyes = v == "both" ? std::vector<int>{0, 1} : std::vector<int>{v == "right" ? 1 : 0};
           });
  t.choice("/mode", "views", {"views", "cubemap", "equirect_from_cubemap", "equirect_from_dual_fisheye"},
           "views: equirect -> perspective views; cubemap: equirect -> 6 faces; equirect_from_cubemap: a 3x2 or "
           "1x6 cubemap, or with /cubemap/layout faces a folder of six face files, -> equirect; "
           "equirect_from_dual_fisheye: a two-lens fisheye frame -> equirect",
           &Settings::mode);

  t.object("/views", "mode views: virtual pinhole cameras (ffmpeg v360 conventions: +yaw right, +pitch up)");
  t.choice("/views/preset", "ring8", {"ring8", "ring8+zenith+nadir", "cube", "custom"},
           "ring8: 8 views 45 degrees apart; +zenith+nadir adds up and down; cube: the 6 faces; custom: /views/custom",
           member(&Settings::view_request, &ViewRequest::preset));
  t.integer("/views/width", 1920, 1, 65535, "view width in pixels (presets and custom views without width=)",
            member(&Settings::view_request, &ViewRequest::width));
  t.integer("/views/height", 1920, 1, 65535, "view height in pixels", member(&Settings::view_request, &ViewRequest::height));
  t.number("/views/hfov", 90, 1, 179, "horizontal field of view in degrees",
           member(&Settings::view_request, &ViewRequest::hfov_deg));
  t.string_list("/views/custom", {},
                "custom views, one string each: \"name=front yaw=0 pitch=0 roll=0 hfov=90 width=1920 height=1920\" "
                "(focal=PIXELS instead of hfov; keys optional)",
                member(&Settings::view_request, &ViewRequest::custom));

  t.object("/cubemap", "mode cubemap and equirect_from_cubemap");
  t.choice("/cubemap/layout", "faces", {"faces", "3x2", "1x6"},
           "faces: 6 files (mode equirect_from_cubemap: each input a folder of six images named right/left/up/down/"
           "front/back or px/nx/py/ny/pz/nz at the end of the file name); 3x2 and 1x6: one image in ffmpeg v360's "
           "layout (face order r l u d f b)",
           &Settings::cube_layout);
  t.integer("/cubemap/face_size", 0, 0, 65535, "face edge in pixels; 0 = panorama width / 4 (half the height of a VR180 eye)", &Settings::cube_face_size);
  t.object("/equirect", "equirect outputs");
  t.integer("/equirect/width", 0, 0, 65535, "width (height = width / 2); 0 = 4 x face edge, or 2 x fisheye frame height",
            [](Settings& s, long long v) {
              if (v % 2) throw UsageError("/equirect/width: must be even (height = width / 2)");
              s.equirect_width = int(v);
            });

  t.object("/fisheye", "mode equirect_from_dual_fisheye: the two lenses (equidistant model)");
  lens_fields(t, "/fisheye/front", 0.25, 0, 0);
  lens_fields(t, "/fisheye/back", 0.75, 180, 1);
  t.number("/fisheye/blend", 5, 0, 90, "feathering band in degrees where both lenses see the scene", &Settings::blend_deg);

  t.object("/sampling", "resampling of the panorama");
  t.choice("/sampling/interpolation", "bilinear", {"nearest", "bilinear", "bicubic", "lanczos3"}, "interpolation",
           &Settings::interpolation);
  t.boolean("/sampling/antialias", true, "average sub-samples where an output pixel covers more than one panorama pixel",
            &Settings::antialias);

  t.object("/output", "written files");
  t.output_dir("out/stitch-360", "output folder (created)", member(&Settings::naming, &OutputNaming::dir));
  t.string("/output/name", "{view}/{stem}.{ext}",
           std::string("file per view or face: {view} (its name), {eye} (stereo inputs: left or right; empty for mono), "
                       "{ext} (the format's), ") + naming_variables_doc +
               "; a folder per view (the default) is what COLMAP's rig needs: a camera per folder, one image per "
               "panorama in each",
           &Settings::name_template);
  t.string("/output/video_name", "{view}/{stem}_{frame:06}_{time}s.{ext}",
           "the same for each selected frame of a video input: also {frame} (its index in the video, from 0) and {time} "
           "(its time in seconds, 3 decimals)",
           &Settings::video_name_template);
  t.boolean("/output/mirror_inputs", false, mirror_inputs_doc, member(&Settings::naming, &OutputNaming::mirror_inputs));
  t.choice("/output/format", "jpg", {"jpg", "png", "tif", "exr", "hdr"},
           "image format: jpg, png, tif (8-bit); exr, hdr (float, linear: HDR inputs keep their whole range, 8-bit "
           "inputs are converted from sRGB to linear)",
           &Settings::format);
  t.object("/output/exr", "EXR outputs");
  t.choice("/output/exr/type", "half", {"half", "float"}, "sample type",
           [](Settings& s, const std::string& v) { s.hdr.exr_half = v == "half"; });
  t.choice("/output/exr/compression", "zip", {"none", "rle", "zips", "zip", "piz", "pxr24", "b44", "b44a", "dwaa", "dwab"},
           "OpenEXR compression (pxr24, b44, b44a, dwaa and dwab are lossy)", member(&Settings::hdr, &HdrOutputConfig::exr_compression));
  t.object("/output/preview", "float outputs: an 8-bit preview of each, tone-mapped with tonemap-exr's operators");
  t.boolean("/output/preview/enabled", false, "write a preview per output (/output/format exr or hdr)",
            member(&Settings::hdr, &HdrOutputConfig::preview));
  t.string("/output/preview/name", "previews/{output}.jpg",
           "file per output, in the output folder, .jpg or .png: {output} is the output's name in the output folder, "
           "folders included, and {stem} {name} {view} {index}",
           member(&Settings::hdr, &HdrOutputConfig::preview_name_template));
  t.choice("/output/preview/operator", "aces_hill", {std::begin(tone::operator_names), std::end(tone::operator_names)},
           tone::operator_doc,
           [](Settings& s, const std::string& v) { s.hdr.preview_operator = tone::operator_named(v); });
  t.number("/output/preview/ev", 0.0, -30, 30, "exposure compensation in stops (multiplies by 2^ev)",
           member(&Settings::hdr, &HdrOutputConfig::preview_ev));
  t.boolean("/output/preview/auto_exposure", false,
            "scale each output so its log-average luminance maps to 0.18 (then ev)",
            member(&Settings::hdr, &HdrOutputConfig::preview_auto_exposure));
  t.integer("/output/quality", 95, 1, 100, "JPEG quality (views and previews)", &Settings::jpeg_quality);
  t.choice("/output/chroma", "420", {"420", "444"}, "JPEG chroma subsampling",
           [](Settings& s, const std::string& v) { s.chroma_444 = v == "444"; });
  t.boolean("/output/exif", true, "JPEG views: EXIF focal length and 35 mm equivalent", &Settings::exif);
  t.boolean("/output/rig", true,
            "mode views: cameras.json and COLMAP's cameras.txt, images.txt (poses only where known: one panorama), "
            "points3D.txt and rig_config.json (rig_bundle_adjuster; needs a folder per view) in the output folder, "
            "listing every complete panorama and video frame of the job",
            &Settings::rig_files);

  t.object("/mask", "masks of the outputs as PNG (white keep, black drop), e.g. the tripod at the nadir; modes views "
                    "and cubemap");
  t.boolean("/mask/enabled", false, "write a mask per output", member(&Settings::mask, &MaskConfig::enabled));
  t.string("/mask/image", "", "equirect mask for every panorama, any 2:1 size, dark = drop (e.g. the tripod painted black); empty: none",
           member(&Settings::mask, &MaskConfig::image));
  t.number("/mask/nadir", 0, 0, 90, "drop the cap within this many degrees of the nadir (tripod, operator); 0: none",
           member(&Settings::mask, &MaskConfig::nadir_deg));
  t.string("/mask/name", "masks/{output}.png",
           "file per output, in the output folder: {output} is the output's name in the output folder, folders "
           "included (COLMAP's mask_path layout), "
           "and {stem} {name} {view} {index} {ext}",
           member(&Settings::mask, &MaskConfig::name_template));
  t.boolean("/mask/apply", false, "also black out the dropped pixels in the views (mode views)",
            member(&Settings::mask, &MaskConfig::apply));

  t.object("/run", "behaviour of the batch");
  t.integer("/run/batch", 16, 1, 256, "panoramas per GPU batch: decoded, projected and encoded together (one per GPU worker)",
            &Settings::batch);
  t.integer("/run/gpu_workers", 2, 1, 8,
            "GPU workers, each with its own stream, JPEG codec and batch: while one decodes, another encodes",
            &Settings::gpu_workers);
  t.on_error("panoramas", &Settings::stop_on_error);
  return t;
}

const Table& table() {
  static const Table t = make_table();
  return t;
}

}  // namespace

const config::Schema& schema() { return table().schema(); }

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
  Settings s = table().read(c);
  const ViewRequest& request = s.view_request;
  ViewSpec defaults;
  defaults.width = request.width;
  defaults.height = request.height;
  defaults.hfov_deg = request.hfov_deg;
  const std::vector<std::string>& custom = request.custom;
  if (request.preset == "custom") {
    if (custom.empty()) throw UsageError("/views/custom: preset custom needs at least one view");
    for (std::size_t i = 0; i < custom.size(); ++i) {
      ViewSpec v = parse_view(custom[i], defaults, "/views/custom/" + std::to_string(i));
      if (v.name.empty()) v.name = "view" + std::to_string(i);
      s.views.push_back(v);
    }
  } else {
    if (!custom.empty())
      throw UsageError("/views/custom: only used with /views/preset custom (it is \"" + request.preset + "\")");
    s.views = view_preset(request.preset, defaults.width, defaults.height, defaults.hfov_deg);
  }
  for (std::size_t i = 0; i < s.views.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (s.views[i].name == s.views[j].name)
        throw UsageError("/views/custom: two views are named \"" + s.views[i].name + "\"");

  if (s.video.end_s > 0 && s.video.end_s <= s.video.start_s)
    throw UsageError("/input/video/end_s: " + std::to_string(s.video.end_s) + " is not after /input/video/start_s");
  if (s.video_name_template.find("{frame") == std::string::npos)
    throw UsageError("/output/video_name: \"" + s.video_name_template + "\" needs {frame}: a video gives a file per frame");
  if (s.stereo == Stereo::mono) {
    s.eyes = {0};
  } else if (s.mode != "views" && s.mode != "cubemap") {
    throw UsageError("/input/stereo: stereo inputs are equirect panoramas, read in modes views and cubemap (the mode is " +
                     s.mode + ")");
  }
  // Both names (still panoramas and video frames) under the same rules.
  for (const auto& [field, name] : {std::pair<std::string, const std::string*>{"/output/name", &s.name_template},
                                    {"/output/video_name", &s.video_name_template}}) {
    if (s.eyes.size() > 1 && s.mode == "cubemap" && s.cube_layout != "faces" && name->find("{eye}") == std::string::npos)
      throw UsageError(field + ": \"" + *name + "\" needs {eye}: /input/eye both gives a " + s.cube_layout +
                       " image per eye");
    if (name->find("{view}") == std::string::npos && s.mode != "equirect_from_cubemap" &&
        s.mode != "equirect_from_dual_fisheye" && !(s.mode == "cubemap" && s.cube_layout != "faces"))
      throw UsageError(field + ": \"" + *name + "\" needs {view}: each panorama gives several files");
    // The format comes from /output/format: another extension (or none) would fail after the work.
    auto example = naming_variables(InputItem{"shots/a/x.jpg", 0, "a"});
    example["view"] = "front";
    example["eye"] = "left";
    example["frame"] = "12";
    example["time"] = "0.400";
    example["ext"] = s.format;
    const std::string ext = lowercase_extension(expand_template(*name, example));
    if (ext != "." + s.format && !(s.format == "jpg" && ext == ".jpeg") && !(s.format == "tif" && ext == ".tiff"))
      throw UsageError(field + ": \"" + *name + "\" gives " +
                       (ext.empty() ? std::string("no extension") : "the extension " + ext) + " but /output/format is " +
                       s.format + "; end the name with .{ext}");
  }
  if (s.hdr.preview) {
    if (!float_outputs(s))
      throw UsageError("/output/preview/enabled: previews are of float outputs; /output/format is " + s.format +
                       " (set exr or hdr)");
    const std::string& name = s.hdr.preview_name_template;
    if (name.find("{output}") == std::string::npos && name.find("{view}") == std::string::npos)
      throw UsageError("/output/preview/name: \"" + name + "\" needs {output} or {view}: each output has its own preview");
    const std::string ext = lowercase_extension(name);
    if (ext != ".jpg" && ext != ".jpeg" && ext != ".png")
      throw UsageError("/output/preview/name: \"" + name + "\" must end in .jpg or .png");
  }
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
  return s;
}

ImageView eye_view(const ImageView& panorama, Stereo stereo, int eye) {
  ImageView v = panorama;
  if (stereo == Stereo::top_bottom) {
    v.height = panorama.height / 2;
    if (eye == 1 && v.data) v.data = static_cast<std::uint8_t*>(v.data) + std::size_t(v.height) * v.pitch;
  } else if (stereo == Stereo::side_by_side) {
    v.width = panorama.width / 2;
    if (eye == 1 && v.data) v.data = static_cast<std::uint8_t*>(v.data) + v.row_bytes();
  }
  return v;
}

const char* eye_name(Stereo stereo, int eye) {
  if (stereo == Stereo::mono) return "";
  return eye == 1 ? "right" : "left";
}

bool hemisphere_eye(const Settings& s, int eye_width, int eye_height) {
  return s.stereo != Stereo::mono && eye_height > 0 && std::abs(double(eye_width) / eye_height - 1.0) <= 0.02;
}

std::string equirect_size_problem(const Settings& s, int width, int height) {
  if (s.mode != "views" && s.mode != "cubemap") return "";
  const ImageView eye = eye_view(packed_view(nullptr, width, height, 3, PixelType::u8), s.stereo, 0);
  const double aspect = eye.height > 0 ? double(eye.width) / eye.height : 0.0;
  if (std::abs(aspect - 2.0) <= 0.02 || hemisphere_eye(s, eye.width, eye.height)) return "";
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  if (s.stereo == Stereo::mono) {
    std::string hint;
    if (std::abs(aspect - 1.0) <= 0.02) hint = " (a stereo panorama of two 2:1 eyes? set /input/stereo top_bottom)";
    if (std::abs(aspect - 4.0) <= 0.04) hint = " (a stereo panorama of two 2:1 eyes? set /input/stereo side_by_side)";
    return size + " is not a 2:1 equirect panorama" + hint;
  }
  const std::string eye_size = std::to_string(eye.width) + "x" + std::to_string(eye.height);
  return size + " with /input/stereo " + (s.stereo == Stereo::top_bottom ? "top_bottom" : "side_by_side") +
         ": each eye is " + eye_size + ", not a 2:1 equirect panorama";
}

}  // namespace gp::stitch
