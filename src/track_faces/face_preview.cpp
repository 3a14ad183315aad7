#include "track_faces/face_preview.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace gp::track {
namespace {

// Distinct on video and to most colour-blind viewers (Sasha Trubetskoy's 20 distinct colours, the
// first 12).
constexpr Rgb kPalette[] = {{230, 25, 75},  {60, 180, 75},  {255, 225, 25}, {0, 130, 200},
                            {245, 130, 48}, {145, 30, 180}, {70, 240, 240}, {240, 50, 230},
                            {210, 245, 60}, {250, 190, 212}, {0, 128, 128}, {170, 110, 40}};
constexpr int kPaletteSize = static_cast<int>(sizeof kPalette / sizeof kPalette[0]);

constexpr int kOutline = 2;         // box line width
constexpr int kKeypointRadius = 2;  // 5x5 squares
constexpr int kLabelPadding = 2;
constexpr int kGlyphAdvance = (kGlyphWidth + 1) * kLabelScale;

// Far outside any frame but safe to add widths to in int.
int to_pixel(float v) { return static_cast<int>(std::lround(std::clamp(v, -1e7f, 1e7f))); }

class Canvas {
 public:
  explicit Canvas(const ImageView& image) : image_(image) {}

  // Inclusive corners, clipped to the image.
  void fill(int x0, int y0, int x1, int y1, const Rgb& c) const {
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, image_.width - 1);
    y1 = std::min(y1, image_.height - 1);
    if (x0 > x1 || y0 > y1) return;
    for (int y = y0; y <= y1; ++y) {
      std::uint8_t* p = image_.row<std::uint8_t>(y) + 3 * x0;
      for (int x = x0; x <= x1; ++x, p += 3) {
        p[0] = c[0];
        p[1] = c[1];
        p[2] = c[2];
      }
    }
  }
  void dot(int x, int y, const Rgb& c) const { fill(x, y, x, y, c); }

 private:
  ImageView image_;
};

void draw_box(const Canvas& canvas, int x0, int y0, int x1, int y1, const Rgb& c) {
  const int t = kOutline - 1;
  canvas.fill(x0, y0, x1, y0 + t, c);  // top
  canvas.fill(x0, y1 - t, x1, y1, c);  // bottom
  canvas.fill(x0, y0, x0 + t, y1, c);  // left
  canvas.fill(x1 - t, y0, x1, y1, c);  // right
}

// "#<id>" with its top-left corner at (x, y), in `ink` on `background`.
void draw_label(const Canvas& canvas, const std::string& text, int x, int y, const Rgb& background, const Rgb& ink) {
  const int width = static_cast<int>(text.size()) * kGlyphAdvance - kLabelScale + 2 * kLabelPadding;
  const int height = kGlyphHeight * kLabelScale + 2 * kLabelPadding;
  canvas.fill(x, y, x + width - 1, y + height - 1, background);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto rows = glyph_rows(text[i]);
    const int gx = x + kLabelPadding + static_cast<int>(i) * kGlyphAdvance, gy = y + kLabelPadding;
    for (int r = 0; r < kGlyphHeight; ++r)
      for (int col = 0; col < kGlyphWidth; ++col)
        if (rows[r] & (0x10 >> col))
          canvas.fill(gx + col * kLabelScale, gy + r * kLabelScale, gx + (col + 1) * kLabelScale - 1,
                      gy + (r + 1) * kLabelScale - 1, ink);
  }
}

Rgb tint(const Rgb& c) {
  return {static_cast<std::uint8_t>((c[0] + 255) / 2), static_cast<std::uint8_t>((c[1] + 255) / 2),
          static_cast<std::uint8_t>((c[2] + 255) / 2)};
}

Rgb readable_ink(const Rgb& background) {
  const int luma = (299 * background[0] + 587 * background[1] + 114 * background[2]) / 1000;
  return luma > 140 ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
}

void draw_face(const Canvas& canvas, const TrackedFace& face) {
  const PixelBox& b = face.box;
  if (!std::isfinite(b.x0) || !std::isfinite(b.y0) || !std::isfinite(b.x1) || !std::isfinite(b.y1)) return;
  const Rgb colour = track_colour(face.track_id);

  // Landmarks first: the box, keypoints and label stay readable on top of the mesh.
  const Rgb mesh = tint(colour);
  for (std::size_t i = 0; i + 2 < face.landmarks.size(); i += 3) {
    const float x = face.landmarks[i], y = face.landmarks[i + 1];
    if (std::isfinite(x) && std::isfinite(y)) canvas.dot(to_pixel(x), to_pixel(y), mesh);
  }

  // Pixels whose centres lie inside the box: [round(x0), round(x1) - 1].
  const int x0 = to_pixel(b.x0), y0 = to_pixel(b.y0), x1 = to_pixel(b.x1) - 1, y1 = to_pixel(b.y1) - 1;
  if (x1 >= x0 && y1 >= y0) draw_box(canvas, x0, y0, x1, y1, colour);

  for (const Keypoint& k : face.keypoints) {
    if (!std::isfinite(k.x) || !std::isfinite(k.y)) continue;
    const int x = to_pixel(k.x), y = to_pixel(k.y);
    canvas.fill(x - kKeypointRadius, y - kKeypointRadius, x + kKeypointRadius, y + kKeypointRadius, colour);
  }

  const std::string text = "#" + std::to_string(std::abs(static_cast<long long>(face.track_id)));
  const int label_height = kGlyphHeight * kLabelScale + 2 * kLabelPadding;
  // Above the box; a face at the top of the frame gets it just inside the box's top edge instead.
  const int label_y = y0 - label_height >= 0 ? y0 - label_height : y0 + kOutline;
  draw_label(canvas, text, x0, label_y, colour, readable_ink(colour));
}

}  // namespace

Rgb track_colour(int track_id) {
  const int index = static_cast<int>(((static_cast<long long>(track_id) - 1) % kPaletteSize + kPaletteSize) % kPaletteSize);
  return kPalette[index];
}

std::array<std::uint8_t, kGlyphHeight> glyph_rows(char c) {
  static constexpr std::uint8_t kDigits[10][kGlyphHeight] = {
      {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},  // 0
      {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},  // 1
      {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},  // 2
      {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},  // 3
      {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},  // 4
      {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},  // 5
      {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},  // 6
      {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},  // 7
      {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},  // 8
      {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},  // 9
  };
  static constexpr std::uint8_t kHash[kGlyphHeight] = {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A};
  const std::uint8_t* rows = c >= '0' && c <= '9' ? kDigits[c - '0'] : c == '#' ? kHash : nullptr;
  std::array<std::uint8_t, kGlyphHeight> out{};
  if (rows != nullptr) std::copy(rows, rows + kGlyphHeight, out.begin());
  return out;
}

void draw_faces(const gp::ImageView& rgb, const std::vector<TrackedFace>& faces) {
  if (rgb.type != PixelType::u8 || rgb.channels != 3)
    throw std::invalid_argument("draw_faces: expected an 8-bit RGB image (u8, 3 channels)");
  if (rgb.width <= 0 || rgb.height <= 0) return;
  if (rgb.data == nullptr || rgb.pitch < rgb.row_bytes())
    throw std::invalid_argument("draw_faces: image without data or with a pitch shorter than a row");
  const Canvas canvas(rgb);
  for (const TrackedFace& face : faces) draw_face(canvas, face);
}

}  // namespace gp::track
