#pragma once
// track-faces results of one camera, written as the frames come (a clip can run for an hour, so
// nothing but the per-track summary is kept): JSON lines (one line per frame, faces or not), CSV
// (one row per face) and a summary of the camera's tracks. Files appear under their final names
// only at finish(), as every gpuproc output (core/outputs.hpp).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "track_faces/face_frame.hpp"

namespace gp::track {

// Counts and per-track spans of one camera's frames, built from the same stream as the files.
class CameraSummary {
 public:
  void add(const CameraFrame& frame);

  // {"camera", "frames", "frames_with_faces", "faces", "tracks": [{"id", "first_frame",
  // "last_frame", "first_time_s", "last_time_s", "duration_s", "frames_seen", "frames_detected",
  // "appearances", "mean_score", "signals"}]} with tracks in id order (signals: mean, min and max of
  // yaw, pitch, roll, each eye's and the mouth's openness over the frames with landmarks). duration_s is last_time_s -
  // first_time_s (gaps included); appearances counts the runs of consecutive frames it was seen in
  // (2: it left the picture once and came back).
  nlohmann::ordered_json to_json() const;

  std::int64_t frames() const { return frames_; }
  std::int64_t frames_with_faces() const { return frames_with_faces_; }
  std::int64_t faces() const { return faces_; }
  std::size_t tracks() const { return tracks_.size(); }

 private:
  static constexpr int kSignalSeries = 6;  // yaw, pitch, roll, right eye, left eye, mouth
  struct Series {
    double sum = 0, min = 0, max = 0;
    std::int64_t n = 0;
    void add(double v) {
      min = n ? std::min(min, v) : v;
      max = n ? std::max(max, v) : v;
      sum += v;
      ++n;
    }
  };
  struct Track {
    std::int64_t first_frame = 0, last_frame = 0;
    double first_time_s = 0, last_time_s = 0;
    std::int64_t frames_seen = 0, frames_detected = 0, appearances = 0;
    double score_sum = 0;
    std::int64_t last_frame_ordinal = 0;  // which add() call last saw it, for appearances
    std::array<Series, kSignalSeries> signals{};  // over the frames with landmarks
  };
  std::string camera_;
  std::int64_t frames_ = 0, frames_with_faces_ = 0, faces_ = 0;
  std::map<int, Track> tracks_;
};

// One frame as the JSON lines have it, without the newline (what the result stream sends).
std::string frame_json(const CameraFrame& frame, bool include_landmarks);

// One per camera. Paths are final names; an empty path is not written. Frames must come in
// increasing frame order and all from one camera (gp::Error otherwise). Without finish() (an
// exception, a cancelled job) the destructor removes the temporaries and no file appears.
class CameraResultWriter {
 public:
  CameraResultWriter(std::string jsonl_path, std::string csv_path, bool include_landmarks);
  ~CameraResultWriter();
  CameraResultWriter(const CameraResultWriter&) = delete;
  CameraResultWriter& operator=(const CameraResultWriter&) = delete;

  void write(const CameraFrame& frame);

  // Flushes (and fsyncs when gp::outputs_fsync()), then renames the files into place.
  void finish();

  const CameraSummary& summary() const { return summary_; }

 private:
  struct Output {
    std::string final_path, temp_path;
    std::FILE* file = nullptr;
  };
  void open(Output& out);
  void append(Output& out, const char* data, std::size_t size);
  void write_csv_header();
  void discard();

  Output jsonl_, csv_;
  bool include_landmarks_ = false;
  bool finished_ = false;
  std::string camera_, camera_json_, camera_csv_;  // the camera id, escaped once
  std::int64_t last_frame_ = 0;
  bool any_frame_ = false;
  CameraSummary summary_;
};

}  // namespace gp::track
