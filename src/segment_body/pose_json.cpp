#include "segment_body/pose_json.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

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

}  // namespace gp::segbody
