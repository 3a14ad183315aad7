#pragma once
// Directions on the sphere, the projections of stitch-360 and the small float math they need,
// shared by the kernels (nvcc) and the CPU references (g++). nvcc-safe, no host libraries.
//
// Conventions: those of ffmpeg's v360 filter (libavfilter/vf_v360.c of FFmpeg 5.1, Debian 12's
// ffmpeg; function names below are v360's), so our views equal
//   ffmpeg -vf v360=e:flat:yaw=Y:pitch=P:roll=R:h_fov=H:v_fov=V:w=W:h=H:interp=linear
// up to interpolation rounding.
//
// * Panorama frame: +x right (longitude +90 deg), +y DOWN (towards the nadir), +z forward (the
//   centre of the equirect, longitude 0). Right-handed, like an OpenCV camera.
// * Equirect pixel (i, j) of W x H (equirect_to_xyz, rescale(x, s) = (2x + 1) / s - 1):
//     longitude phi = ((2i + 1) / W - 1) pi   (-180 deg at the left edge, +180 at the right)
//     latitude theta = ((2j + 1) / H - 1) pi/2 (-90 deg = zenith at the top row)
//     d = (cos theta sin phi, sin theta, cos theta cos phi)
// * Sampling an equirect at a direction (xyz_to_equirect, scale(x, s) = (x / 2 + 1/2)(s - 1)):
//     u = (phi / 2pi + 1/2)(W - 1),  v = (theta / pi + 1/2)(H - 1)   (pixel centres at integers)
//   i.e. v360 spreads 360 deg over W - 1 pixels, not W: longitudes are squeezed by (W-1)/W about
//   the centre, up to 1/2 pixel at +-180 deg. EquirectScale::exact uses the inverse of the pixel
//   centres above instead: u = (phi / 2pi + 1/2) W - 1/2.
//   Taps outside the image (ereflectx, reflecty): x wraps modulo W; a row above the top / below
//   the bottom is mirrored across the pole and moved half a turn (x + W/2). v360 mirrors row -k
//   to row k (its row 0 lies on the pole); exact mirrors -k to k - 1.
// * Views ("flat" output, flat_to_xyz): ray of pixel (i, j) = R (tan(h_fov/2)((2i+1)/W - 1),
//   tan(v_fov/2)((2j+1)/H - 1), 1), i.e. a pinhole with fx = W / (2 tan(h_fov/2)) and principal
//   point cx = (W - 1)/2 with pixel centres at integers (COLMAP, pixel centre at +0.5: W/2).
//   R = Ry(yaw) Rx(pitch) Rz(roll) (calculate_rotation with rorder "ypr": q = q_yaw q_pitch q_roll,
//   q_yaw about +y, q_pitch about +x, q_roll about +z, right-handed), applied to the view's ray:
//     +yaw turns the view to the right (towards +x, larger u): yaw 90 looks at u = 3/4 (W - 1);
//     +pitch turns it up (towards the zenith): pitch 90 looks at the top row;
//     +roll turns the camera clockwise about its axis as seen from behind it: the view's right
//      edge looks below the horizon and the scene appears turned counter-clockwise.
// * Cube faces (cube_to_xyz / xyz_to_cube, default out_forder "rludfb", frot "000000"): face
//   index 0 right (+x), 1 left (-x), 2 up (-y), 3 down (+y), 4 front (+z), 5 back (-z). Face
//   pixel (i, j) of N x N: a = (2i + 1)/N - 1, b = (2j + 1)/N - 1, direction
//     right (1, b, -a)  left (-1, b, a)  up (a, -1, b)  down (a, 1, -b)  front (a, b, 1)  back (-a, b, -1)
//   Layouts: c3x2 rows "r l u" / "d f b"; c6x1 "r l u d f b" left to right; c1x6 top to bottom.
// * Dual fisheye (xyz_to_dfisheye): front lens (z >= 0) in the right half, back lens in the left
//   half mirrored in x (a lens turned by yaw 180); equidistant, the FOV edge on the half's border.
//
// Transcendentals are our own polynomials built from +, -, *, / and sqrt only (IEEE-exact on both
// sides with nvcc --fmad=false and g++ -ffp-contract=off), so GPU and CPU get the same floats.
#include <cmath>
#include <cstdint>

#include "core/views.hpp"

