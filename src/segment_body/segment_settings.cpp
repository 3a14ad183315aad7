#include "segment_body/segment_settings.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "core/outputs.hpp"
#include "infer/model_locator.hpp"

namespace gp::segbody {
namespace {

namespace fs = std::filesystem;

void coverage_fields(config::Schema& s, const std::string& at, const std::string& def, const std::string& what,
                     const std::string& name, const std::string& frame_name) {
  s.object(at, what);
  s.choice(at + "/enabled", def, {"off", "images", "all"},
           "off; images: one per image input; all: also one per frame of every video");
  s.string(at + "/name", name, std::string("file per image, in the output folder: ") + naming_variables_doc);
  s.string(at + "/frame_name", frame_name, "file per video frame: also {frame} ({frame:05} zero-padded)");
}

void video_fields(config::Schema& s, const std::string& at, bool enabled, const std::string& what,
                  const std::string& name, std::vector<std::string> codecs) {
  s.object(at, what);
  s.boolean(at + "/enabled", enabled, "write it for every video input");
  s.string(at + "/name", name, std::string("file per video, in the output folder (extension = container): ") + naming_variables_doc);
  const std::string def = codecs.front();
  s.choice(at + "/codec", def, std::move(codecs), "ffv1: lossless; libx264: H.264 at /crf");
  s.integer(at + "/crf", 18, 0, 51, "libx264 quality (lower is better; 0 = lossless)");
}

config::Schema make_schema() {
  config::Schema s("segment-body");
  s.required_string_list("/inputs", "videos and images (files, folders, globs or @list.txt files)");
  s.object("/input", "how inputs are found");
  s.boolean("/input/recursive", false, "search folders recursively");

  s.object("/model", "MediaPipe selfie segmentation (scripts/fetch-models.sh fetches it)");
  s.choice("/model/variant", "general", {"general", "landscape"}, "general: 256x256 input; landscape: 144x256 (faster)");
  s.string("/model/path", "",
           "the .tflite file; empty: the variant's file from $GPUPROC_MODELS, the source tree's .models, or "
           "<prefix>/share/gpuproc/models");
  s.choice("/model/precision", "fp16", {"fp16", "fp32"}, "GPU arithmetic (the CPU path is always fp32)");
  s.choice("/model/resize", "letterbox", {"letterbox", "stretch"},
           "letterbox: keep the frame's aspect, pad; stretch: fill the model input");

  s.object("/mask", "from the model's output to the mask");
  s.choice("/mask/output", "soft", {"soft", "binary"}, "soft: alpha 0..255; binary: 255 where >= threshold, else 0");
  s.number("/mask/threshold", 0.5, 0, 1, "binary masks and island removal: foreground where the mask >= this");
  s.object("/mask/temporal", "videos: exponential moving average of the model's masks");
  s.boolean("/mask/temporal/enabled", true, "smooth the masks over time (images never are)");
  s.number("/mask/temporal/alpha", 0.5, 0.01, 1, "weight of the new mask (1 = no smoothing)");
  s.number("/mask/temporal/motion_threshold", 0.08, 0, 1,
           "luma change (0..1) above which a pixel takes the new mask at once (motion reset)");
  s.object("/mask/refine", "edge refinement guided by the frame (guided filter)");
  s.boolean("/mask/refine/enabled", true, "snap the mask's edges to the frame's edges");
  s.integer("/mask/refine/radius", 8, 1, 64, "window radius in frame pixels");
  s.number("/mask/refine/eps", 1e-3, 1e-6, 1, "regularisation (smaller follows the frame's edges more)");
  s.integer("/mask/refine/subsample", 2, 1, 8, "fast guided filter at 1/s resolution (1 = exact)");
  s.object("/mask/islands", "small-component clean-up of the mask (pixels; 0 = off)");
  s.integer("/mask/islands/min_foreground_area", 0, 0, 1LL << 30, "remove foreground specks smaller than this");
  s.integer("/mask/islands/min_hole_area", 0, 0, 1LL << 30, "fill holes smaller than this");

  s.object("/output", "written files (each appears only once complete)");
  s.string("/output/dir", "out/segment-body", "output folder (created)");
  declare_mirror_inputs(s);
  video_fields(s, "/output/mask_video", true, "videos: the masks as a grey video (same frame rate and timestamps)",
               "{stem}_mask.mkv", {"ffv1", "libx264"});
  coverage_fields(s, "/output/mask_png", "images", "masks as 8-bit grey PNG", "{stem}_mask.png",
                  "{stem}_mask/{frame:05}.png");
  coverage_fields(s, "/output/rgba_png", "off", "the frame with the mask as alpha (RGBA PNG)", "{stem}_rgba.png",
                  "{stem}_rgba/{frame:05}.png");
  s.object("/output/background", "background replacement: the person over a colour, the blurred frame or an image");
  s.boolean("/output/background/enabled", false, "write background-replaced images and videos");
  s.choice("/output/background/kind", "colour", {"colour", "blur", "image"}, "what replaces the background");
  s.string("/output/background/colour", "0,255,0", "kind colour: R,G,B (0..255) or #rrggbb");
  s.number("/output/background/blur_sigma", 12, 0.5, 200, "kind blur: Gaussian sigma in frame pixels");
  s.string("/output/background/image", "", "kind image: any image, resampled to each frame");
  s.string("/output/background/name", "{stem}_background.png", std::string("image inputs: file per image: ") + naming_variables_doc);
  s.string("/output/frames_manifest", "{stem}_frames.json",
           "videos with per-frame PNGs: the list of frames written, written last");
  video_fields(s, "/output/background/video", true, "video inputs: the replaced video (yuv420p)",
               "{stem}_background.mp4", {"libx264", "ffv1"});

  s.object("/run", "behaviour of the job");
  s.choice("/run/mode", "throughput", {"throughput", "streaming"},
           "throughput: frames in batches; streaming: batch 1, per-frame latency p50/p99 in the report");
  s.integer("/run/batch", 16, 1, 64, "frames per model batch (streaming: 1); halved on GPU out-of-memory");
  s.integer("/run/decode_threads", 0, 0, 64, "video decoder threads per video (0 = libav's choice)");
  s.integer("/run/encode_threads", 0, 0, 64, "video encoder threads per output video (0 = the encoder's choice)");
  s.choice("/run/on_error", "skip", {"skip", "fail"}, "skip: report failed inputs and go on; fail: stop at the first");
  return s;
}

Coverage read_coverage(const std::string& text) {
  return text == "off" ? Coverage::off : text == "images" ? Coverage::images : Coverage::all;
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

VideoOutput read_video(const config::json& c, const std::string& at) {
  VideoOutput v;
  v.enabled = config::value_at<bool>(c, at + "/enabled");
  v.name = config::value_at<std::string>(c, at + "/name");
  v.codec = config::value_at<std::string>(c, at + "/codec");
  v.crf = config::value_at<int>(c, at + "/crf");
  check_template(v.name, at + "/name", false);
  const std::string ext = fs::path(v.name).extension().string();
  if (v.codec == "ffv1" && ext != ".mkv" && ext != ".avi")
    throw UsageError(at + "/name: ffv1 needs a .mkv or .avi file (\"" + v.name + "\")");
  if (v.codec == "libx264" && ext != ".mp4" && ext != ".mkv" && ext != ".mov")
    throw UsageError(at + "/name: libx264 needs a .mp4, .mkv or .mov file (\"" + v.name + "\")");
  return v;
}

ImageOutput read_image_output(const config::json& c, const std::string& at) {
  ImageOutput o;
  o.coverage = read_coverage(config::value_at<std::string>(c, at + "/enabled"));
  o.name = config::value_at<std::string>(c, at + "/name");
  o.frame_name = config::value_at<std::string>(c, at + "/frame_name");
  check_template(o.name, at + "/name", false);
  check_template(o.frame_name, at + "/frame_name", true);
  if (o.coverage == Coverage::all && o.frame_name.find("{frame") == std::string::npos)
    throw UsageError(at + "/frame_name: \"" + o.frame_name + "\" needs {frame}: each frame has its own file");
  for (const std::string* n : {&o.name, &o.frame_name})
    if (fs::path(*n).extension() != ".png") throw UsageError(at + ": \"" + *n + "\" must end in .png");
  return o;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

const config::Schema& schema() {
  static const config::Schema s = make_schema();
  return s;
}

std::string model_file_name(const std::string& variant) {
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

Settings read_settings(const config::json& c) {
  Settings s;
  s.recursive = config::value_at<bool>(c, "/input/recursive");
  s.model_variant = config::value_at<std::string>(c, "/model/variant");
  s.model_path = resolve_model_path(config::value_at<std::string>(c, "/model/path"), s.model_variant);
  s.fp16 = config::value_at<std::string>(c, "/model/precision") == "fp16";
  s.resize = config::value_at<std::string>(c, "/model/resize") == "stretch" ? ResizeMode::stretch : ResizeMode::letterbox;

  PostprocessParams& p = s.post;
  p.output.kind = config::value_at<std::string>(c, "/mask/output") == "binary" ? MaskOutput::Kind::binary
                                                                                  : MaskOutput::Kind::soft;
  p.output.threshold = config::value_at<float>(c, "/mask/threshold");
  p.temporal = config::value_at<bool>(c, "/mask/temporal/enabled");
  p.temporal_params.alpha = config::value_at<float>(c, "/mask/temporal/alpha");
  p.temporal_params.motion_threshold = config::value_at<float>(c, "/mask/temporal/motion_threshold");
  p.refine = config::value_at<bool>(c, "/mask/refine/enabled");
  p.guided.radius = config::value_at<int>(c, "/mask/refine/radius");
  p.guided.eps = config::value_at<float>(c, "/mask/refine/eps");
  p.guided.subsample = config::value_at<int>(c, "/mask/refine/subsample");
  p.islands.min_foreground_area = config::value_at<int>(c, "/mask/islands/min_foreground_area");
  p.islands.min_hole_area = config::value_at<int>(c, "/mask/islands/min_hole_area");

  s.naming.dir = config::value_at<std::string>(c, "/output/dir");
  if (s.naming.dir.empty()) throw UsageError("/output/dir: must not be empty");
  s.naming.mirror_inputs = config::value_at<bool>(c, "/output/mirror_inputs");
  s.mask_video = read_video(c, "/output/mask_video");
  s.mask_png = read_image_output(c, "/output/mask_png");
  s.rgba_png = read_image_output(c, "/output/rgba_png");
  s.background = config::value_at<bool>(c, "/output/background/enabled");
  s.background_kind = config::value_at<std::string>(c, "/output/background/kind");
  parse_colour(config::value_at<std::string>(c, "/output/background/colour"), "/output/background/colour",
               s.background_colour);
  s.blur_sigma = config::value_at<float>(c, "/output/background/blur_sigma");
  s.background_image = config::value_at<std::string>(c, "/output/background/image");
  if (s.background && s.background_kind == "image") {
    if (s.background_image.empty()) throw UsageError("/output/background/image: kind image needs an image file");
    require_regular_file(s.background_image, "/output/background/image");
  }
  s.background_name = config::value_at<std::string>(c, "/output/background/name");
  check_template(s.background_name, "/output/background/name", false);
  s.background_video = read_video(c, "/output/background/video");
  s.frames_manifest = config::value_at<std::string>(c, "/output/frames_manifest");
  check_template(s.frames_manifest, "/output/frames_manifest", false);
  if (!s.background) s.background_video.enabled = false;
  if (!s.mask_video.enabled && s.mask_png.coverage == Coverage::off && s.rgba_png.coverage == Coverage::off &&
      !s.background)
    throw UsageError("/output: every output is off (enable /output/mask_video, /output/mask_png, "
                     "/output/rgba_png or /output/background)");

  s.streaming = config::value_at<std::string>(c, "/run/mode") == "streaming";
  s.batch = s.streaming ? 1 : config::value_at<int>(c, "/run/batch");
  s.decode_threads = config::value_at<int>(c, "/run/decode_threads");
  s.encode_threads = config::value_at<int>(c, "/run/encode_threads");
  s.stop_on_error = config::value_at<std::string>(c, "/run/on_error") == "fail";
  return s;
}

}  // namespace gp::segbody
