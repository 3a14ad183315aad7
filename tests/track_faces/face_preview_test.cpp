// track-faces preview drawing: box outline in the track colour with the interior untouched, the
// "#id" label above the box, keypoints and landmarks, and clipping that never writes outside the
// image (checked with guard bands around it in a larger buffer).
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <vector>

#include "track_faces/face_preview.hpp"

using namespace gp::track;

namespace {

constexpr std::uint8_t kBackground = 7;
constexpr std::uint8_t kGuard = 201;
constexpr int kGuardPixels = 16;  // around the image, and extra bytes at the end of each row

// An RGB image of width x height inside a guard-filled buffer with a pitch longer than a row.
struct GuardedImage {
  int width, height;
  std::size_t buffer_pitch;
  std::vector<std::uint8_t> buffer;
  gp::ImageView view;

  GuardedImage(int w, int h) : width(w), height(h) {
    buffer_pitch = std::size_t(w + 2 * kGuardPixels) * 3 + 5;  // odd padding: any pitch
    buffer.assign(buffer_pitch * std::size_t(h + 2 * kGuardPixels), kGuard);
    view.data = buffer.data() + buffer_pitch * kGuardPixels + 3 * kGuardPixels;
    view.width = w;
    view.height = h;
    view.channels = 3;
    view.type = gp::PixelType::u8;
    view.pitch = buffer_pitch;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < 3 * w; ++x) view.row<std::uint8_t>(y)[x] = kBackground;
  }
  Rgb at(int x, int y) const {
    const std::uint8_t* p = view.row<std::uint8_t>(y) + 3 * x;
    return {p[0], p[1], p[2]};
  }
  bool untouched(int x, int y) const { return at(x, y) == Rgb{kBackground, kBackground, kBackground}; }
  // Bytes of the buffer outside the image that are not the guard value.
  int guard_bytes_changed() const {
    int changed = 0;
    const auto* image_start = static_cast<const std::uint8_t*>(view.data);
    for (std::size_t i = 0; i < buffer.size(); ++i) {
      const std::ptrdiff_t offset = buffer.data() + i - image_start;
      const std::ptrdiff_t row = offset >= 0 ? offset / std::ptrdiff_t(buffer_pitch) : -1;
      const std::ptrdiff_t column = offset >= 0 ? offset % std::ptrdiff_t(buffer_pitch) : -1;
      const bool inside = row >= 0 && row < height && column < 3 * width;
      if (!inside && buffer[i] != kGuard) ++changed;
    }
    return changed;
  }
  int changed_pixels() const {
    int n = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) n += !untouched(x, y);
    return n;
  }
};

TrackedFace face_at(int id, float x0, float y0, float x1, float y1) {
  TrackedFace f;
  f.track_id = id;
  f.box = {x0, y0, x1, y1};
  // Keypoints in the box centre row, away from the edges checked below.
  for (int k = 0; k < kMaxKeypoints; ++k) f.keypoints[k] = {x0 + (x1 - x0) * (k + 1) / 7.0f, (y0 + y1) / 2};
  return f;
}

int glyph_bits(char c) {
  int bits = 0;
  for (const auto row : glyph_rows(c))
    for (int b = 0; b < kGlyphWidth; ++b) bits += (row >> b) & 1;
  return bits;
}

}  // namespace

TEST_CASE("preview: box outline in the track colour, interior untouched, label above", "[track_faces][preview]") {
  GuardedImage image(160, 120);
  TrackedFace f = face_at(3, 40, 50, 100, 110);  // pixels 40..99 x 50..109
  draw_faces(image.view, {f});
  const Rgb colour = track_colour(3);

  // The 2 px outline on all four sides.
  for (int x = 40; x <= 99; ++x)
    for (int y : {50, 51, 108, 109}) {
      INFO("x " << x << " y " << y);
      CHECK(image.at(x, y) == colour);
    }
  for (int y = 50; y <= 109; ++y)
    for (int x : {40, 41, 98, 99}) {
      INFO("x " << x << " y " << y);
      CHECK(image.at(x, y) == colour);
    }
  // Just outside the box (left, right, below) and the interior outside the keypoint squares.
  for (int y = 50; y <= 109; ++y) {
    CHECK(image.untouched(39, y));
    CHECK(image.untouched(100, y));
  }
  for (int x = 40; x <= 99; ++x) CHECK(image.untouched(x, 110));
  std::set<std::pair<int, int>> keypoint_pixels;
  for (const Keypoint& k : f.keypoints)
    for (int dy = -2; dy <= 2; ++dy)
      for (int dx = -2; dx <= 2; ++dx) keypoint_pixels.insert({int(std::lround(k.x)) + dx, int(std::lround(k.y)) + dy});
  int interior_changed = 0;
  for (int y = 52; y <= 107; ++y)
    for (int x = 42; x <= 97; ++x) {
      if (keypoint_pixels.count({x, y})) {
        CHECK(image.at(x, y) == colour);
      } else {
        interior_changed += !image.untouched(x, y);
      }
    }
  CHECK(interior_changed == 0);

  // "#3" above the box: a label in the track colour whose ink pixels are the glyphs' bits, 2x2 each.
  const int label_height = kGlyphHeight * kLabelScale + 4;
  int ink = 0, background = 0;
  for (int y = 50 - label_height; y < 50; ++y)
    for (int x = 40; x < 40 + 40; ++x) {
      if (image.untouched(x, y)) continue;
      if (image.at(x, y) == colour)
        ++background;
      else
        ++ink;
    }
  CHECK(ink == kLabelScale * kLabelScale * (glyph_bits('#') + glyph_bits('3')));
  CHECK(background > 0);
  for (int x = 0; x < image.width; ++x) CHECK(image.untouched(x, 50 - label_height - 1));  // nothing higher
  CHECK(image.guard_bytes_changed() == 0);
}