namespace gp::stitch {

constexpr float k_pi = 3.14159265358979323846f;
constexpr float k_half_pi = 1.57079632679489661923f;
constexpr float k_quarter_pi = 0.78539816339744830962f;

// ---------------------------------------------------------------------------------------------
// Float math. Errors against double precision (checked in projection_test): atan2/asin/acos
// <= 3e-7 rad, sin/cos <= 2e-7 on the ranges used here.

// atan(x), Cephes atanf: reduced to |t| <= tan(pi/8), degree-9 odd polynomial.
GP_VIEW_HD inline float atan_f(float x) {
  const bool negative = x < 0.0f;
  if (negative) x = -x;
  float base = 0.0f, t = x;
  if (x > 2.414213562373095f) {
    base = k_half_pi;
    t = -1.0f / x;
  } else if (x > 0.4142135623730950f) {
    base = k_quarter_pi;
    t = (x - 1.0f) / (x + 1.0f);
  }
  const float z = t * t;
  const float y = base +
                  ((((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z - 3.33329491539e-1f) * z * t + t);
  return negative ? -y : y;
}

// atan2(y, x) in [-pi, pi]; (0, 0) gives 0, y = +-0 with x < 0 gives +pi.
GP_VIEW_HD inline float atan2_f(float y, float x) {
  if (x == 0.0f) return y > 0.0f ? k_half_pi : (y < 0.0f ? -k_half_pi : 0.0f);
  float a = atan_f(y / x);
  if (x < 0.0f) a += y >= 0.0f ? k_pi : -k_pi;
  return a;
}

GP_VIEW_HD inline float clamp_unit(float x) { return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x); }
GP_VIEW_HD inline float asin_f(float x) {
  x = clamp_unit(x);
  return atan2_f(x, sqrtf((1.0f - x) * (1.0f + x)));
}
GP_VIEW_HD inline float acos_f(float x) {
  x = clamp_unit(x);
  return atan2_f(sqrtf((1.0f - x) * (1.0f + x)), x);
}

// sin and cos of r, |r| <= pi/4 (Cephes sinf/cosf polynomials), rotated by quadrant q (mod 4).
GP_VIEW_HD inline void sincos_reduced(float r, int quadrant, float& s, float& c) {
  const float z = r * r;
  const float sr = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
  const float cr = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
  switch (quadrant & 3) {
    case 0: s = sr; c = cr; break;
    case 1: s = cr; c = -sr; break;
    case 2: s = -sr; c = -cr; break;
    default: s = -cr; c = sr; break;
  }
}

// sin and cos of x (radians), |x| up to a few hundred: Cody-Waite reduction by pi/2 in three parts
// (the first two have few enough bits that q * part is exact).
GP_VIEW_HD inline void sincos_f(float x, float& s, float& c) {
  const float q = floorf(x * 0.636619772367581343f + 0.5f);
  const float r = ((x - q * 1.5703125f) - q * 4.837512969970703125e-4f) - q * 7.54978995489188216e-8f;
  sincos_reduced(r, int(q), s, c);
}

// sin(pi x): reduced exactly in half-turns, so sin_pi(k) is exactly 0 for integers k.
GP_VIEW_HD inline float sin_pi_f(float x) {
  const float q = floorf(2.0f * x + 0.5f);
  const float r = x - 0.5f * q;
  float s, c;
  sincos_reduced(r * k_pi, int(q), s, c);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Vectors and rotations.

struct Vec3 {
  float x, y, z;
};

// Row-major 3x3 matrix.
struct Mat3 {
  float m[9];
  GP_VIEW_HD static Mat3 identity() { return Mat3{{1, 0, 0, 0, 1, 0, 0, 0, 1}}; }
};

// M v, summed in v360's order (rotate()).
GP_VIEW_HD inline Vec3 rotate(const Mat3& r, const Vec3& v) {
  return Vec3{v.x * r.m[0] + v.y * r.m[1] + v.z * r.m[2], v.x * r.m[3] + v.y * r.m[4] + v.z * r.m[5],
              v.x * r.m[6] + v.y * r.m[7] + v.z * r.m[8]};
}
// M^T v (the inverse for a rotation).
GP_VIEW_HD inline Vec3 rotate_inverse(const Mat3& r, const Vec3& v) {
  return Vec3{v.x * r.m[0] + v.y * r.m[3] + v.z * r.m[6], v.x * r.m[1] + v.y * r.m[4] + v.z * r.m[7],
              v.x * r.m[2] + v.y * r.m[5] + v.z * r.m[8]};
}
GP_VIEW_HD inline Vec3 normalize(const Vec3& v) {
  const float n = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z);
  return Vec3{v.x / n, v.y / n, v.z / n};
}

// R = Ry(yaw) Rx(pitch) Rz(roll), degrees; see the conventions above. Host code (double math,
// rounded once to float, so every user of a rotation gets the same matrix).
Mat3 rotation_from_ypr(double yaw_deg, double pitch_deg, double roll_deg);

// ---------------------------------------------------------------------------------------------
// Equirect.

enum class EquirectScale : std::uint8_t {
  ffmpeg,  // v360's scale(): 360 deg over W - 1 pixels (default: matches ffmpeg's output)
  exact,   // inverse of the pixel centres: 360 deg over W pixels
};

// Direction of the continuous equirect position (x, y), pixel centres at integers.
GP_VIEW_HD inline Vec3 equirect_direction(float x, float y, int width, int height) {
  const float phi = ((2.0f * x + 1.0f) / float(width) - 1.0f) * k_pi;
  const float theta = ((2.0f * y + 1.0f) / float(height) - 1.0f) * k_half_pi;
  float sin_phi, cos_phi, sin_theta, cos_theta;
  sincos_f(phi, sin_phi, cos_phi);
  sincos_f(theta, sin_theta, cos_theta);
  return Vec3{cos_theta * sin_phi, sin_theta, cos_theta * cos_phi};
}

// Source coordinates (pixel centres at integers) of a unit direction in a W x H equirect, which
// covers the whole sphere or, for a 180-degree source (VR180, v360's hequirect), the longitudes
// -90..90 degrees over its width.
struct EquirectMapping {
  float span_u, span_v;      // pixels spanned by 360 and 180 degrees
  float offset_u, offset_v;  // subtracted after scaling
  float period_u;            // u distance of one full turn (wrap-around of finite differences); 0: none
  float visible_u0, visible_u1;  // u range the source covers (all of it for a whole-sphere source)
};

GP_VIEW_HD inline EquirectMapping equirect_mapping(int width, int height, EquirectScale scale, bool hemisphere = false) {
  const float w = float(width), h = float(height), big = 3.0e38f;
  if (hemisphere) {  // 180 degrees over the width (v360's hequirect: its scale() over 180 degrees)
    if (scale == EquirectScale::ffmpeg) return EquirectMapping{2.0f * (w - 1.0f), h - 1.0f, 0.5f * (w - 1.0f), 0.0f, 0.0f, 0.0f, w - 1.0f};
    return EquirectMapping{2.0f * w, h, 0.5f * w + 0.5f, 0.5f, 0.0f, -0.5f, w - 0.5f};
  }
  if (scale == EquirectScale::ffmpeg) return EquirectMapping{w - 1.0f, h - 1.0f, 0.0f, 0.0f, w - 1.0f, -big, big};
  return EquirectMapping{w, h, 0.5f, 0.5f, w, -big, big};
}

// Whether source position u lies on the part of the sphere the source covers.
GP_VIEW_HD inline bool equirect_visible(const EquirectMapping& m, float u) { return u >= m.visible_u0 && u <= m.visible_u1; }

GP_VIEW_HD inline void equirect_coords(const EquirectMapping& m, const Vec3& d, float& u, float& v) {
  const float phi = atan2_f(d.x, d.z);
  const float theta = asin_f(d.y);
  u = (0.5f * (phi / k_pi) + 0.5f) * m.span_u - m.offset_u;
  v = (0.5f * (theta / k_half_pi) + 0.5f) * m.span_v - m.offset_v;
}

// ---------------------------------------------------------------------------------------------
// Cube faces, v360's default order.

enum class CubeFace : std::uint8_t { right = 0, left = 1, up = 2, down = 3, front = 4, back = 5 };
constexpr int cube_face_count = 6;

// Point on the cube of face coordinates (a, b) in [-1, 1] (a right, b down on the face).
GP_VIEW_HD inline Vec3 cube_face_point(int face, float a, float b) {
  switch (face) {
    case 0: return Vec3{1.0f, b, -a};
    case 1: return Vec3{-1.0f, b, a};
    case 2: return Vec3{a, -1.0f, b};
    case 3: return Vec3{a, 1.0f, -b};
    case 4: return Vec3{a, b, 1.0f};
    default: return Vec3{-a, b, -1.0f};
  }
}

// Face coordinates of direction d projected on the plane of `face`; false when d points away from
// that face (no projection).
GP_VIEW_HD inline bool cube_face_coords(int face, const Vec3& d, float& a, float& b) {
  switch (face) {
    case 0: a = -d.z / d.x; b = d.y / d.x; return d.x > 0.0f;
    case 1: a = -d.z / d.x; b = -d.y / d.x; return d.x < 0.0f;
    case 2: a = -d.x / d.y; b = -d.z / d.y; return d.y < 0.0f;
    case 3: a = d.x / d.y; b = -d.z / d.y; return d.y > 0.0f;
    case 4: a = d.x / d.z; b = d.y / d.z; return d.z > 0.0f;
    default: a = d.x / d.z; b = -d.y / d.z; return d.z < 0.0f;
  }
}

// The face a direction falls on: its largest component (v360 selects by longitude and a latitude
// threshold, which is the same partition).
GP_VIEW_HD inline int cube_face_of(const Vec3& d) {
  const float ax = fabsf(d.x), ay = fabsf(d.y), az = fabsf(d.z);
  if (ay > ax && ay > az) return d.y > 0.0f ? 3 : 2;
  if (az >= ax) return d.z >= 0.0f ? 4 : 5;
  return d.x > 0.0f ? 0 : 1;
}

// Face pixel coordinates (centres at integers) <-> face coordinates, face size n.
GP_VIEW_HD inline float cube_face_coord(float pixel, int n) { return (2.0f * pixel + 1.0f) / float(n) - 1.0f; }
GP_VIEW_HD inline float cube_face_pixel(float coord, int n) { return 0.5f * float(n) * (coord + 1.0f) - 0.5f; }

// ---------------------------------------------------------------------------------------------
// Perspective views.

struct Camera {
  Mat3 rotation;   // view -> panorama frame: d = rotation * ray
  float fx, fy;    // focal lengths, pixels
  float cx, cy;    // principal point, pixel centres at integers (centred: (W - 1)/2)
  int width, height;
};

// A centred view with square pixels. h_fov in (0, 180) degrees; v_fov follows from the aspect:
// tan(v_fov/2) = tan(h_fov/2) H / W.
Camera make_camera(double yaw_deg, double pitch_deg, double roll_deg, double h_fov_deg, int width, int height);
// The same from a focal length in pixels.
Camera make_camera_focal(double yaw_deg, double pitch_deg, double roll_deg, double focal_px, int width, int height);
double camera_h_fov_deg(const Camera& camera);
double camera_v_fov_deg(const Camera& camera);

// Unit direction (panorama frame) of the continuous view position (x, y).
GP_VIEW_HD inline Vec3 camera_direction(const Camera& c, float x, float y) {
  const Vec3 ray{(x - c.cx) / c.fx, (y - c.cy) / c.fy, 1.0f};
  return normalize(rotate(c.rotation, ray));
}

// ---------------------------------------------------------------------------------------------
// Circular fisheye lenses.

struct FisheyeLens {
  Mat3 rotation;         // lens -> panorama frame (optical axis = rotation * (0, 0, 1))
  float cx, cy;          // image of the optical axis, pixels (centres at integers)
  float half_fov;        // radians
  float px_per_rad;      // equidistant model: r = px_per_rad * theta
  float k[4];            // polynomial model r = k1 t + k2 t^2 + k3 t^3 + k4 t^4 (pixels, t in
                         // radians) when any k is non-zero
  float clip[4];         // x0, y0, x1, y1: pixels this lens may read (its part of the frame)
};

struct DualFisheye {
  FisheyeLens lens[2];
  // Where both lenses see a direction, their weights ramp linearly across a band of this width
  // (degrees) centred on the middle of the overlap; 0 = the whole overlap.
  float blend_deg = 0.0f;
};

// Lens with its FOV edge at `radius_px` from (cx, cy); yaw/pitch/roll as for views; k1..k4 as in
// FisheyeLens (all 0: equidistant). The clip rectangle is the whole frame of frame_w x frame_h.
FisheyeLens make_fisheye_lens(double cx, double cy, double radius_px, double fov_deg, double yaw_deg,
                              double pitch_deg, double roll_deg, int frame_w, int frame_h,
                              const double k[4] = nullptr);
// v360's dfisheye layout for a W x H frame and lens FOV (ih_fov = iv_fov = fov_deg): lens 0
// front (yaw 0) in the right half, lens 1 back (yaw 180) in the left half, each clipped to its
// half, edge of the FOV on the half's border (radius (W/2 - 1)/2 as v360's scale()).
DualFisheye dual_fisheye_v360(int frame_w, int frame_h, double fov_deg);

// Angle of d from the lens axis and its image position (pixels).
GP_VIEW_HD inline void fisheye_coords(const FisheyeLens& lens, const Vec3& d, float& theta, float& u, float& v) {
  const Vec3 l = rotate_inverse(lens.rotation, d);
  const float h = sqrtf(l.x * l.x + l.y * l.y);
  theta = atan2_f(h, l.z);
  float r;
  if (lens.k[0] != 0.0f || lens.k[1] != 0.0f || lens.k[2] != 0.0f || lens.k[3] != 0.0f)
    r = (((lens.k[3] * theta + lens.k[2]) * theta + lens.k[1]) * theta + lens.k[0]) * theta;
  else
    r = lens.px_per_rad * theta;
  if (h > 0.0f) {
    u = lens.cx + r * (l.x / h);
    v = lens.cy + r * (l.y / h);
  } else {
    u = lens.cx;
    v = lens.cy;
  }
}

}  // namespace gp::stitch
