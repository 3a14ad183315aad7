#include "track_faces/result_writers.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iterator>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/outputs.hpp"

namespace gp::track {
namespace fs = std::filesystem;
namespace {

// Fixed precision keeps files small and diffable: pixels to 1/100, scores to 1e-4, times to 1 us.
constexpr int kPixelDecimals = 2;
constexpr int kScoreDecimals = 4;
constexpr int kTimeDecimals = 6;
constexpr int kAngleDecimals = 2;  // degrees
constexpr int kMmDecimals = 1;
constexpr std::size_t kSignalColumns = 9;  // yaw, pitch, roll, translation x y z, eyes x2, mouth

using Buffer = fmt::memory_buffer;

// `v` with `decimals` fixed decimals, trailing zeros dropped ("12.50" -> "12.5", "3.00" -> "3",
// "-0.00" -> "0"); `missing` for NaN and infinities, which JSON cannot hold.
void append_number(Buffer& out, double v, int decimals, const char* missing) {
  if (!std::isfinite(v)) {
    out.append(std::string_view(missing));
    return;
  }
  char text[384];  // fixed notation of the largest double with 6 decimals fits
  const auto end = fmt::format_to_n(text, sizeof text, "{:.{}f}", v, decimals).out;
  std::size_t n = static_cast<std::size_t>(end - text);
  if (std::memchr(text, '.', n) != nullptr) {
    while (text[n - 1] == '0') --n;
    if (text[n - 1] == '.') --n;
  }
  if (n == 2 && text[0] == '-' && text[1] == '0') {
    out.push_back('0');
    return;
  }
  out.append(text, text + n);
}

void json_number(Buffer& out, double v, int decimals) { append_number(out, v, decimals, "null"); }
void csv_number(Buffer& out, double v, int decimals) { append_number(out, v, decimals, ""); }

// A JSON string literal; bytes >= 0x80 pass through (camera ids come from the JSON config, UTF-8).
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else
          out += c;
    }
  }
  return out + "\"";
}

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

bool has_landmarks(const TrackedFace& face) { return !face.landmarks.empty(); }

void append_json_face(Buffer& out, const TrackedFace& face, bool include_landmarks) {
  fmt::format_to(std::back_inserter(out), "{{\"track\":{},\"box\":[", face.track_id);
  json_number(out, face.box.x0, kPixelDecimals);
  out.push_back(',');
  json_number(out, face.box.y0, kPixelDecimals);
  out.push_back(',');
  json_number(out, face.box.x1, kPixelDecimals);
  out.push_back(',');
  json_number(out, face.box.y1, kPixelDecimals);
  out.append(std::string_view("],\"score\":"));
  json_number(out, face.score, kScoreDecimals);
  out.append(std::string_view(face.detected ? ",\"detected\":true,\"keypoints\":[" : ",\"detected\":false,\"keypoints\":["));
  for (int k = 0; k < kMaxKeypoints; ++k) {
    out.append(std::string_view(k ? ",[" : "["));
    json_number(out, face.keypoints[k].x, kPixelDecimals);
    out.push_back(',');
    json_number(out, face.keypoints[k].y, kPixelDecimals);
    out.push_back(']');
  }
  out.push_back(']');
  if (include_landmarks && has_landmarks(face)) {
    out.append(std::string_view(",\"landmark_score\":"));
    json_number(out, face.landmark_score, kScoreDecimals);
    out.append(std::string_view(",\"landmarks\":["));
    for (std::size_t i = 0; i < face.landmarks.size(); i += 3) {
      out.append(std::string_view(i ? ",[" : "["));
      json_number(out, face.landmarks[i], kPixelDecimals);
      out.push_back(',');
      json_number(out, face.landmarks[i + 1], kPixelDecimals);
      out.push_back(',');
      json_number(out, face.landmarks[i + 2], kPixelDecimals);
      out.push_back(']');
    }
    out.push_back(']');
  }
  if (face.signals) {
    const FaceSignals& g = *face.signals;
    out.append(std::string_view(",\"head_pose\":{\"yaw\":"));
    json_number(out, g.yaw, kAngleDecimals);
    out.append(std::string_view(",\"pitch\":"));
    json_number(out, g.pitch, kAngleDecimals);
    out.append(std::string_view(",\"roll\":"));
    json_number(out, g.roll, kAngleDecimals);
    out.append(std::string_view(",\"translation_mm\":["));
    for (int k = 0; k < 3; ++k) {
      if (k) out.push_back(',');
      json_number(out, g.translation_mm[std::size_t(k)], kMmDecimals);
    }
    out.append(std::string_view("]},\"eye_openness\":["));
    json_number(out, g.right_eye, kScoreDecimals);
    out.push_back(',');
    json_number(out, g.left_eye, kScoreDecimals);
    out.append(std::string_view("],\"mouth_openness\":"));
    json_number(out, g.mouth, kScoreDecimals);
  }
  out.push_back('}');
}

