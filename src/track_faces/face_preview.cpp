#include "track_faces/face_preview.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace gp::track {
namespace {

constexpr int kOutline = 2;         // box line width
constexpr int kKeypointRadius = 2;  // 5x5 squares

void draw_face(const frames::Canvas& canvas, const TrackedFace& face) {
  const PixelBox& b = face.box;
  if (!std::isfinite(b.x0) || !std::isfinite(b.y0) || !std::isfinite(b.x1) || !std::isfinite(b.y1)) return;
  const Rgb colour = track_colour(face.track_id);

  // Landmarks first: the box, keypoints and label stay readable on top of the mesh.
  const Rgb mesh = frames::tint(colour);
  for (std::size_t i = 0; i + 2 < face.landmarks.size(); i += 3) {
    const float x = face.landmarks[i], y = face.landmarks[i + 1];
    if (std::isfinite(x) && std::isfinite(y)) canvas.dot(frames::to_pixel(x), frames::to_pixel(y), mesh);
  }

  // Pixels whose centres lie inside the box: [round(x0), round(x1) - 1].
  const int x0 = frames::to_pixel(b.x0), y0 = frames::to_pixel(b.y0), x1 = frames::to_pixel(b.x1) - 1,
            y1 = frames::to_pixel(b.y1) - 1;
  if (x1 >= x0 && y1 >= y0) canvas.box(x0, y0, x1, y1, kOutline, colour);

  for (const Keypoint& k : face.keypoints) {
    if (!std::isfinite(k.x) || !std::isfinite(k.y)) continue;
    const int x = frames::to_pixel(k.x), y = frames::to_pixel(k.y);
    canvas.fill(x - kKeypointRadius, y - kKeypointRadius, x + kKeypointRadius, y + kKeypointRadius, colour);
  }

  const std::string text = "#" + std::to_string(std::abs(static_cast<long long>(face.track_id)));
  // Above the box; a face at the top of the frame gets it just inside the box's top edge instead.
  const int label_y = y0 - frames::kLabelHeight >= 0 ? y0 - frames::kLabelHeight : y0 + kOutline;
  canvas.label(text, x0, label_y, colour, frames::readable_ink(colour));
}

}  // namespace

void draw_faces(const gp::ImageView& rgb, const std::vector<TrackedFace>& faces) {
  const frames::Canvas canvas(rgb, "draw_faces");
  if (rgb.width <= 0 || rgb.height <= 0) return;
  for (const TrackedFace& face : faces) draw_face(canvas, face);
}

}  // namespace gp::track