TEST_CASE("preview: labels grow with the id's digits and differ between ids", "[track_faces][preview]") {
  GuardedImage one(200, 100), many(200, 100);
  draw_faces(one.view, {face_at(1, 20, 40, 80, 90)});
  draw_faces(many.view, {face_at(1234, 20, 40, 80, 90)});
  int one_label = 0, many_label = 0;
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 200; ++x) {
      one_label += !one.untouched(x, y);
      many_label += !many.untouched(x, y);
    }
  CHECK(one_label > 0);
  CHECK(many_label > 2 * one_label);  // "#1234" is 5 glyphs wide, "#1" 2
  // Same id, same colour; the palette's first colours all differ.
  CHECK(track_colour(5) == track_colour(5));
  std::set<Rgb> colours;
  for (int id = 1; id <= 12; ++id) colours.insert(track_colour(id));
  CHECK(colours.size() == 12);
  CHECK(track_colour(0) == track_colour(12));  // ids outside 1.. wrap, never index out of the palette
  CHECK(track_colour(-5) == track_colour(7));
}

TEST_CASE("preview: landmarks are single pixels", "[track_faces][preview]") {
  GuardedImage image(120, 120);
  TrackedFace f = face_at(2, 10, 30, 110, 110);
  f.keypoints.fill({-100, -100});  // off the image: keypoints out of the way
  f.landmarks.assign(3 * kFaceLandmarks, 0);
  for (int i = 0; i < kFaceLandmarks; ++i) {
    f.landmarks[3 * i] = 60.2f;  // all on one pixel but the first, far from the box edges
    f.landmarks[3 * i + 1] = 70.4f;
  }
  f.landmarks[0] = 30;
  f.landmarks[1] = 50;
  draw_faces(image.view, {f});
  CHECK_FALSE(image.untouched(60, 70));
  CHECK_FALSE(image.untouched(30, 50));
  CHECK(image.at(60, 70) != track_colour(2));  // a lighter tint: the box stays distinct
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      if (dx || dy) {
        CHECK(image.untouched(60 + dx, 70 + dy));
        CHECK(image.untouched(30 + dx, 50 + dy));
      }
}

TEST_CASE("preview: faces at and beyond the borders are clipped, nothing written outside",
          "[track_faces][preview]") {
  GuardedImage image(64, 48);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<TrackedFace> faces = {
      face_at(1, -20, -20, 20, 20),      // top-left corner, label has no room above
      face_at(2, 50, 30, 90, 70),        // bottom-right corner
      face_at(3, -1e9f, 10, 1e9f, 40),   // wider than the image by far
      face_at(4, 10, -500, 30, -450),    // wholly above, label too
      face_at(5, 70, 10, 120, 40),       // wholly right
      face_at(6, nan, 0, 10, 10),        // skipped
      face_at(7, 0, 0, inf, 10),         // skipped
      face_at(123456789, 30, 2, 60, 46), // long label running off the right edge
  };
  faces[0].keypoints[0] = {-1, -1};  // partly visible squares
  faces[1].keypoints[0] = {63.4f, 47.4f};
  faces[2].landmarks.assign(3 * kFaceLandmarks, -3);  // all outside
  faces[2].landmarks[3] = 1e30f;
  faces[2].landmarks[4] = nan;
  draw_faces(image.view, faces);
  CHECK(image.guard_bytes_changed() == 0);

  // The visible parts are drawn: face 1's right and bottom edges, face 2's left and top edges.
  CHECK(image.at(19, 5) == track_colour(1));
  CHECK(image.at(5, 19) == track_colour(1));
  CHECK(image.at(50, 40) == track_colour(2));
  CHECK(image.at(55, 30) == track_colour(2));
  CHECK(image.at(0, 0) != Rgb{kBackground, kBackground, kBackground});  // keypoint / label clipped at the corner
  CHECK(image.at(63, 47) == track_colour(2));                           // keypoint clipped at the far corner
  // Face 3's top and bottom edges span the whole width.
  for (int x = 0; x < 64; ++x) {
    CHECK(image.at(x, 39) != Rgb{kBackground, kBackground, kBackground});
  }
}

TEST_CASE("preview: other image formats are refused, empty images drawn into nothing", "[track_faces][preview]") {
  std::vector<float> pixels(4 * 4 * 3);
  const gp::ImageView f32 = gp::packed_view(pixels.data(), 4, 4, 3, gp::PixelType::f32);
  CHECK_THROWS_AS(draw_faces(f32, {face_at(1, 0, 0, 2, 2)}), std::invalid_argument);
  std::vector<std::uint8_t> rgba(4 * 4 * 4);
  const gp::ImageView four = gp::packed_view(rgba.data(), 4, 4, 4, gp::PixelType::u8);
  CHECK_THROWS_AS(draw_faces(four, {face_at(1, 0, 0, 2, 2)}), std::invalid_argument);
  gp::ImageView empty = gp::packed_view(nullptr, 0, 0, 3, gp::PixelType::u8);
  CHECK_NOTHROW(draw_faces(empty, {face_at(1, 0, 0, 2, 2)}));
}
