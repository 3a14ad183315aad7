#include "segment_body/segment_settings.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "core/outputs.hpp"
#include "core/settings_table.hpp"
#include "infer/model_locator.hpp"

namespace gp::segbody {
namespace {

namespace fs = std::filesystem;

using config::member;
using Table = config::SettingsTable<Settings>;

Coverage read_coverage(const std::string& text) {
  return text == "off" ? Coverage::off : text == "images" ? Coverage::images : Coverage::all;
}

void coverage_fields(Table& t, const std::string& at, const std::string& def, const std::string& what,
                     const std::string& name, const std::string& frame_name, ImageOutput Settings::*out) {
  t.object(at, what);
  t.choice(at + "/enabled", def, {"off", "images", "all"}, "off; images: one per image input; all: also one per frame of every video",
           [out](Settings& s, const std::string& v) { (s.*out).coverage = read_coverage(v); });
  t.string(at + "/name", name, std::string("file per image, in the output folder: ") + naming_variables_doc,
           member(out, &ImageOutput::name));
  t.string(at + "/frame_name", frame_name, "file per video frame: also {frame} ({frame:05} zero-padded)",
           member(out, &ImageOutput::frame_name));
}

void video_fields(Table& t, const std::string& at, bool enabled, const std::string& what, const std::string& name,
                  std::vector<std::string> codecs, VideoOutput Settings::*out) {
  t.object(at, what);
  t.boolean(at + "/enabled", enabled, "write it for every video input", member(out, &VideoOutput::enabled));
  t.string(at + "/name", name, std::string("file per video, in the output folder (extension = container): ") + naming_variables_doc,
           member(out, &VideoOutput::name));
  const std::string def = codecs.front();
  t.choice(at + "/codec", def, std::move(codecs), "ffv1: lossless; libx264: H.264 at /crf", member(out, &VideoOutput::codec));
  t.integer(at + "/crf", 18, 0, 51, "libx264 quality (lower is better; 0 = lossless)", member(out, &VideoOutput::crf));
  t.boolean(at + "/bitexact", true,
            "reproducible files: no random container IDs or library version strings, so the same job writes the same bytes",
            member(out, &VideoOutput::bitexact));
}

// Each field once: its schema entry and where its value lands in Settings.
Table make_table() {
  Table t("segment-body");
  t.required_string_list("/inputs", "videos and images (files, folders, globs or @list.txt files)", config::read_by_batch_job);
  t.object("/input", "how inputs are found");
  t.boolean("/input/recursive", false, "search folders recursively", &Settings::recursive);

  t.object("/model", "MediaPipe selfie segmentation or BlazePose (scripts/fetch-models.sh fetches them)");
  t.choice("/model/variant", "general", {"general", "landscape", "pose_lite", "pose_full", "pose_heavy"},
           "selfie segmentation general: 256x256 input; landscape: 144x256 (faster); BlazePose pose_lite, pose_full, "
           "pose_heavy: whole bodies, several people a frame, with 33 landmarks each (see /pose)",
           &Settings::model_variant);
  t.string("/model/path", "",
           "the .tflite file; empty: the variant's file from $GPUPROC_MODELS, the source tree's .models, or "
           "<prefix>/share/gpuproc/models",
           [](Settings& s, const std::string& v) { s.model_path = resolve_model_path(v, s.model_variant); });
  t.choice("/model/precision", "fp16", {"fp16", "fp32"}, "GPU arithmetic (the CPU path is always fp32)",
           [](Settings& s, const std::string& v) { s.fp16 = v == "fp16"; });
  t.choice("/model/resize", "stretch", {"stretch", "letterbox"},
           "selfie models: stretch fills the model input, as MediaPipe's selfie_segmentation graph does "
           "(keep_aspect_ratio false); letterbox keeps the frame's aspect and pads",
           [](Settings& s, const std::string& v) { s.resize = v == "stretch" ? ResizeMode::stretch : ResizeMode::letterbox; });
  t.choice("/model/filter", "bilinear", {"bilinear", "area"},
           "how a frame is shrunk into a model input: bilinear at each input pixel's centre, as MediaPipe does; area "
           "averages the pixels it covers (no aliasing, not what the models were trained on)",
           [](Settings& s, const std::string& v) { s.filter = v == "area" ? ResizeFilter::area : ResizeFilter::bilinear; });

  t.object("/pose", "BlazePose variants: the person detector and the people of a frame");
  t.string("/pose/detector_path", "",
           "the person detector .tflite; empty: pose_detection.tflite from where /model/path's default is found",
           [](Settings& s, const std::string& v) {
             if (s.is_pose()) s.pose.detector_path = infer::locate_model(v, "pose_detection.tflite", "/pose/detector_path");
           });
  t.integer("/pose/max_people", 8, 1, 256, "people a frame at most (the best-scored detections)",
            member(&Settings::pose, &PoseSettings::max_people));
  t.number("/pose/min_detection_score", 0.5, 0, 1,
           "person detections under this score are dropped (MediaPipe's PoseLandmarker, which finds several people: 0.5)",
           member(&Settings::pose, &PoseSettings::min_detection_score));
  t.number("/pose/min_presence", 0.5, 0, 1, "a person whose pose flag is under this is dropped (MediaPipe: 0.5)",
           member(&Settings::pose, &PoseSettings::min_presence));
  t.integer("/pose/detector_tiles", 1, 0, 2,
            "tile levels the person detector also looks at, to find small people (MediaPipe looks at the whole frame "
            "only: 0): 1 adds overlapping tiles of half the frame's short side, 2 also of a quarter (more people, about "
            "four times the detector's work at level 1's)",
            member(&Settings::pose, &PoseSettings::detector_tiles));
  t.boolean("/pose/smooth_landmarks", true,
            "videos: take the jitter out of each person's landmarks from frame to frame with MediaPipe's filters "
            "(its smooth_landmarks, on by default): 1-euro filters on the landmarks, world landmarks and the next "
            "frame's ROI, a low-pass on visibilities",
            member(&Settings::pose, &PoseSettings::smooth_landmarks));
  t.integer("/pose/canvas", 512, 64, 4096, "side of the square canvas the people's masks are combined in before upsampling",
            member(&Settings::pose, &PoseSettings::canvas));

  t.object("/mask", "from the model's output to the mask");
  t.choice("/mask/output", "soft", {"soft", "binary"}, "soft: alpha 0..255; binary: 255 where >= threshold, else 0",
           [](Settings& s, const std::string& v) {
             s.post.output.kind = v == "binary" ? MaskOutput::Kind::binary : MaskOutput::Kind::soft;
           });
  t.number("/mask/threshold", 0.5, 0, 1, "binary masks and island removal: foreground where the mask >= this",
           member(&Settings::post, &PostprocessParams::output, &MaskOutput::threshold));
  t.object("/mask/temporal", "videos: exponential moving average of the model's masks");
  t.boolean("/mask/temporal/enabled", true, "smooth the masks over time (images never are)",
            member(&Settings::post, &PostprocessParams::temporal));
  t.number("/mask/temporal/alpha", 0.5, 0.01, 1, "weight of the new mask (1 = no smoothing)",
           member(&Settings::post, &PostprocessParams::temporal_params, &TemporalParams::alpha));
  t.number("/mask/temporal/motion_threshold", 0.08, 0, 1,
           "luma change (0..1) above which a pixel takes the new mask at once (motion reset)",
           member(&Settings::post, &PostprocessParams::temporal_params, &TemporalParams::motion_threshold));
  t.object("/mask/refine", "edge refinement guided by the frame (guided filter)");
  t.boolean("/mask/refine/enabled", true, "snap the mask's edges to the frame's edges",
            member(&Settings::post, &PostprocessParams::refine));
  t.integer("/mask/refine/radius", 8, 1, 64, "window radius in frame pixels",
            member(&Settings::post, &PostprocessParams::guided, &GuidedParams::radius));
  t.number("/mask/refine/eps", 1e-3, 1e-6, 1, "regularisation (smaller follows the frame's edges more)",
           member(&Settings::post, &PostprocessParams::guided, &GuidedParams::eps));
  t.integer("/mask/refine/subsample", 2, 1, 8, "fast guided filter at 1/s resolution (1 = exact)",
            member(&Settings::post, &PostprocessParams::guided, &GuidedParams::subsample));
  t.object("/mask/islands", "small-component clean-up of the mask (pixels; 0 = off)");
  t.integer("/mask/islands/min_foreground_area", 0, 0, 1LL << 30, "remove foreground specks smaller than this",
            member(&Settings::post, &PostprocessParams::islands, &IslandParams::min_foreground_area));
  t.integer("/mask/islands/min_hole_area", 0, 0, 1LL << 30, "fill holes smaller than this",
            member(&Settings::post, &PostprocessParams::islands, &IslandParams::min_hole_area));

  t.object("/output", "written files (each appears only once complete)");
  t.output_dir("out/segment-body", "output folder (created)", member(&Settings::naming, &OutputNaming::dir));
  t.boolean("/output/mirror_inputs", false, mirror_inputs_doc, member(&Settings::naming, &OutputNaming::mirror_inputs));
  video_fields(t, "/output/mask_video", true, "videos: the masks as a grey video (same frame rate and timestamps)",
               "{stem}_mask.mkv", {"ffv1", "libx264"}, &Settings::mask_video);
  coverage_fields(t, "/output/mask_png", "images", "masks as 8-bit grey PNG", "{stem}_mask.png",
                  "{stem}_mask/{frame:05}.png", &Settings::mask_png);
  coverage_fields(t, "/output/rgba_png", "off", "the frame with the mask as alpha (RGBA PNG)", "{stem}_rgba.png",
                  "{stem}_rgba/{frame:05}.png", &Settings::rgba_png);
  t.object("/output/background", "background replacement: the person over a colour, the blurred frame or an image");
  t.boolean("/output/background/enabled", false, "write background-replaced images and videos", &Settings::background);
  t.choice("/output/background/kind", "colour", {"colour", "blur", "image"}, "what replaces the background",
           &Settings::background_kind);
  t.string("/output/background/colour", "0,255,0", "kind colour: R,G,B (0..255) or #rrggbb",
           [](Settings& s, const std::string& v) { parse_colour(v, "/output/background/colour", s.background_colour); });
  t.number("/output/background/blur_sigma", 12, 0.5, 200, "kind blur: Gaussian sigma in frame pixels", &Settings::blur_sigma);
  t.string("/output/background/image", "", "kind image: any image, resampled to each frame", &Settings::background_image);
  t.string("/output/background/name", "{stem}_background.png", std::string("image inputs: file per image: ") + naming_variables_doc,
           &Settings::background_name);
  t.string("/output/frames_manifest", "{stem}_frames.json", "videos with per-frame PNGs: the list of frames written, written last",
           &Settings::frames_manifest);
  t.object("/output/pose", "BlazePose variants: every person's box and 33 landmarks (pixels) and world landmarks (metres)");
  t.boolean("/output/pose/enabled", true, "write them (only with a pose_* model variant)", &Settings::pose_output);
  t.boolean("/output/pose/csv", true, "also as CSV, a row per person and frame, named like the JSON with .csv",
            &Settings::pose_csv);
  t.boolean("/output/pose/preview", false,
            "also the skeletons drawn on the frame, the background dimmed by the mask (videos: libx264; images: PNG)",
            &Settings::pose_preview);
  t.string("/output/pose/preview_video_name", "{stem}_pose_preview.mp4", std::string("video inputs: ") + naming_variables_doc,
           &Settings::pose_preview_video_name);
  t.string("/output/pose/preview_image_name", "{stem}_pose_preview.png", std::string("image inputs: ") + naming_variables_doc,
           &Settings::pose_preview_image_name);
  t.string("/output/pose/video_name", "{stem}_pose.jsonl", std::string("video inputs: a JSON line per frame: ") + naming_variables_doc,
           &Settings::pose_video_name);
  t.string("/output/pose/image_name", "{stem}_pose.json", std::string("image inputs: one JSON object: ") + naming_variables_doc,
           &Settings::pose_image_name);
  video_fields(t, "/output/background/video", true, "video inputs: the replaced video (yuv420p)", "{stem}_background.mp4",
               {"libx264", "ffv1"}, &Settings::background_video);

  t.object("/run", "behaviour of the job");
  t.choice("/run/mode", "throughput", {"throughput", "streaming"},
           "throughput: frames in batches; streaming: batch 1, per-frame latency p50/p99 in the report",
           [](Settings& s, const std::string& v) { s.streaming = v == "streaming"; });
  t.integer("/run/batch", 16, 1, 64, "frames per model batch (streaming: 1); halved on GPU out-of-memory",
            [](Settings& s, long long v) { s.batch = s.streaming ? 1 : int(v); });
  t.integer("/run/videos_in_flight", 0, 0, 64,
            "videos processed at once per device, each with its own decoder, model batches and encoder (0: one per 2 "
            "cores on a GPU, at most 8; one on the CPU)",
            &Settings::videos_in_flight);
  t.integer("/run/decode_threads", 0, 0, 64, "video decoder threads per video (0 = libav's choice)", &Settings::decode_threads);
  t.integer("/run/encode_threads", 0, 0, 64, "video encoder threads per output video (0 = the encoder's choice)",
            &Settings::encode_threads);
  t.on_error("inputs", &Settings::stop_on_error);
  return t;
}

const Table& table() {
  static const Table t = make_table();
  return t;
}

// Expands a template with placeholder values so a bad {variable} or escaping name fails now.
void check_template(const std::string& pattern, const std::string& field, bool frame) {
  auto vars = naming_variables(InputItem{"videos/a/x.mp4", 0, "a"});
  vars["ext"] = "png";
  if (frame) vars["frame"] = "0";
  const std::string name = expand_template(pattern, vars);
  checked_relative_name(name, field);
  if (name.empty() || name.back() == '/') throw UsageError(field + ": \"" + pattern + "\" names a folder");
}

void check_video(const VideoOutput& v, const std::string& at) {
  check_template(v.name, at + "/name", false);
  const std::string ext = fs::path(v.name).extension().string();
  if (v.codec == "ffv1" && ext != ".mkv" && ext != ".avi")
    throw UsageError(at + "/name: ffv1 needs a .mkv or .avi file (\"" + v.name + "\")");
  if (v.codec == "libx264" && ext != ".mp4" && ext != ".mkv" && ext != ".mov")
    throw UsageError(at + "/name: libx264 needs a .mp4, .mkv or .mov file (\"" + v.name + "\")");
}

void check_image_output(const ImageOutput& o, const std::string& at) {
  check_template(o.name, at + "/name", false);
  check_template(o.frame_name, at + "/frame_name", true);
  if (o.coverage == Coverage::all && o.frame_name.find("{frame") == std::string::npos)
    throw UsageError(at + "/frame_name: \"" + o.frame_name + "\" needs {frame}: each frame has its own file");
  for (const std::string* n : {&o.name, &o.frame_name})
    if (fs::path(*n).extension() != ".png") throw UsageError(at + ": \"" + *n + "\" must end in .png");
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

const config::Schema& schema() { return table().schema(); }

std::string model_file_name(const std::string& variant) {
  if (variant.rfind("pose_", 0) == 0) return "pose_landmark_" + variant.substr(5) + ".tflite";
  return variant == "landscape" ? "selfie_segmentation_landscape.tflite" : "selfie_segmentation.tflite";
}

std::string resolve_model_path(const std::string& path, const std::string& variant) {
  return infer::locate_model(path, model_file_name(variant), "/model/path");
}

void parse_colour(const std::string& text, const std::string& field, std::uint8_t rgb[3]) {
  auto fail = [&] {
    throw UsageError(field + ": \"" + text + "\" is not a colour (expected R,G,B with 0..255 each, or #rrggbb)");
  };
  if (!text.empty() && text[0] == '#') {
    if (text.size() != 7) fail();
    for (int k = 0; k < 3; ++k) {
      const int hi = hex_digit(text[1 + 2 * k]), lo = hex_digit(text[2 + 2 * k]);
      if (hi < 0 || lo < 0) fail();
      rgb[k] = std::uint8_t(hi * 16 + lo);
    }
    return;
  }
  std::size_t pos = 0;
  for (int k = 0; k < 3; ++k) {
    const std::size_t end = text.find(',', pos);
    if ((k < 2) != (end != std::string::npos)) fail();
    const std::string part = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (part.empty() || part.size() > 3 || part.find_first_not_of("0123456789") != std::string::npos) fail();
    const int v = std::stoi(part);
    if (v > 255) fail();
    rgb[k] = std::uint8_t(v);
    pos = end + 1;
  }
}

int videos_in_flight_for(const Settings& s, bool gpu, unsigned cores, std::size_t videos) {
  const int wanted = s.videos_in_flight > 0 ? s.videos_in_flight : gpu ? std::clamp(int(cores / 2), 1, 8) : 1;
  return int(std::min<std::size_t>(std::size_t(wanted), std::max<std::size_t>(videos, 1)));
}

Settings read_settings(const config::json& c) {
  Settings s = table().read(c);
  check_video(s.mask_video, "/output/mask_video");
  check_image_output(s.mask_png, "/output/mask_png");
  check_image_output(s.rgba_png, "/output/rgba_png");
  if (s.background && s.background_kind == "image") {
    if (s.background_image.empty()) throw UsageError("/output/background/image: kind image needs an image file");
    require_regular_file(s.background_image, "/output/background/image");
  }
  check_template(s.background_name, "/output/background/name", false);
  check_video(s.background_video, "/output/background/video");
  check_template(s.frames_manifest, "/output/frames_manifest", false);
  check_template(s.pose_video_name, "/output/pose/video_name", false);
  check_template(s.pose_image_name, "/output/pose/image_name", false);
  check_template(s.pose_preview_video_name, "/output/pose/preview_video_name", false);
  check_template(s.pose_preview_image_name, "/output/pose/preview_image_name", false);
  if (!s.is_pose()) s.pose_output = false;
  if (!s.background) s.background_video.enabled = false;
  if (!s.mask_video.enabled && s.mask_png.coverage == Coverage::off && s.rgba_png.coverage == Coverage::off &&
      !s.background)
    throw UsageError("/output: every output is off (enable /output/mask_video, /output/mask_png, "
                     "/output/rgba_png or /output/background)");
  return s;
}

}  // namespace gp::segbody