// One frame's JSON object (a JSON line without its newline).
void append_frame_json(Buffer& line, const std::string& camera_json, const CameraFrame& frame, bool include_landmarks) {
  fmt::format_to(std::back_inserter(line), "{{\"camera\":{},\"frame\":{},\"time_s\":", camera_json, frame.frame);
  json_number(line, frame.time_s, kTimeDecimals);
  if (frame.stream_time_s >= 0) {
    line.append(std::string_view(",\"stream_time_s\":"));
    json_number(line, frame.stream_time_s, kTimeDecimals);
  }
  line.append(std::string_view(",\"faces\":["));
  for (std::size_t i = 0; i < frame.faces.size(); ++i) {
    if (i) line.push_back(',');
    append_json_face(line, frame.faces[i], include_landmarks);
  }
  line.append(std::string_view("]}"));
}

void append_csv_row(Buffer& out, const std::string& camera_csv, const CameraFrame& frame, const TrackedFace& face,
                    bool include_landmarks) {
  out.append(camera_csv);
  fmt::format_to(std::back_inserter(out), ",{},", frame.frame);
  csv_number(out, frame.time_s, kTimeDecimals);
  fmt::format_to(std::back_inserter(out), ",{},", face.track_id);
  for (const float v : {face.box.x0, face.box.y0, face.box.x1, face.box.y1}) {
    csv_number(out, v, kPixelDecimals);
    out.push_back(',');
  }
  csv_number(out, face.score, kScoreDecimals);
  out.append(std::string_view(face.detected ? ",1" : ",0"));
  for (const Keypoint& k : face.keypoints) {
    out.push_back(',');
    csv_number(out, k.x, kPixelDecimals);
    out.push_back(',');
    csv_number(out, k.y, kPixelDecimals);
  }
  if (face.signals) {
    const FaceSignals& g = *face.signals;
    for (const float v : {g.yaw, g.pitch, g.roll}) out.push_back(','), csv_number(out, v, kAngleDecimals);
    for (const float v : g.translation_mm) out.push_back(','), csv_number(out, v, kMmDecimals);
    for (const float v : {g.right_eye, g.left_eye, g.mouth}) out.push_back(','), csv_number(out, v, kScoreDecimals);
  } else {
    out.append(std::string(kSignalColumns, ','));
  }
  if (include_landmarks) {
    out.push_back(',');
    if (has_landmarks(face)) {
      csv_number(out, face.landmark_score, kScoreDecimals);
      for (const float v : face.landmarks) {
        out.push_back(',');
        csv_number(out, v, kPixelDecimals);
      }
    } else {
      // Same column count as the header: empty landmark fields.
      out.append(std::string(3 * kFaceLandmarks, ','));
    }
  }
  out.push_back('\n');
}

void check_frame(const CameraFrame& frame) {
  for (const TrackedFace& face : frame.faces)
    if (!face.landmarks.empty() && face.landmarks.size() != 3 * std::size_t(kFaceLandmarks))
      throw Error(fmt::format("camera {} frame {}: track {} has {} landmark values, expected 0 or {}", frame.camera,
                              frame.frame, face.track_id, face.landmarks.size(), 3 * kFaceLandmarks));
}

