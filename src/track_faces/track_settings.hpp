#pragma once
// track-faces' job config: schema (documented; --print-config) and the checked settings.
#include <map>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "io/result_stream.hpp"
#include "track_faces/camera_tracker.hpp"
#include "track_faces/face_processor.hpp"

namespace gp::track {

const config::Schema& schema();

struct TrackSettings {
  FaceProcessorOptions processor;  // model paths resolved, detector options, precision, batches
  CameraTrackerOptions tracking;
  std::map<std::string, double> time_offsets;  // camera id -> seconds added to its timestamps
  std::string out_dir, jsonl_name, csv_name, summary_name, preview_name;  // names: "" = not written
  bool preview = false;  // output.preview.enabled (preview_name is "" when off)
  bool write_landmarks = false;
  bool signals = true;          // per-face signals (face_signals.hpp)
  io::ResultStreamOptions stream;  // results streamed out while the run goes on (ZeroMQ, stdout)
  float camera_fov_deg = 60;    // horizontal, for the translation
  int preview_crf = 23;
  bool realtime = false;  // decoders release frames at the video's pace (live cameras; the benchmark)
  // Live cameras (URLs, /dev/videoN; core/inputs.hpp is_live_source).
  struct Live {
    std::string rtsp_transport = "tcp";
    double stall_timeout_s = 5;   // no frame for this long: the camera reconnects
    double reconnect_max_s = 8;   // back-off between attempts: 0.5 s, doubling up to this
    std::string v4l2_size, v4l2_pixel_format;  // "" = the device's default
    double v4l2_fps = 0;          // 0 = the device's default
  } live;
  double duration_s = 0;  // > 0: every camera stops after this long (live runs end so)
  double sequence_fps = 30;  // image-sequence cameras' frame rate
  int decode_threads = 1;
  GpuWait gpu_wait = GpuWait::block;  // how the compute workers wait for the GPU
  int workers_per_device = 2;        // GPU compute workers per device (the CPU path has one)
  bool stop_on_error = false;
};

// Throws UsageError naming the field.
TrackSettings read_settings(const config::json& config);

// A camera's id: its video's file stem, its image folder's name, or for a live source the URL or
// device with every character other than letters, digits, '.', '-' and '_' as '_' ("udp://10.0.0.5:5000"
// -> "udp_10.0.0.5_5000", "/dev/video0" -> "video0"). Two cameras with one id are a usage error.
std::string camera_id(const std::string& input);

// An output's path for a camera ({camera} in the name); "" when the name is empty.
std::string camera_output(const TrackSettings& s, const std::string& name, const std::string& camera);

}  // namespace gp::track
