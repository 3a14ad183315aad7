#pragma once
// Hand-annotated ground truth for person masks on real content: OpenCV's sample media from
// Debian's opencv-doc (/usr/share/doc/opencv-doc/examples/data): vtest.avi (768x576, 795 frames,
// pedestrians seen from a first floor) and messi5.jpg (548x342, a footballer kicking).
//
// How these were made: by eye, once, by the "segtruth" helper engineer (2026-11). Frames 0, 150, 300,
// 450, 600 and 780 of vtest.avi (0-based decode order, as VideoReader's VideoFrame::index() and
// scripts/annotate/extract_frames.sh count them) were extracted to PNG with ffmpeg, viewed as
// 4x nearest-neighbour crops with a 10-pixel grid, and a tight box drawn around every clearly
// visible person (head to feet, arms and carried paper included, ~2 px accuracy). The boxes were
// then drawn onto the frames (ffmpeg drawbox) and viewed again. Background regions are areas
// with no person in that frame (lawn, building, road, the tripod), also checked on the drawings.
//
// Boxes are half-open pixel rectangles [x0, x1) x [y0, y1) in frame coordinates.
#include <string>
#include <vector>

namespace gp::test {

struct PixelBox {
  int x0, y0, x1, y1;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
  long area() const { return long(width()) * height(); }
};

struct TruthFrame {
  int frame_index;  // decode index in vtest.avi; -1 for a still image
  // Every clearly visible person.
  std::vector<PixelBox> people;
  // People only partly visible (at the frame's edge, mostly hidden): mask there is neither
  // required nor counted as a false positive.
  std::vector<PixelBox> partial_people;
  // Regions with no person at all: the mask should be (almost) empty there.
  std::vector<PixelBox> background;
};

inline const char* vtest_path() { return "/usr/share/doc/opencv-doc/examples/data/vtest.avi"; }
inline const char* messi_path() { return "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"; }

// Background regions shared by every vtest frame (checked against each frame's people).
inline std::vector<PixelBox> vtest_common_background() {
  return {
      {0, 340, 270, 576},    // lawn, lower left (with the yellow rag at 70-160, 495-525)
      {300, 0, 600, 100},    // building front, windows
      {560, 440, 768, 576},  // lawn and kerb, lower right
      {0, 0, 180, 70},       // building and steps, upper left
  };
}

inline std::vector<TruthFrame> vtest_truth() {
  std::vector<TruthFrame> frames = {
      {0,
       {{253, 219, 283, 308}, {500, 156, 530, 233}, {639, 240, 686, 321}},
       {},
       {{455, 335, 530, 485}}},  // tripod
      {150,
       {{388, 195, 416, 280},   // partly behind the sign
        {433, 195, 465, 276},
        {441, 178, 475, 255},   // behind the previous one
        {590, 228, 627, 316},
        {637, 106, 659, 166},
        {657, 111, 680, 168},
        {711, 110, 728, 176},
        {69, 90, 89, 129}},     // far away on the upper path (39 px)
       {},
       {{455, 335, 530, 485}}},
      {300,
       {{187, 159, 219, 234},
        {244, 159, 270, 222},
        {297, 159, 323, 231},
        {312, 210, 344, 296},
        {582, 160, 613, 235},
        {620, 160, 644, 233}},
       {},
       {{455, 335, 530, 485}}},
      {450,
       {{310, 206, 337, 289}, {486, 183, 515, 258}, {558, 242, 593, 337}},
       {},
       {{455, 335, 530, 485}}},
      {600,
       {{190, 143, 215, 214},
        {569, 200, 597, 287},
        {670, 209, 701, 296},
        {455, 302, 505, 418},   // holding paper, by the tripod
        {642, 304, 671, 412},
        {284, 431, 331, 576}},  // on the lawn, cut by the bottom edge
       {},
       {}},  // the tripod is behind a person here
      {780,
       {{237, 168, 260, 242},
        {320, 173, 352, 242},   // behind the next one
        {311, 200, 347, 275},
        {350, 261, 391, 366},
        {665, 137, 689, 201},
        {613, 202, 644, 297},
        {568, 247, 605, 349}},
       {{754, 58, 768, 96}},    // by the car at the right edge, mostly hidden
       {{455, 370, 530, 485}}},  // tripod below the walking person
  };
  for (TruthFrame& f : frames) {
    const auto common = vtest_common_background();
    f.background.insert(f.background.end(), common.begin(), common.end());
  }
  return frames;
}

inline TruthFrame messi_truth() {
  return {-1,
          {{69, 60, 457, 336}},  // the player, fingertips to boot (limbs spread: ~30% of the box)
          {},
          // Outside the player's box only: the crowd behind him is blurred people, the
          // watermark lower right.
          {{0, 0, 68, 342},      // crowd and grass, left
           {0, 0, 548, 58},      // crowd, above his head
           {458, 0, 548, 342}}};  // crowd, grass and the watermark, right of his boot
}

// Parts of the player that are solid person (torso in the jersey, head): almost all mask.
inline std::vector<PixelBox> messi_solid_parts() { return {{205, 115, 295, 235}, {212, 66, 260, 125}}; }

}  // namespace gp::test
