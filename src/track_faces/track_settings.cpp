#include "track_faces/track_settings.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "infer/model_locator.hpp"

namespace gp::track {
namespace {

namespace fs = std::filesystem;

config::Schema make_schema() {
  config::Schema s("track-faces");
  s.required_string_list("/inputs", "one video per camera (files, folders, globs or @list.txt files)");
  s.object("/input", "how inputs are found");
  s.boolean("/input/recursive", false, "search folders recursively");
  s.object("/cameras", "the cameras: one per input, a video or a folder of images (one per frame, in file-name order); its id is the file's stem or the folder's name");
  s.string_list("/cameras/time_offsets", {},
                "\"id=seconds\" entries added to that camera's timestamps, to line up cameras started apart");
  s.number("/cameras/fps", 30, 0.001, 1000, "frame rate of image-sequence cameras (a video's own timestamps are used)");

  s.object("/detector", "MediaPipe BlazeFace (scripts/fetch-models.sh fetches it)");
  s.choice("/detector/model", "short", {"short", "full"}, "short: faces within ~2 m (128x128); full: up to ~5 m (192x192)");
  s.string("/detector/path", "", "the .tflite; empty: the model's file from $GPUPROC_MODELS, .models or the install");
  s.number("/detector/min_score", -1, -1, 1, "detections below are dropped; -1: the model's default (0.5 short, 0.6 full)");
  s.number("/detector/nms_iou", 0.3, 0, 1, "weighted non-maximum suppression: boxes overlapping more merge");
  s.integer("/detector/max_faces", 16, 1, 256, "faces per frame at most");
  s.integer("/detector/every", 10, 1, 1000, "run the detector every N frames, after a followed face is lost, and on every frame while none is followed");

  s.object("/landmarks", "MediaPipe face mesh: 468 points per face, which also follow faces between detections");
  s.boolean("/landmarks/enabled", true, "off: no landmarks, the detector runs on every frame");
  s.string("/landmarks/path", "", "face_landmark.tflite; empty: found like /detector/path");
  s.number("/landmarks/min_score", 0.5, 0, 1, "face-present probability below which a followed face is lost");
  s.number("/landmarks/roi_scale", 1.5, 1, 4, "crop side around a face, x its box's long side");

  s.object("/tracking", "ByteTrack association and track life (per camera)");
  s.number("/tracking/high_score", 0.5, 0, 1, "detections from here match in the first stage");
  s.number("/tracking/low_score", 0.1, 0, 1, "weaker ones are ignored; between: second stage, confirmed tracks only");
  s.number("/tracking/new_track_score", 0.6, 0, 1, "an unmatched detection starts a track from this score");
  s.number("/tracking/iou", 0.2, 0, 1, "first-stage minimum IoU of a track and a detection");
  s.integer("/tracking/min_hits", 2, 1, 100, "consecutive matches that confirm a track (and give its ID)");
  s.integer("/tracking/max_lost_frames", 30, 0, 100000, "frames a lost track is kept for re-identification");

  s.object("/output", "files per camera ({camera} = its id), each appearing only once complete");
  s.string("/output/dir", "out/track-faces", "output folder (created)");
  s.string("/output/jsonl", "{camera}.jsonl", "one JSON line per frame; \"\" = none");
  s.string("/output/csv", "{camera}.csv", "one row per face and frame; \"\" = none");
  s.string("/output/summary", "{camera}_summary.json", "tracks with their first/last frames and durations; \"\" = none");
  s.boolean("/output/landmarks", false, "include the 468 landmarks per face in the JSON lines and CSV");
  s.object("/output/preview", "an annotated video (boxes, IDs, keypoints, landmarks) for people to look at");
  s.boolean("/output/preview/enabled", false, "write it (libx264)");
  s.string("/output/preview/name", "{camera}_preview.mp4", "file per camera");
  s.integer("/output/preview/crf", 23, 0, 51, "libx264 quality (lower is better)");

  s.object("/run", "behaviour of the job");
  s.choice("/run/precision", "fp16", {"fp16", "fp32"}, "GPU arithmetic (the CPU path is always fp32)");
  s.integer("/run/landmark_batch", 32, 1, 64, "faces per landmark model run on the GPU");
  s.boolean("/run/realtime", false, "release each camera's frames at its frame rate (as live cameras would)");
  s.integer("/run/decode_threads", 1, 0, 64, "decoder threads per camera (0 = libav's choice)");
  s.integer("/run/workers", 2, 1, 16,
            "GPU compute workers per device of --device (a list such as cuda:0,1 deals the cameras out over "
            "the GPUs), each with its own stream and engines and a share of the cameras, so "
            "one's GPU work overlaps another's host work");
  s.choice("/run/on_error", "skip", {"skip", "fail"}, "skip: report failed cameras and go on; fail: stop at the first");
  return s;
}

std::string checked_name(const config::json& c, const std::string& field) {
  const std::string name = config::value_at<std::string>(c, field);
  if (name.empty()) return name;
  const std::string expanded = expand_template(name, {{"camera", "cam"}});
  checked_relative_name(expanded, field);
  return name;
}

}  // namespace

const config::Schema& schema() {
  static const config::Schema s = make_schema();
  return s;
}

TrackSettings read_settings(const config::json& c) {
  TrackSettings s;
  FaceProcessorOptions& p = s.processor;
  p.detector.model = parse_detector_model(config::value_at<std::string>(c, "/detector/model"), "/detector/model");
  p.detector.min_score = float(config::value_at<double>(c, "/detector/min_score"));
  p.detector.nms_iou = float(config::value_at<double>(c, "/detector/nms_iou"));
  p.detector.max_faces = config::value_at<int>(c, "/detector/max_faces");
  p.detector_path = infer::locate_model(config::value_at<std::string>(c, "/detector/path"),
                                        detector_model_file(p.detector.model), "/detector/path");
  const bool landmarks = config::value_at<bool>(c, "/landmarks/enabled");
  if (landmarks)
    p.landmark_path = infer::locate_model(config::value_at<std::string>(c, "/landmarks/path"), "face_landmark.tflite",
                                          "/landmarks/path");
  p.fp16 = config::value_at<std::string>(c, "/run/precision") == "fp16";
  p.landmark_batch = config::value_at<int>(c, "/run/landmark_batch");

  CameraTrackerOptions& t = s.tracking;
  t.detect_every = config::value_at<int>(c, "/detector/every");
  t.landmarks = landmarks;
  t.min_landmark_score = float(config::value_at<double>(c, "/landmarks/min_score"));
  t.roi_scale = float(config::value_at<double>(c, "/landmarks/roi_scale"));
  t.tracker.high_score = float(config::value_at<double>(c, "/tracking/high_score"));
  t.tracker.low_score = float(config::value_at<double>(c, "/tracking/low_score"));
  t.tracker.new_track_score = float(config::value_at<double>(c, "/tracking/new_track_score"));
  t.tracker.first_stage_iou = float(config::value_at<double>(c, "/tracking/iou"));
  t.tracker.min_hits = config::value_at<int>(c, "/tracking/min_hits");
  t.tracker.max_lost_frames = config::value_at<int>(c, "/tracking/max_lost_frames");
  if (t.tracker.low_score > t.tracker.high_score)
    throw UsageError("/tracking/low_score: " + std::to_string(t.tracker.low_score) + " is above /tracking/high_score");

  for (const std::string& entry : config::value_at<std::vector<std::string>>(c, "/cameras/time_offsets")) {
    const auto eq = entry.find('=');
    try {
      if (eq == std::string::npos || eq == 0) throw std::invalid_argument("no id");
      std::size_t used = 0;
      const double seconds = std::stod(entry.substr(eq + 1), &used);
      if (used != entry.size() - eq - 1) throw std::invalid_argument("trailing text");
      s.time_offsets[entry.substr(0, eq)] = seconds;
    } catch (const std::exception&) {
      throw UsageError("/cameras/time_offsets: \"" + entry + "\" is not id=seconds");
    }
  }

  s.out_dir = config::value_at<std::string>(c, "/output/dir");
  s.jsonl_name = checked_name(c, "/output/jsonl");
  s.csv_name = checked_name(c, "/output/csv");
  s.summary_name = checked_name(c, "/output/summary");
  s.write_landmarks = config::value_at<bool>(c, "/output/landmarks");
  if (config::value_at<bool>(c, "/output/preview/enabled")) {
    s.preview_name = checked_name(c, "/output/preview/name");
    const std::string ext = fs::path(s.preview_name).extension().string();
    if (ext != ".mp4" && ext != ".mkv" && ext != ".mov")
      throw UsageError("/output/preview/name: \"" + s.preview_name + "\" must be a .mp4, .mkv or .mov file");
  }
  s.preview_crf = config::value_at<int>(c, "/output/preview/crf");
  if (s.jsonl_name.empty() && s.csv_name.empty() && s.summary_name.empty() && s.preview_name.empty())
    throw UsageError("/output: every output is off (jsonl, csv, summary and preview)");
  s.realtime = config::value_at<bool>(c, "/run/realtime");
  s.sequence_fps = config::value_at<double>(c, "/cameras/fps");
  s.workers_per_device = config::value_at<int>(c, "/run/workers");
  s.decode_threads = config::value_at<int>(c, "/run/decode_threads");
  s.stop_on_error = config::value_at<std::string>(c, "/run/on_error") == "fail";
  return s;
}

std::string camera_id(const std::string& input) {
  fs::path path(input);
  if (!path.has_filename()) path = path.parent_path();  // "cams/front/"
  return (fs::is_directory(path) ? path.filename() : path.stem()).string();
}

std::string camera_output(const TrackSettings& s, const std::string& name, const std::string& camera) {
  if (name.empty()) return "";
  return output_path(s.out_dir, expand_template(name, {{"camera", camera}}), "/output");
}

}  // namespace gp::track
