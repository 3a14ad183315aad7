#pragma once
// segment-body's job config: the schema (validation and the documented example) and the typed
// settings read from a validated config.
#include <string>

#include "core/config.hpp"
#include "core/output_naming.hpp"
#include "cuda/segment_body/composite.hpp"
#include "cuda/segment_body/postprocess.hpp"
#include "cuda/frames/preprocess.hpp"

namespace gp::segbody {

const config::Schema& schema();

// Which inputs an output is made for: none, images only, or also every frame of videos.
enum class Coverage { off, images, all };

struct ImageOutput {  // a per-image (and per-frame with Coverage::all) PNG
  Coverage coverage = Coverage::off;
  std::string name;        // images: {stem} {name} {index}
  std::string frame_name;  // video frames: also {frame}
};

struct VideoOutput {  // one video per video input
  bool enabled = false;
  std::string name;   // {stem} {name} {index}
  std::string codec;  // ffv1 or libx264
  int crf = 18;
  bool bitexact = true;  // no random container IDs or version strings: a job gives the same bytes every run
};

// BlazePose (model variants pose_lite, pose_full, pose_heavy): the person detector and how many
// people a frame may have.
struct PoseSettings {
  std::string detector_path;        // resolved: pose_detection.tflite
  int max_people = 8;               // per frame, by detection score
  float min_detection_score = 0.5f; // MediaPipe PoseLandmarker's min_pose_detection_confidence
  float min_presence = 0.5f;        // the landmark model's pose flag (ThresholdingCalculator)
  int canvas = 512;                 // side of the square mask canvas the people are pasted into
  int detector_tiles = 1;           // tile levels the detector also looks at (pose_model.hpp detector_views)
  bool smooth_landmarks = true;     // videos: MediaPipe's landmark filters per person (pose_smoothing.hpp)
};

struct Settings {
  bool recursive = false;

  std::string model_variant = "general";  // general (256x256), landscape (144x256), pose_lite/full/heavy
  std::string model_path;                 // resolved: an existing file
  PoseSettings pose;
  bool is_pose() const { return model_variant.rfind("pose_", 0) == 0; }
  bool fp16 = true;
  ResizeMode resize = ResizeMode::stretch;
  ResizeFilter filter = ResizeFilter::bilinear;

  PostprocessParams post;  // mask output, temporal, refine, islands

  OutputNaming naming;  // output.dir, output.mirror_inputs
  VideoOutput mask_video;  // gray8
  ImageOutput mask_png, rgba_png;
  // Background replacement: colour, blurred frame or an image under the person.
  bool background = false;
  std::string background_kind = "colour";  // colour, blur, image
  std::uint8_t background_colour[3] = {0, 255, 0};
  float blur_sigma = 12;
  std::string background_image;
  VideoOutput background_video;  // video inputs (libx264 yuv420p)
  std::string background_name;   // image inputs: {stem}_background.png
  std::string frames_manifest;   // videos with per-frame PNGs: written last, listing them
  // BlazePose variants: the people's landmarks (pose_json.hpp), JSON lines per video, JSON per image.
  bool pose_output = true;
  bool pose_csv = true;  // the same as CSV beside the JSON (its name with .csv)
  bool pose_preview = false;  // the skeletons drawn on the frame (pose_preview.hpp)
  std::string pose_preview_video_name = "{stem}_pose_preview.mp4", pose_preview_image_name = "{stem}_pose_preview.png";
  std::string pose_video_name = "{stem}_pose.jsonl", pose_image_name = "{stem}_pose.json";

  bool streaming = false;  // batch 1, per-frame latency
  int batch = 16;
  int decode_threads = 0, encode_threads = 0;
  int videos_in_flight = 0;  // per device; 0: automatic (videos_in_flight_for)
  bool stop_on_error = false;
};

// Videos processed at once per device: the setting, or when 0 one per 2 cores on a GPU, at most 8
// (each video has its own decode and encode threads; the GPU takes their batches in turn; 16 1080p
// clips on an H200 with 16 cores: 3.5x one clip's rate with 4 at once, 3.8x with 6, 4.1x with 8), one on the CPU
// (its engine already uses every core); never more than the videos.
int videos_in_flight_for(const Settings& s, bool gpu, unsigned cores, std::size_t videos);

// Reads a validated config. Throws UsageError naming the field.
Settings read_settings(const config::json& config);

// The model file for `path` (config /model/path; "" = the variant's default file): relative paths
// as given (working directory); the default file name is looked up in $GPUPROC_MODELS, the source
// tree's .models and <install prefix>/share/gpuproc/models. Throws UsageError naming /model/path
// and the folders tried.
std::string resolve_model_path(const std::string& path, const std::string& variant);
// selfie_segmentation[_landscape].tflite, pose_landmark_{lite,full,heavy}.tflite
std::string model_file_name(const std::string& variant);

// "0,255,0" or "#00ff00" -> RGB. Throws UsageError naming `field`.
void parse_colour(const std::string& text, const std::string& field, std::uint8_t rgb[3]);

}  // namespace gp::segbody
