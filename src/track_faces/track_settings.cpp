#include "track_faces/track_settings.hpp"

#include <cctype>

#include <filesystem>

#include "core/error.hpp"
#include "core/inputs.hpp"
#include "core/outputs.hpp"
#include "core/settings_table.hpp"
#include "infer/model_locator.hpp"

namespace gp::track {
namespace {

namespace fs = std::filesystem;

using config::member;
using Table = config::SettingsTable<TrackSettings>;
using S = TrackSettings;

// A file-name template of a camera's output ("" = none), checked now so a bad one fails before any work.
std::string checked_name(const std::string& name, const std::string& field) {
  if (name.empty()) return name;
  const std::string expanded = expand_template(name, {{"camera", "cam"}});
  checked_relative_name(expanded, field);
  return name;
}

auto name_into(std::string S::*target, const char* field) {
  return [target, field](S& s, const std::string& v) { s.*target = checked_name(v, field); };
}

auto detector(float DetectorOptions::*field) {
  return member(&S::processor, &FaceProcessorOptions::detector, field);
}
auto tracker(float TrackerOptions::*field) { return member(&S::tracking, &CameraTrackerOptions::tracker, field); }

// Each field once: its schema entry and where its value lands in TrackSettings.
Table make_table() {
  Table t("track-faces");
  t.required_string_list("/inputs", "one video per camera (files, folders, globs or @list.txt files)", config::read_by_batch_job);
  t.object("/input", "how inputs are found");
  t.boolean("/input/recursive", false, "search folders recursively", config::read_by_batch_job);
  t.object("/cameras", "the cameras: one per input, a video or a folder of images (one per frame, in file-name order); its id is the file's stem or the folder's name");
  t.string_list("/cameras/time_offsets", {},
                "\"id=seconds\" entries added to that camera's timestamps, to line up cameras started apart",
                [](S& s, const std::vector<std::string>& entries) {
                  for (const std::string& entry : entries) {
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
                });
  t.number("/cameras/fps", 30, 0.001, 1000, "frame rate of image-sequence cameras (a video's own timestamps are used)",
           &S::sequence_fps);
  t.object("/cameras/live",
           "live cameras: inputs that are URLs (rtsp://, udp://, srt://, tcp://, http(s)://...) or V4L2 devices "
           "(/dev/videoN), read as frames arrive (timestamps from their arrival), reconnected when they drop");
  t.choice("/cameras/live/rtsp_transport", "tcp", {"tcp", "udp"}, "RTSP over TCP (interleaved) or UDP",
           member(&S::live, &S::Live::rtsp_transport));
  t.number("/cameras/live/stall_timeout_s", 5, 0.1, 3600, "no data for this long: the camera is lost and reconnects",
           member(&S::live, &S::Live::stall_timeout_s));
  t.number("/cameras/live/reconnect_max_s", 8, 0.1, 3600,
           "between reconnection attempts: 0.5 s, doubling up to this", member(&S::live, &S::Live::reconnect_max_s));
  t.string("/cameras/live/v4l2_size", "", "V4L2 devices: the capture size (e.g. 1280x720); \"\" = the device's",
           member(&S::live, &S::Live::v4l2_size));
  t.number("/cameras/live/v4l2_fps", 0, 0, 1000, "V4L2 devices: frames per second; 0 = the device's",
           member(&S::live, &S::Live::v4l2_fps));
  t.string("/cameras/live/v4l2_pixel_format", "", "V4L2 devices: the pixel format (e.g. mjpeg, yuyv422); \"\" = the device's",
           member(&S::live, &S::Live::v4l2_pixel_format));

  t.object("/detector", "MediaPipe BlazeFace (scripts/fetch-models.sh fetches it)");
  t.choice("/detector/model", "short", {"short", "full"}, "short: faces within ~2 m (128x128); full: up to ~5 m (192x192)",
           [](S& s, const std::string& v) { s.processor.detector.model = parse_detector_model(v, "/detector/model"); });
  t.string("/detector/path", "", "the .tflite; empty: the model's file from $GPUPROC_MODELS, .models or the install",
           [](S& s, const std::string& v) {
             s.processor.detector_path = infer::locate_model(v, detector_model_file(s.processor.detector.model), "/detector/path");
           });
  t.number("/detector/min_score", -1, -1, 1, "detections below are dropped; -1: the model's default (0.5 short, 0.6 full)",
           detector(&DetectorOptions::min_score));
  t.choice("/detector/filter", "bilinear", {"bilinear", "area"},
           "how a frame is shrunk into the detector's input: bilinear at each input pixel's centre, as MediaPipe does; "
           "area averages the pixels it covers",
           [](S& s, const std::string& v) {
             s.processor.detector.filter = v == "area" ? frames::ResizeFilter::area : frames::ResizeFilter::bilinear;
           });
  t.number("/detector/nms_iou", 0.3, 0, 1, "weighted non-maximum suppression: boxes overlapping more merge",
           detector(&DetectorOptions::nms_iou));
  t.integer("/detector/max_faces", 16, 1, 256, "faces per frame at most",
            member(&S::processor, &FaceProcessorOptions::detector, &DetectorOptions::max_faces));
  t.integer("/detector/every", 10, 1, 1000, "run the detector every N frames, after a followed face is lost, and on every frame while none is followed",
            member(&S::tracking, &CameraTrackerOptions::detect_every));

  t.object("/landmarks", "MediaPipe face mesh: 468 points per face, which also follow faces between detections");
  t.boolean("/landmarks/enabled", true, "off: no landmarks, the detector runs on every frame",
            member(&S::tracking, &CameraTrackerOptions::landmarks));
  t.string("/landmarks/path", "", "face_landmark.tflite; empty: found like /detector/path", [](S& s, const std::string& v) {
    if (s.tracking.landmarks) s.processor.landmark_path = infer::locate_model(v, "face_landmark.tflite", "/landmarks/path");
  });
  t.number("/landmarks/min_score", 0.5, 0, 1, "face-present probability below which a followed face is lost",
           member(&S::tracking, &CameraTrackerOptions::min_landmark_score));
  t.number("/landmarks/roi_scale", 1.5, 1, 4, "crop side around a face, x its box's long side",
           member(&S::tracking, &CameraTrackerOptions::roi_scale));

  t.object("/tracking", "ByteTrack association and track life (per camera)");
  t.number("/tracking/high_score", 0.5, 0, 1, "detections from here match in the first stage", tracker(&TrackerOptions::high_score));
  t.number("/tracking/low_score", 0.1, 0, 1, "weaker ones are ignored; between: second stage, confirmed tracks only",
           tracker(&TrackerOptions::low_score));
  t.number("/tracking/new_track_score", 0.6, 0, 1, "an unmatched detection starts a track from this score",
           tracker(&TrackerOptions::new_track_score));
  t.number("/tracking/iou", 0.2, 0, 1, "first-stage minimum IoU of a track and a detection", tracker(&TrackerOptions::first_stage_iou));
  t.integer("/tracking/min_hits", 2, 1, 100, "consecutive matches that confirm a track (and give its ID)",
            member(&S::tracking, &CameraTrackerOptions::tracker, &TrackerOptions::min_hits));
  t.integer("/tracking/max_lost_frames", 30, 0, 100000, "frames a lost track is kept for re-identification",
            member(&S::tracking, &CameraTrackerOptions::tracker, &TrackerOptions::max_lost_frames));

  t.object("/signals", "per face, from its landmarks: head pose, eye and mouth openness (README: Face signals)");
  t.boolean("/signals/enabled", true, "compute them (faces with landmarks) for the JSON lines, CSV and summary",
            &S::signals);
  t.number("/signals/camera_fov_deg", 60, 1, 179,
           "the cameras' horizontal field of view, for the head's translation in millimetres", &S::camera_fov_deg);

  t.object("/output", "files per camera ({camera} = its id), each appearing only once complete");
  t.string("/output/dir", "out/track-faces", "output folder (created)", &S::out_dir);
  t.string("/output/jsonl", "{camera}.jsonl", "one JSON line per frame; \"\" = none", name_into(&S::jsonl_name, "/output/jsonl"));
  t.string("/output/csv", "{camera}.csv", "one row per face and frame; \"\" = none", name_into(&S::csv_name, "/output/csv"));
  t.string("/output/summary", "{camera}_summary.json", "tracks with their first/last frames and durations; \"\" = none",
           name_into(&S::summary_name, "/output/summary"));
  t.boolean("/output/landmarks", false, "include the 468 landmarks per face in the JSON lines and CSV", &S::write_landmarks);
  t.object("/output/stream", "each frame's JSON line also sent while the run goes on, never slowing it (full queues "
                             "drop and count)");
  t.string("/output/stream/zmq", "",
           "a ZeroMQ PUB endpoint to bind (e.g. tcp://*:5555, ipc:///tmp/faces): two-part messages [camera id, JSON "
           "line], one topic per camera; \"\" = none",
           member(&S::stream, &io::ResultStreamOptions::zmq_endpoint));
  t.boolean("/output/stream/stdout", false, "the JSON lines also on standard output", member(&S::stream, &io::ResultStreamOptions::stdout_lines));
  t.integer("/output/stream/queue", 1024, 1, 1000000, "messages waiting to be sent at most; more are dropped (counted)",
            [](S& s, long long v) { s.stream.queue = std::size_t(v); });
  t.integer("/output/stream/wait_subscribers", 0, 0, 10000,
            "before the cameras start, wait until this many listeners subscribed to the ZeroMQ socket (or wait_timeout_s)",
            member(&S::stream, &io::ResultStreamOptions::wait_subscribers));
  t.number("/output/stream/wait_timeout_s", 10, 0, 3600, "how long to wait for them at most",
           member(&S::stream, &io::ResultStreamOptions::wait_timeout_s));
  t.object("/output/preview", "an annotated video (boxes, IDs, keypoints, landmarks) for people to look at");
  t.boolean("/output/preview/enabled", false, "write it (libx264)", &S::preview);
  t.string("/output/preview/name", "{camera}_preview.mp4", "file per camera", [](S& s, const std::string& v) {
    if (!s.preview) return;
    s.preview_name = checked_name(v, "/output/preview/name");
    const std::string ext = fs::path(s.preview_name).extension().string();
    if (ext != ".mp4" && ext != ".mkv" && ext != ".mov")
      throw UsageError("/output/preview/name: \"" + s.preview_name + "\" must be a .mp4, .mkv or .mov file");
  });
  t.integer("/output/preview/crf", 23, 0, 51, "libx264 quality (lower is better)", &S::preview_crf);

  t.object("/run", "behaviour of the job");
  t.choice("/run/precision", "fp16", {"fp16", "fp32"}, "GPU arithmetic (the CPU path is always fp32)",
           [](S& s, const std::string& v) { s.processor.fp16 = v == "fp16"; });
  t.integer("/run/landmark_batch", 32, 1, 64, "faces per landmark model run on the GPU",
            member(&S::processor, &FaceProcessorOptions::landmark_batch));
  t.number("/run/duration_s", 0, 0, 1e9,
           "every camera stops after this many seconds from the start and its outputs are finished (how a live run "
           "ends, beside SIGINT/SIGTERM); 0 = until the inputs end",
           &S::duration_s);
  t.boolean("/run/realtime", false, "release each camera's frames at its frame rate (as live cameras would)", &S::realtime);
  t.integer("/run/decode_threads", 1, 0, 64, "decoder threads per camera (0 = libav's choice)", &S::decode_threads);
  t.integer("/run/workers", 2, 1, 16,
            "GPU compute workers per device of --device (a list such as cuda:0,1 deals the cameras out over "
            "the GPUs), each with its own stream and engines and a share of the cameras, so "
            "one's GPU work overlaps another's host work",
            &S::workers_per_device);
  t.choice("/run/gpu_wait", "block", {"block", "spin"},
           "how compute workers wait for the GPU: block (sleep, leaving the core to the video decoders) or spin (CUDA's "
           "default with one process per GPU: a core busy while the GPU works, a few microseconds sooner)",
           [](S& s, const std::string& v) { s.gpu_wait = v == "block" ? GpuWait::block : GpuWait::spin; });
  t.on_error("cameras", &S::stop_on_error);
  return t;
}

const Table& table() {
  static const Table t = make_table();
  return t;
}

}  // namespace

const config::Schema& schema() { return table().schema(); }

TrackSettings read_settings(const config::json& c) {
  TrackSettings s = table().read(c);
  const TrackerOptions& tracker = s.tracking.tracker;
  if (tracker.low_score > tracker.high_score)
    throw UsageError("/tracking/low_score: " + std::to_string(tracker.low_score) + " is above /tracking/high_score");
  if (s.jsonl_name.empty() && s.csv_name.empty() && s.summary_name.empty() && s.preview_name.empty())
    throw UsageError("/output: every output is off (jsonl, csv, summary and preview)");
  return s;
}

std::string camera_id(const std::string& input) {
  if (is_live_source(input)) {
    std::string id = input.rfind("/dev/", 0) == 0 ? input.substr(5) : input;
    const auto scheme = id.find("://");
    if (scheme != std::string::npos) id.replace(scheme, 3, "_");
    for (char& c : id)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
    while (!id.empty() && id.back() == '_') id.pop_back();
    return id;
  }
  fs::path path(input);
  if (!path.has_filename()) path = path.parent_path();  // "cams/front/"
  return (fs::is_directory(path) ? path.filename() : path.stem()).string();
}

std::string camera_output(const TrackSettings& s, const std::string& name, const std::string& camera) {
  if (name.empty()) return "";
  return output_path(s.out_dir, expand_template(name, {{"camera", camera}}), "/output");
}

}  // namespace gp::track