void fsync_folder_best_effort(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string frame_json(const CameraFrame& frame, bool include_landmarks) {
  Buffer line;
  append_frame_json(line, json_string(frame.camera), frame, include_landmarks);
  return std::string(line.data(), line.size());
}

// ---- CameraSummary

void CameraSummary::add(const CameraFrame& frame) {
  if (frames_ == 0) camera_ = frame.camera;
  const std::int64_t ordinal = frames_++;
  if (!frame.faces.empty()) ++frames_with_faces_;
  faces_ += static_cast<std::int64_t>(frame.faces.size());
  for (const TrackedFace& face : frame.faces) {
    auto [it, is_new] = tracks_.try_emplace(face.track_id);
    Track& t = it->second;
    if (is_new) {
      t.first_frame = frame.frame;
      t.first_time_s = frame.time_s;
    }
    if (is_new || t.last_frame_ordinal != ordinal - 1) ++t.appearances;
    t.last_frame_ordinal = ordinal;
    t.last_frame = frame.frame;
    t.last_time_s = frame.time_s;
    ++t.frames_seen;
    if (face.detected) ++t.frames_detected;
    t.score_sum += face.score;
    if (face.signals) {
      const FaceSignals& g = *face.signals;
      const float values[kSignalSeries] = {g.yaw, g.pitch, g.roll, g.right_eye, g.left_eye, g.mouth};
      for (int k = 0; k < kSignalSeries; ++k) t.signals[std::size_t(k)].add(values[k]);
    }
  }
}

nlohmann::ordered_json CameraSummary::to_json() const {
  nlohmann::ordered_json tracks = nlohmann::ordered_json::array();
  for (const auto& [id, t] : tracks_) {
    nlohmann::ordered_json j;
    j["id"] = id;
    j["first_frame"] = t.first_frame;
    j["last_frame"] = t.last_frame;
    j["first_time_s"] = t.first_time_s;
    j["last_time_s"] = t.last_time_s;
    j["duration_s"] = t.last_time_s - t.first_time_s;
    j["frames_seen"] = t.frames_seen;
    j["frames_detected"] = t.frames_detected;
    j["appearances"] = t.appearances;
    j["mean_score"] = t.score_sum / static_cast<double>(t.frames_seen);
    if (t.signals[0].n) {
      static const char* const names[kSignalSeries] = {"yaw",
                                                       "pitch",
                                                       "roll",
                                                       "right_eye_openness",
                                                       "left_eye_openness",
                                                       "mouth_openness"};
      nlohmann::ordered_json signals;
      signals["frames"] = t.signals[0].n;
      for (int k = 0; k < kSignalSeries; ++k) {
        const auto& series = t.signals[std::size_t(k)];
        signals[names[k]] = {{"mean", series.sum / double(series.n)}, {"min", series.min}, {"max", series.max}};
      }
      j["signals"] = std::move(signals);
    }
    tracks.push_back(std::move(j));
  }
  nlohmann::ordered_json j;
  j["camera"] = camera_;
  j["frames"] = frames_;
  j["frames_with_faces"] = frames_with_faces_;
  j["faces"] = faces_;
  j["tracks"] = std::move(tracks);
  return j;
}

// ---- CameraResultWriter

CameraResultWriter::CameraResultWriter(std::string jsonl_path, std::string csv_path, bool include_landmarks)
    : include_landmarks_(include_landmarks) {
  jsonl_.final_path = std::move(jsonl_path);
  csv_.final_path = std::move(csv_path);
  try {
    open(jsonl_);
    open(csv_);
  } catch (...) {
    discard();
    throw;
  }
}

CameraResultWriter::~CameraResultWriter() {
  if (!finished_) discard();
}

void CameraResultWriter::open(Output& out) {
  if (out.final_path.empty()) return;
  const fs::path parent = fs::path(out.final_path).parent_path();
  std::error_code ec;
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) throw Error(out.final_path + ": cannot create the folder " + parent.string() + ": " + ec.message());
  }
  out.temp_path = temporary_path_for(out.final_path);
  out.file = std::fopen(out.temp_path.c_str(), "wb");
  if (out.file == nullptr) throw Error(out.final_path + ": cannot create " + out.temp_path + ": " + std::strerror(errno));
  std::setvbuf(out.file, nullptr, _IOFBF, 1 << 20);
}

