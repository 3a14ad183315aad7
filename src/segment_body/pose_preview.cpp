#include "segment_body/pose_preview.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "frames/annotate.hpp"

namespace gp::segbody {
namespace {

// mediapipe/python/solutions/pose_connections.py POSE_CONNECTIONS.
constexpr std::pair<int, int> kConnections[] = {
    {0, 1},   {1, 2},   {2, 3},   {3, 7},   {0, 4},   {4, 5},   {5, 6},   {6, 8},   {9, 10},
    {11, 12}, {11, 13}, {13, 15}, {15, 17}, {15, 19}, {15, 21}, {17, 19}, {12, 14}, {14, 16},
    {16, 18}, {16, 20}, {16, 22}, {18, 20}, {11, 23}, {12, 24}, {23, 24}, {23, 25}, {24, 26},
    {25, 27}, {26, 28}, {27, 29}, {28, 30}, {29, 31}, {30, 32}, {27, 31}, {28, 32}};
constexpr float kVisible = 0.5f;  // drawing_utils' _VISIBILITY_THRESHOLD and _PRESENCE_THRESHOLD

bool shown(const PoseLandmark& l) {
  return l.visibility >= kVisible && l.presence >= kVisible && std::isfinite(l.x) && std::isfinite(l.y);
}

}  // namespace

void pose_preview(const ImageView& rgba, const std::vector<PersonPose>& people, const ImageView& rgb) {
  if (rgba.type != PixelType::u8 || rgba.channels != 4 || rgb.width != rgba.width || rgb.height != rgba.height)
    throw std::invalid_argument("pose_preview: expected an RGBA frame and an RGB image of its size");
  const frames::Canvas canvas(rgb, "pose_preview");
  // The background at 40%, the people (the mask) at full brightness.
  for (int y = 0; y < rgb.height; ++y) {
    const std::uint8_t* in = rgba.row<std::uint8_t>(y);
    std::uint8_t* out = rgb.row<std::uint8_t>(y);
    for (int x = 0; x < rgb.width; ++x, in += 4, out += 3) {
      const int weight = 102 + (153 * in[3] + 127) / 255;  // 0.4 .. 1.0 of 255
      for (int c = 0; c < 3; ++c) out[c] = std::uint8_t((in[c] * weight + 127) / 255);
    }
  }
  const int thickness = std::max(2, std::min(rgb.width, rgb.height) / 240);
  for (std::size_t k = 0; k < people.size(); ++k) {
    const PersonPose& p = people[k];
    const frames::Rgb colour = frames::track_colour(p.id > 0 ? p.id : int(k) + 1);
    for (const auto& [a, b] : kConnections) {
      const PoseLandmark& la = p.landmarks[std::size_t(a)];
      const PoseLandmark& lb = p.landmarks[std::size_t(b)];
      if (shown(la) && shown(lb))
        canvas.line(frames::to_pixel(la.x), frames::to_pixel(la.y), frames::to_pixel(lb.x), frames::to_pixel(lb.y),
                    thickness, colour);
    }
    const frames::Rgb joint = frames::tint(colour);
    for (const PoseLandmark& l : p.landmarks) {
      if (!shown(l)) continue;
      const int x = frames::to_pixel(l.x), y = frames::to_pixel(l.y), r = thickness;
      canvas.fill(x - r, y - r, x + r, y + r, joint);
    }
    if (p.id > 0) {
      const int x0 = frames::to_pixel(p.box[0]), y0 = frames::to_pixel(p.box[1]);
      const int label_y = y0 - frames::kLabelHeight >= 0 ? y0 - frames::kLabelHeight : y0;
      canvas.label("#" + std::to_string(p.id), x0, label_y, colour, frames::readable_ink(colour));
    }
  }
}

}  // namespace gp::segbody
