#pragma once
// A synthetic "face" for the ROI tests: a smooth, asymmetric colour pattern (left/right in red,
// up/down in green, a blue blob up and to the right) drawn at a centre with a roll, into packed RGB
// and YUV 4:2:0 frames; its eyes at fixed pattern coordinates give a detection to build ROIs from.
#include <cmath>
#include <cstdint>

#include "cuda/frames/frame_math.hpp"
#include "support/test_frames.hpp"
#include "detection/detection_decode.hpp"

namespace gp::test {

struct FaceScene {
  float cx, cy;      // pattern centre, frame pixels
  float roll_ccw;    // radians, counter-clockwise as seen on screen
  float face = 100;  // box side, pixels

  // The pattern's axes in the frame (y down): x along the eye line, y towards the chin.
  void axes(float& ex_x, float& ex_y, float& ey_x, float& ey_y) const {
    ex_x = std::cos(roll_ccw);
    ex_y = -std::sin(roll_ccw);
    ey_x = std::sin(roll_ccw);
    ey_y = std::cos(roll_ccw);
  }
  // Pattern colour at pattern coordinates (lx, ly), pixels from the centre.
  static frames::math::Rgb pattern(double lx, double ly) {
    const double blob = std::exp(-((lx - 30) * (lx - 30) + (ly + 25) * (ly + 25)) / 300.0);
    return frames::math::Rgb{float(128 + 100 * std::tanh(lx / 20)), float(128 + 100 * std::tanh(ly / 20)),
                              float(40 + 180 * blob)};
  }
  frames::math::Rgb colour_at(double x, double y) const {  // frame point
    float ex_x, ex_y, ey_x, ey_y;
    axes(ex_x, ex_y, ey_x, ey_y);
    const double dx = x - cx, dy = y - cy;
    return pattern(dx * ex_x + dy * ex_y, dx * ey_x + dy * ey_y);
  }
  void draw(HostPackedFrame& f) const {
    for (int y = 0; y < f.height; ++y)
      for (int x = 0; x < f.width; ++x) {
        const frames::math::Rgb c = colour_at(x + 0.5, y + 0.5);
        f.set(x, y, byte_of(c.r), byte_of(c.g), byte_of(c.b));
      }
  }
  // Limited-range BT.601, chroma the mean of each 2x2 block.
  void draw(HostYuvFrame& f) const {
    for (int y = 0; y < f.height; ++y)
      for (int x = 0; x < f.width; ++x)
        f.y(x, y) = byte_of(frames::math::rgb_to_yuv(colour_at(x + 0.5, y + 0.5), f.matrix, f.full_range).r);
    for (int y = 0; y < frames::chroma_size(f.height); ++y)
      for (int x = 0; x < frames::chroma_size(f.width); ++x) {
        double u = 0, v = 0;
        for (int j = 0; j < 2; ++j)
          for (int i = 0; i < 2; ++i) {
            const frames::math::Rgb yuv =
                frames::math::rgb_to_yuv(colour_at(2 * x + i + 0.5, 2 * y + j + 0.5), f.matrix, f.full_range);
            u += yuv.g / 4;
            v += yuv.b / 4;
          }
        f.u(x, y) = byte_of(u);
        f.v(x, y) = byte_of(v);
      }
  }
  // Detection normalized to a w x h frame: box of side `face` around the centre, eyes at pattern
  // (-25, -20) (keypoint 0, the subject's right eye, on the image's left) and (25, -20).
  detect::Detection detection(int w, int h) const {
    float ex_x, ex_y, ey_x, ey_y;
    axes(ex_x, ex_y, ey_x, ey_y);
    detect::Detection d;
    d.xmin = (cx - face / 2) / w;
    d.ymin = (cy - face / 2) / h;
    d.width = face / w;
    d.height = face / h;
    d.score = 0.9f;
    const float eye_x[2] = {-25, 25};
    for (int k = 0; k < 2; ++k) {
      d.keypoints[k].x = (cx + eye_x[k] * ex_x - 20 * ey_x) / w;
      d.keypoints[k].y = (cy + eye_x[k] * ex_y - 20 * ey_y) / h;
    }
    return d;
  }
};

}  // namespace gp::test
