#include "segment_body/pose_json.hpp"

#include <cmath>

#include <fstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/outputs.hpp"

namespace gp::segbody {
namespace {

// Rounded to what the numbers mean (a thousandth of a pixel, a tenth of a millimetre), so the
// files stay small and diff well.
// Divided, not multiplied by the unit, so the result is the double nearest the decimal and prints
// as such.
double rounded(double v, double unit) {
  const double per_unit = std::round(1.0 / unit);
  return std::round(v * per_unit) / per_unit;
}

}  // namespace

std::string pose_frame_json(std::int64_t frame, double time_s, const std::vector<PersonPose>& people) {
  nlohmann::ordered_json j;
  j["frame"] = frame;
  if (time_s >= 0) j["time_s"] = rounded(time_s, 1e-6);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const PersonPose& p : people) {
    nlohmann::ordered_json person;
    person["id"] = p.id;
    person["detection_score"] = rounded(p.detection_score, 1e-4);
    person["presence"] = rounded(p.presence, 1e-4);
    person["box"] = {rounded(p.box[0], 1e-3), rounded(p.box[1], 1e-3), rounded(p.box[2], 1e-3), rounded(p.box[3], 1e-3)};
    person["roi"] = {{"cx", rounded(p.roi.cx, 1e-3)},
                     {"cy", rounded(p.roi.cy, 1e-3)},
                     {"size", rounded(p.roi.size, 1e-3)},
                     {"rotation", rounded(p.roi.rotation, 1e-6)}};
    nlohmann::ordered_json landmarks = nlohmann::ordered_json::array(), world = nlohmann::ordered_json::array();
    for (const PoseLandmark& l : p.landmarks)
      landmarks.push_back({rounded(l.x, 1e-3), rounded(l.y, 1e-3), rounded(l.z, 1e-3), rounded(l.visibility, 1e-4),
                           rounded(l.presence, 1e-4)});
    for (const WorldLandmark& w : p.world) world.push_back({rounded(w.x, 1e-4), rounded(w.y, 1e-4), rounded(w.z, 1e-4)});
    person["landmarks"] = std::move(landmarks);
    person["world_landmarks"] = std::move(world);
    list.push_back(std::move(person));
  }
  j["people"] = std::move(list);
  return j.dump();
}

std::string pose_csv_header() {
  std::string h = "frame,time_s,id,detection_score,presence,box_x0,box_y0,box_x1,box_y1";
  for (int i = 0; i < kPoseLandmarks; ++i)
    h += fmt::format(",lm{0}_x,lm{0}_y,lm{0}_z,lm{0}_visibility,lm{0}_presence", i);
  for (int i = 0; i < kPoseLandmarks; ++i) h += fmt::format(",world{0}_x,world{0}_y,world{0}_z", i);
  return h + "\n";
}

std::string pose_csv_rows(std::int64_t frame, double time_s, const std::vector<PersonPose>& people) {
  std::string rows;
  for (const PersonPose& p : people) {
    rows += fmt::format("{},{},{},{:.4f},{:.4f},{:.3f},{:.3f},{:.3f},{:.3f}", frame, time_s >= 0 ? fmt::format("{:.6f}", time_s) : "",
                        p.id, p.detection_score, p.presence, p.box[0], p.box[1], p.box[2], p.box[3]);
    for (const PoseLandmark& l : p.landmarks)
      rows += fmt::format(",{:.3f},{:.3f},{:.3f},{:.4f},{:.4f}", l.x, l.y, l.z, l.visibility, l.presence);
    for (const WorldLandmark& w : p.world) rows += fmt::format(",{:.4f},{:.4f},{:.4f}", w.x, w.y, w.z);
    rows += "\n";
  }
  return rows;
}

void write_text_file(const std::string& file, const std::string& text, const std::string& input) {
  write_atomically(file, [&](const std::string& temp) {
    std::ofstream out(temp, std::ios::binary);
    out << text;
    if (!out.flush()) throw ItemError(input, "write", "cannot write " + file);
  });
}

}  // namespace gp::segbody
