// Host-side constructors of the projection parameters (rotations, cameras, lenses): computed in
// double once and rounded to float, so the kernels and the CPU references get the same values.
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "cuda/common/checks.hpp"
#include "cuda/stitch/sphere.hpp"

namespace gp::stitch {
namespace {

constexpr double pi = 3.14159265358979323846;
double radians(double deg) { return deg * pi / 180.0; }

using kernel_checks::require;

void require_finite(double v, const char* function, const char* name) {
  require(std::isfinite(v), function, std::string(name) + " must be finite");
}

}  // namespace

Mat3 rotation_from_ypr(double yaw_deg, double pitch_deg, double roll_deg) {
  require_finite(yaw_deg, "rotation_from_ypr", "yaw");
  require_finite(pitch_deg, "rotation_from_ypr", "pitch");
  require_finite(roll_deg, "rotation_from_ypr", "roll");
  const double cy = std::cos(radians(yaw_deg)), sy = std::sin(radians(yaw_deg));
  const double cp = std::cos(radians(pitch_deg)), sp = std::sin(radians(pitch_deg));
  const double cr = std::cos(radians(roll_deg)), sr = std::sin(radians(roll_deg));
  const double ry[9] = {cy, 0, sy, 0, 1, 0, -sy, 0, cy};  // about +y
  const double rx[9] = {1, 0, 0, 0, cp, -sp, 0, sp, cp};  // about +x
  const double rz[9] = {cr, -sr, 0, sr, cr, 0, 0, 0, 1};  // about +z
  double yp[9], r[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      yp[3 * i + j] = ry[3 * i] * rx[j] + ry[3 * i + 1] * rx[3 + j] + ry[3 * i + 2] * rx[6 + j];
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[3 * i + j] = yp[3 * i] * rz[j] + yp[3 * i + 1] * rz[3 + j] + yp[3 * i + 2] * rz[6 + j];
  Mat3 m;
  for (int i = 0; i < 9; ++i) m.m[i] = float(r[i]);
  return m;
}

Camera make_camera_focal(double yaw_deg, double pitch_deg, double roll_deg, double focal_px, int width, int height) {
  require(width > 0 && height > 0, "make_camera", "view size must be positive");
  require(std::isfinite(focal_px) && focal_px > 0, "make_camera", "focal length must be positive");
  Camera c;
  c.rotation = rotation_from_ypr(yaw_deg, pitch_deg, roll_deg);
  c.fx = c.fy = float(focal_px);
  c.cx = float((width - 1) * 0.5);
  c.cy = float((height - 1) * 0.5);
  c.width = width;
  c.height = height;
  return c;
}

Camera make_camera(double yaw_deg, double pitch_deg, double roll_deg, double h_fov_deg, int width, int height) {
  require(std::isfinite(h_fov_deg) && h_fov_deg > 0 && h_fov_deg < 180, "make_camera",
          "horizontal FOV must be in (0, 180) degrees");
  require(width > 0, "make_camera", "view size must be positive");
  return make_camera_focal(yaw_deg, pitch_deg, roll_deg, width / (2.0 * std::tan(radians(h_fov_deg) / 2)), width,
                           height);
}

double camera_h_fov_deg(const Camera& c) { return 2.0 * std::atan(c.width / (2.0 * c.fx)) * 180.0 / pi; }
double camera_v_fov_deg(const Camera& c) { return 2.0 * std::atan(c.height / (2.0 * c.fy)) * 180.0 / pi; }

FisheyeLens make_fisheye_lens(double cx, double cy, double radius_px, double fov_deg, double yaw_deg,
                              double pitch_deg, double roll_deg, int frame_w, int frame_h, const double k[4]) {
  const char* function = "make_fisheye_lens";
  require(std::isfinite(cx) && std::isfinite(cy), function, "lens centre must be finite");
  require(std::isfinite(radius_px) && radius_px > 0, function, "lens radius must be positive");
  require(std::isfinite(fov_deg) && fov_deg > 0 && fov_deg <= 360, function, "lens FOV must be in (0, 360] degrees");
  require(frame_w > 0 && frame_h > 0, function, "frame size must be positive");
  FisheyeLens lens;
  lens.rotation = rotation_from_ypr(yaw_deg, pitch_deg, roll_deg);
  lens.cx = float(cx);
  lens.cy = float(cy);
  lens.half_fov = float(radians(fov_deg) / 2);
  lens.px_per_rad = float(radius_px / (radians(fov_deg) / 2));
  for (int i = 0; i < 4; ++i) {
    const double ki = k ? k[i] : 0.0;
    require(std::isfinite(ki), function, "polynomial coefficients must be finite");
    lens.k[i] = float(ki);
  }
  lens.clip[0] = 0.0f;
  lens.clip[1] = 0.0f;
  lens.clip[2] = float(frame_w - 1);
  lens.clip[3] = float(frame_h - 1);
  return lens;
}

DualFisheye dual_fisheye_v360(int frame_w, int frame_h, double fov_deg) {
  require(frame_w >= 2 && frame_h >= 1, "dual_fisheye_v360", "frame too small");
  // v360 (xyz_to_dfisheye): each half of ew = W/2 pixels, position scale(t, ew) = (t/2 + 1/2)(ew - 1),
  // the front lens shifted by ceil(ew), the back lens mirrored in x (= turned by yaw 180).
  const double ew = frame_w * 0.5;
  const double shift = std::ceil(ew);
  const double radius = (ew - 1.0) / 2.0, cy = (frame_h - 1) / 2.0;
  DualFisheye rig;
  rig.lens[0] = make_fisheye_lens(shift + radius, cy, radius, fov_deg, 0, 0, 0, frame_w, frame_h);
  rig.lens[0].clip[0] = float(shift);
  rig.lens[1] = make_fisheye_lens(radius, cy, radius, fov_deg, 180, 0, 0, frame_w, frame_h);
  rig.lens[1].clip[2] = float(std::floor(ew) - 1.0);
  rig.blend_deg = 0.0f;
  return rig;
}

}  // namespace gp::stitch