void CameraResultWriter::append(Output& out, const char* data, std::size_t size) {
  if (std::fwrite(data, 1, size, out.file) != size)
    throw Error(out.final_path + ": cannot write " + out.temp_path + ": " + std::strerror(errno));
}

void CameraResultWriter::write_csv_header() {
  Buffer header;
  header.append(std::string_view("camera,frame,time_s,track,x0,y0,x1,y1,score,detected"));
  for (int k = 0; k < kMaxKeypoints; ++k) fmt::format_to(std::back_inserter(header), ",kp{0}_x,kp{0}_y", k);
  header.append(std::string_view(",yaw,pitch,roll,tx_mm,ty_mm,tz_mm,right_eye_openness,left_eye_openness,mouth_openness"));
  if (include_landmarks_) {
    header.append(std::string_view(",landmark_score"));
    for (int i = 0; i < kFaceLandmarks; ++i) fmt::format_to(std::back_inserter(header), ",lm{0}_x,lm{0}_y,lm{0}_z", i);
  }
  header.push_back('\n');
  append(csv_, header.data(), header.size());
}

void CameraResultWriter::write(const CameraFrame& frame) {
  if (finished_) throw Error("camera " + camera_ + ": result frame written after finish()");
  if (!any_frame_) {
    camera_ = frame.camera;
    camera_json_ = json_string(frame.camera);
    camera_csv_ = csv_field(frame.camera);
    if (csv_.file != nullptr) write_csv_header();
  } else if (frame.camera != camera_) {
    throw Error("result writer of camera " + camera_ + " got a frame of camera " + frame.camera);
  } else if (frame.frame <= last_frame_) {
    throw Error(fmt::format("camera {}: result frame {} after frame {} (frames must come in order)", camera_,
                            frame.frame, last_frame_));
  }
  check_frame(frame);
  any_frame_ = true;
  last_frame_ = frame.frame;
  summary_.add(frame);

  Buffer line;
  if (jsonl_.file != nullptr) {
    append_frame_json(line, camera_json_, frame, include_landmarks_);
    line.push_back('\n');
    append(jsonl_, line.data(), line.size());
  }
  if (csv_.file != nullptr) {
    line.clear();
    for (const TrackedFace& face : frame.faces) append_csv_row(line, camera_csv_, frame, face, include_landmarks_);
    append(csv_, line.data(), line.size());
  }
}

void CameraResultWriter::finish() {
  if (finished_) return;
  // A CSV of a camera without frames still gets its header, so readers find the columns.
  if (csv_.file != nullptr && !any_frame_) write_csv_header();
  // Every file's data on disk before any rename: a crash leaves old files or complete new ones.
  for (Output* out : {&jsonl_, &csv_}) {
    if (out->file == nullptr) continue;
    if (std::fflush(out->file) != 0)
      throw Error(out->final_path + ": cannot write " + out->temp_path + ": " + std::strerror(errno));
    if (outputs_fsync() && ::fsync(::fileno(out->file)) != 0)
      throw Error(out->final_path + ": cannot flush " + out->temp_path + " to disk: " + std::strerror(errno));
    const int closed = std::fclose(out->file);
    out->file = nullptr;
    if (closed != 0) throw Error(out->final_path + ": cannot close " + out->temp_path + ": " + std::strerror(errno));
  }
  for (Output* out : {&jsonl_, &csv_}) {
    if (out->temp_path.empty()) continue;
    std::error_code ec;
    fs::rename(out->temp_path, out->final_path, ec);
    if (ec) throw Error(out->final_path + ": cannot move the finished file into place: " + ec.message());
    release_temporary_path(out->temp_path);
    out->temp_path.clear();
    if (outputs_fsync()) fsync_folder_best_effort(fs::path(out->final_path).parent_path());
  }
  finished_ = true;
}

void CameraResultWriter::discard() {
  for (Output* out : {&jsonl_, &csv_}) {
    if (out->file != nullptr) std::fclose(out->file);
    out->file = nullptr;
    std::error_code ec;
    if (!out->temp_path.empty()) fs::remove(out->temp_path, ec);
    release_temporary_path(out->temp_path);
    out->temp_path.clear();
  }
}

}  // namespace gp::track
