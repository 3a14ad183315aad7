// stitch-360 samples: one procedural scene, defined for every direction on the sphere, rendered
// as an equirectangular panorama and as a dual-fisheye frame.
//
// Conventions (ffmpeg's v360 filter, libavfilter/vf_v360.c: equirect_to_xyz, xyz_to_equirect,
// xyz_to_dfisheye, calculate_rotation_matrix):
//  - A direction is a unit vector (x, y, z) in the panorama frame: x right, y DOWN, z forward.
//    yaw (longitude) = atan2(x, z), positive to the right; pitch (latitude) = asin(-y), positive
//    up. Yaw 0 / pitch 0 is (0, 0, 1); yaw 90 (right) is (1, 0, 0); the zenith is (0, -1, 0).
//  - Equirect pixel coordinates are continuous: pixel (i, j) covers [i, i+1) x [j, j+1), its
//    centre is (i + 0.5, j + 0.5). u = (yaw / 360 + 0.5) * W, v = (0.5 - pitch / 180) * H: yaw 0
//    is the centre column u = W/2, right (yaw 90) u = 3W/4, left u = W/4, back the left/right
//    edges, the zenith the top edge and the nadir the bottom edge.
//  - An oriented camera or lens (yaw, pitch, roll in degrees) maps its own axes (x right, y down
//    in its image, z its optical axis) to the panorama by R = Ry(yaw) Rx(pitch) Rz(roll), v360's
//    matrices with rorder "ypr": Ry = [[c,0,s],[0,1,0],[-s,0,c]], Rx = [[1,0,0],[0,c,-s],[0,s,c]],
//    Rz = [[c,-s,0],[s,c,0],[0,0,1]]. Positive pitch looks up.
//  - Dual fisheye as v360's dfisheye input: the frame is two halves; the RIGHT half holds the
//    front lens (yaw 0), the LEFT half the back lens (yaw 180), each an equidistant circle
//    centred in its half with radius = half-width / 2 (the circle spans the lens FOV: v360's
//    ih_fov = iv_fov = fov).
#include "stitch_samples.hpp"

#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/parallel_for.hpp"
#include "core/splitmix64.hpp"

namespace gp::samples {
namespace {

using Json = nlohmann::ordered_json;
constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;

// ---- geometry -----------------------------------------------------------------------------------

struct Vec3 {
  double x = 0, y = 0, z = 0;
};
Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 operator*(Vec3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// sin and cos of degrees, exact at multiples of 90 (so marker directions come out as 0 and 1).
void sincos_deg(double deg, double& s, double& c) {
  const double quadrants = std::round(deg / 90.0);
  const double rest = (deg - 90.0 * quadrants) * kDeg;  // [-45, 45] degrees
  const double rs = std::sin(rest), rc = std::cos(rest);
  switch (((long long)quadrants % 4 + 4) % 4) {
    case 0: s = rs, c = rc; break;
    case 1: s = rc, c = -rs; break;
    case 2: s = -rs, c = -rc; break;
    default: s = -rc, c = rs; break;
  }
}

struct Mat3 {
  double m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  Vec3 operator*(Vec3 v) const {
    return {m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z};
  }
  Mat3 operator*(const Mat3& b) const {
    Mat3 c;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) c.m[i][j] = m[i][0] * b.m[0][j] + m[i][1] * b.m[1][j] + m[i][2] * b.m[2][j];
    return c;
  }
  Mat3 transposed() const {
    Mat3 t;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) t.m[i][j] = m[j][i];
    return t;
  }
  Vec3 column(int j) const { return {m[0][j], m[1][j], m[2][j]}; }
};

// Camera (or lens) to panorama: v360's Ry(yaw) Rx(pitch) Rz(roll).
Mat3 rotation_ypr(double yaw_deg, double pitch_deg, double roll_deg) {
  double sy, cy, sp, cp, sr, cr;
  sincos_deg(yaw_deg, sy, cy);
  sincos_deg(pitch_deg, sp, cp);
  sincos_deg(roll_deg, sr, cr);
  Mat3 yaw, pitch, roll;
  yaw.m[0][0] = cy, yaw.m[0][2] = sy, yaw.m[2][0] = -sy, yaw.m[2][2] = cy;
  pitch.m[1][1] = cp, pitch.m[1][2] = -sp, pitch.m[2][1] = sp, pitch.m[2][2] = cp;
  roll.m[0][0] = cr, roll.m[0][1] = -sr, roll.m[1][0] = sr, roll.m[1][1] = cr;
  return yaw * pitch * roll;
}

Vec3 direction_of(double yaw_deg, double pitch_deg) { return rotation_ypr(yaw_deg, pitch_deg, 0).column(2); }

// Equirect (u, v) of a direction; u in [0, W).
std::array<double, 2> equirect_uv(Vec3 d, int width, int height) {
  const double yaw = std::atan2(d.x, d.z), pitch = std::asin(std::clamp(-d.y, -1.0, 1.0));
  double u = (yaw / (2 * kPi) + 0.5) * width;
  if (u >= width) u -= width;
  return {u, (0.5 - pitch / kPi) * height};
}

Vec3 equirect_direction(double u, double v, int width, int height) {
  const double yaw = (u / width - 0.5) * 2 * kPi, pitch = (0.5 - v / height) * kPi;
  return {std::cos(pitch) * std::sin(yaw), -std::sin(pitch), std::cos(pitch) * std::cos(yaw)};
}

// ---- deterministic noise: pure functions of position and seed ----------------------------------

double unit(std::uint64_t h) { return double(h >> 11) * 0x1p-53; }
double hash01(std::int64_t a, std::int64_t b, std::uint64_t seed) {
  return unit(splitmix64(seed * 0xD1B54A32D192ED03ull ^ splitmix64(std::uint64_t(a) * 0x9E3779B97F4A7C15ull + std::uint64_t(b))));
}
double lattice(std::int64_t x, std::int64_t y, std::int64_t z, std::uint64_t seed) {
  return unit(splitmix64(std::uint64_t(x) * 0x9E3779B97F4A7C15ull + std::uint64_t(y) * 0xC2B2AE3D27D4EB4Full +
                         std::uint64_t(z) * 0x165667B19E3779F9ull + seed * 0xD1B54A32D192ED03ull));
}
double smooth(double t) { return t * t * (3 - 2 * t); }
double smoothstep(double e0, double e1, double x) { return smooth(std::clamp((x - e0) / (e1 - e0), 0.0, 1.0)); }

// Trilinear value noise in [0, 1), smooth across lattice cells.
double value_noise(Vec3 p, std::uint64_t seed) {
  const double fx = std::floor(p.x), fy = std::floor(p.y), fz = std::floor(p.z);
  const auto ix = std::int64_t(fx), iy = std::int64_t(fy), iz = std::int64_t(fz);
  const double tx = smooth(p.x - fx), ty = smooth(p.y - fy), tz = smooth(p.z - fz);
  double layer[2];
  for (int k = 0; k < 2; ++k) {
    const double a = lattice(ix, iy, iz + k, seed), b = lattice(ix + 1, iy, iz + k, seed);
    const double c = lattice(ix, iy + 1, iz + k, seed), d = lattice(ix + 1, iy + 1, iz + k, seed);
    const double top = a + (b - a) * tx, bottom = c + (d - c) * tx;
    layer[k] = top + (bottom - top) * ty;
  }
  return layer[0] + (layer[1] - layer[0]) * tz;
}

// Fractal noise in [0, 1): octaves of doubling frequency and halving amplitude, each offset so
// their lattices do not line up.
double fbm(Vec3 p, std::uint64_t seed, int octaves) {
  double sum = 0, amplitude = 0.5, norm = 0;
  for (int o = 0; o < octaves; ++o, amplitude *= 0.5) {
    sum += amplitude * value_noise(p + Vec3{17.3 * o, 31.7 * o, 11.1 * o}, seed + std::uint64_t(o));
    norm += amplitude;
    p = p * 2.03;
  }
  return sum / norm;
}

// ---- the scene ----------------------------------------------------------------------------------

struct Rgb {
  double r = 0, g = 0, b = 0;
};
Rgb operator*(Rgb a, double s) { return {a.r * s, a.g * s, a.b * s}; }
Rgb operator+(Rgb a, Rgb b) { return {a.r + b.r, a.g + b.g, a.b + b.b}; }
Rgb mix(Rgb a, Rgb b, double t) { return a * (1 - t) + b * t; }
Rgb rgb8(int r, int g, int b) { return {r / 255.0, g / 255.0, b / 255.0}; }

struct Scene {
  std::uint64_t seed = 1;
  double sun_yaw = 50, sun_pitch = 35;  // degrees
  double cloud_cover = 0.5;             // 0 clear .. 1 overcast
  double hill_height = 6;               // degrees above the horizon at most
  double building_density = 0.45;       // fraction of 7.5-degree sectors with a building
  double plaza_radius = 5;              // metres of paving around the camera
  double camera_height = 1.6;           // metres above the ground
  bool overlays = false;                // grid, markers and labels (the committed samples)
};

const Rgb kHorizonSky{0.80, 0.86, 0.92};
const Rgb kZenithSky{0.16, 0.36, 0.74};

Rgb sky(const Scene& s, Vec3 d, double pitch) {
  Rgb c = mix(kHorizonSky, kZenithSky, std::pow(std::max(0.0, pitch) / (kPi / 2), 0.6));
  const Vec3 sun = direction_of(s.sun_yaw, s.sun_pitch);
  const double from_sun = std::acos(std::clamp(dot(d, sun), -1.0, 1.0));
  c = c + Rgb{1.0, 0.9, 0.7} * (0.5 * std::exp(-from_sun / 0.12));
  const double clouds = fbm(d * 3.0, s.seed + 10, 5);
  const double cover = smoothstep(0.62 - 0.18 * s.cloud_cover, 0.78 - 0.1 * s.cloud_cover, clouds) *
                       smoothstep(1 * kDeg, 6 * kDeg, pitch);
  const Rgb cloud = Rgb{0.93, 0.93, 0.95} * (0.72 + 0.38 * fbm(d * 11.0, s.seed + 11, 3)) +
                    Rgb{0.3, 0.25, 0.15} * std::exp(-from_sun / 0.3);
  c = mix(c, cloud, cover);
  if (from_sun < 0.7 * kDeg) c = mix(c, Rgb{1.0, 0.98, 0.9} * 1.2, 1 - cover * 0.7);
  return c;
}

// Distant hills: a ridge line that goes once around the horizon (noise on a circle, so seamless).
double hill_top(const Scene& s, double yaw) {
  return (0.6 + s.hill_height * fbm({3 * std::cos(yaw), 3 * std::sin(yaw), 5.5}, s.seed + 20, 4)) * kDeg;
}

Rgb hills(const Scene& s, Vec3 d) {
  const Rgb near{0.30, 0.40, 0.28}, haze{0.60, 0.67, 0.74};
  return mix(near, haze, 0.55) * (0.8 + 0.4 * fbm(d * 40.0, s.seed + 21, 4));
}

// Buildings stand in 48 sectors of 7.5 degrees around the horizon, their bases 2 degrees below it.
struct Building {
  bool hit = false;
  std::int64_t sector = 0;
  double across = 0;  // 0..1 across the facade
  double top = 0;     // pitch of the roof, radians
};
Building building_at(const Scene& s, double yaw, double pitch) {
  const double position = (yaw / (2 * kPi) + 0.5) * 48;
  Building b;
  b.sector = std::int64_t(std::floor(position)) % 48;
  const double local = position - std::floor(position);
  if (hash01(b.sector, 1, s.seed + 30) >= s.building_density) return b;
  const double left = 0.05 + 0.2 * hash01(b.sector, 2, s.seed + 30), right = 0.95 - 0.2 * hash01(b.sector, 3, s.seed + 30);
  b.top = (3 + 12 * std::pow(hash01(b.sector, 4, s.seed + 30), 1.5)) * kDeg;
  b.hit = local > left && local < right && pitch < b.top && pitch > -2 * kDeg;
  b.across = (local - left) / (right - left);
  return b;
}

Rgb facade(const Scene& s, const Building& b, Vec3 d, double yaw, double pitch) {
  static const Rgb palette[4] = {{0.62, 0.60, 0.56}, {0.55, 0.35, 0.28}, {0.78, 0.74, 0.64}, {0.42, 0.44, 0.47}};
  const Rgb wall = palette[int(hash01(b.sector, 5, s.seed + 30) * 4)] * (0.85 + 0.15 * std::cos(yaw - s.sun_yaw * kDeg));
  Rgb c = wall * (0.85 + 0.3 * fbm(d * 90.0, s.seed + 31, 3));
  const int columns = 4 + int(6 * hash01(b.sector, 6, s.seed + 30));
  const double wx = b.across * columns, wy = (b.top - pitch) / (1.1 * kDeg);
  const double fx = wx - std::floor(wx), fy = wy - std::floor(wy);
  if (fx > 0.25 && fx < 0.75 && fy > 0.3 && fy < 0.78 && pitch > -0.5 * kDeg) {
    const double lit = hash01(b.sector * 1000 + std::int64_t(wx), std::int64_t(wy), s.seed + 32);
    c = lit > 0.9 ? Rgb{0.95, 0.82, 0.55} : mix(Rgb{0.16, 0.2, 0.26}, kHorizonSky, 0.25 + 0.3 * lit);
  }
  return c;
}

// The ground plane seen from camera_height: paving tiles round the camera, grass and gravel
// beyond, fading into haze with distance.
Rgb ground(const Scene& s, Vec3 d) {
  const double t = s.camera_height / std::max(d.y, 1e-6);
  const double gx = d.x * t, gz = d.z * t, distance = std::hypot(gx, gz);
  const double patches = fbm({gx * 0.12, gz * 0.12, 3.1}, s.seed + 40, 4);
  const double detail = fbm({gx * 1.7, gz * 1.7, 7.7}, s.seed + 41, 5);
  const double fade = 1 / (1 + distance / 15);
  const Rgb grass = mix(Rgb{0.20, 0.31, 0.11}, Rgb{0.42, 0.44, 0.20}, patches) * (1 + fade * 0.9 * (detail - 0.5));
  const Rgb gravel = Rgb{0.50, 0.47, 0.42} * (1 + fade * 1.1 * (detail - 0.5));
  Rgb c = mix(grass, gravel, smoothstep(0.48, 0.6, patches));
  if (distance < s.plaza_radius + 0.5) {
    const double tile = 0.5;
    const double tx = gx / tile, tz = gz / tile;
    const double fx = tx - std::floor(tx), fz = tz - std::floor(tz);
    const double grout = std::min({fx, 1 - fx, fz, 1 - fz}) * tile;
    const double shade = 0.85 + 0.3 * hash01(std::int64_t(std::floor(tx)), std::int64_t(std::floor(tz)), s.seed + 42);
    Rgb paving = Rgb{0.66, 0.62, 0.56} * (shade * (0.85 + 0.3 * fbm({gx * 9, gz * 9, 1.3}, s.seed + 43, 3)));
    paving = mix(Rgb{0.28, 0.27, 0.26}, paving, smoothstep(0.006, 0.014, grout));
    c = mix(paving, c, smoothstep(s.plaza_radius - 0.3, s.plaza_radius + 0.3, distance));
  }
  return mix(c, kHorizonSky * 0.95, 1 - std::exp(-distance / 150));
}

Rgb landscape(const Scene& s, Vec3 d) {
  const double yaw = std::atan2(d.x, d.z), pitch = std::asin(std::clamp(-d.y, -1.0, 1.0));
  const Building b = building_at(s, yaw, pitch);
  if (b.hit) return facade(s, b, d, yaw, pitch);
  if (pitch <= 0) return ground(s, d);
  if (pitch < hill_top(s, yaw)) return hills(s, d);
  return sky(s, d, pitch);
}

// ---- overlays: grid, direction markers and their labels -----------------------------------------

struct Marker {
  const char* name;
  char label;
  double yaw, pitch;  // degrees
  std::array<int, 3> rgb;
};
const Marker kMarkers[] = {
    {"front", 'F', 0, 0, {230, 30, 30}},  {"right", 'R', 90, 0, {30, 200, 40}},  {"back", 'B', 180, 0, {30, 60, 230}},
    {"left", 'L', -90, 0, {240, 220, 20}}, {"zenith", 'U', 0, 90, {220, 40, 220}}, {"nadir", 'D', 0, -90, {20, 210, 220}},
};
constexpr double kDiscRadiusDeg = 6.0, kRingOuterDeg = 6.8;
constexpr double kGridStepDeg = 15, kGridHalfWidthDeg = 0.2, kMeridianLimitDeg = 75;
// The label: a white box below the disc in the marker's tangent plane (gnomonic, so it looks
// upright and undistorted in a perspective view aimed at the marker), a 5x7 letter in it.
constexpr double kLabelCell = 0.013;  // tangent units per glyph cell (~0.75 degrees)
const double kLabelCentre = std::tan(12 * kDeg);

// 5x7 glyphs, one row per byte, bit 4 = leftmost column.
const std::uint8_t* glyph(char c) {
  static const std::uint8_t f[7] = {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10};
  static const std::uint8_t r[7] = {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11};
  static const std::uint8_t b[7] = {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E};
  static const std::uint8_t l[7] = {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F};
  static const std::uint8_t u[7] = {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E};
  static const std::uint8_t d[7] = {0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E};
  switch (c) {
    case 'F': return f;
    case 'R': return r;
    case 'B': return b;
    case 'L': return l;
    case 'U': return u;
    default: return d;
  }
}

struct MarkerFrame {
  Vec3 right, down, forward;
};
std::vector<MarkerFrame> marker_frames() {
  std::vector<MarkerFrame> frames;
  for (const Marker& m : kMarkers) {
    const Mat3 r = rotation_ypr(m.yaw, m.pitch, 0);
    frames.push_back({r.column(0), r.column(1), r.column(2)});
  }
  return frames;
}

// Distance in radians from d to the nearest grid line drawn there.
double grid_distance(Vec3 d) {
  const double yaw = std::atan2(d.x, d.z), pitch = std::asin(std::clamp(-d.y, -1.0, 1.0));
  const double step = kGridStepDeg * kDeg;
  double best = std::abs(pitch - step * std::round(pitch / step));
  // Meridians stop at 75 degrees, except every 90 degrees, so the poles do not turn into a solid cap.
  const double meridian_step = std::abs(pitch) <= kMeridianLimitDeg * kDeg ? step : kPi / 2;
  const double along = std::abs(yaw - meridian_step * std::round(yaw / meridian_step));
  best = std::min(best, std::asin(std::min(1.0, std::cos(pitch) * std::sin(along))));
  return best;
}

Rgb with_overlays(Rgb c, Vec3 d, const std::vector<MarkerFrame>& frames) {
  if (grid_distance(d) < kGridHalfWidthDeg * kDeg) c = mix(c, Rgb{1.0, 0.95, 0.55}, 0.8);
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const MarkerFrame& f = frames[i];
    const double cosine = dot(d, f.forward);
    if (cosine <= 0.8) continue;  // more than ~37 degrees away: neither disc nor label
    const double angle = std::acos(std::min(1.0, cosine));
    if (angle < kDiscRadiusDeg * kDeg) return rgb8(kMarkers[i].rgb[0], kMarkers[i].rgb[1], kMarkers[i].rgb[2]);
    if (angle < kRingOuterDeg * kDeg) return {0, 0, 0};
    const double a = dot(d, f.right) / cosine, b = dot(d, f.down) / cosine - kLabelCentre;
    const double col = a / kLabelCell + 3.5, row = b / kLabelCell + 4.5;  // box: 7 x 9 cells
    if (col < 0 || col >= 7 || row < 0 || row >= 9) continue;
    const int gx = int(col) - 1, gy = int(row) - 1;
    const bool ink = gx >= 0 && gx < 5 && gy >= 0 && gy < 7 && (glyph(kMarkers[i].label)[gy] >> (4 - gx) & 1);
    return ink ? Rgb{0.03, 0.03, 0.03} : Rgb{0.97, 0.97, 0.97};
  }
  return c;
}

// ---- images -------------------------------------------------------------------------------------

std::uint8_t to_byte(double v) { return std::uint8_t(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); }

// Renders width x height RGB8 where `ray(u, v, d)` gives the direction through the continuous
// image point (u, v) (false: nothing there, black). `samples` x `samples` points per pixel.
template <class Ray, class Shade>
std::vector<std::uint8_t> render(int width, int height, int samples, const Ray& ray, const Shade& shade) {
  std::vector<std::uint8_t> rgb(std::size_t(width) * height * 3);
  gp::parallel_for(height, [&](long y0, long y1) {
    for (long y = y0; y < y1; ++y)
      for (int x = 0; x < width; ++x) {
        Rgb sum;
        for (int sy = 0; sy < samples; ++sy)
          for (int sx = 0; sx < samples; ++sx) {
            Vec3 d;
            if (ray(x + (sx + 0.5) / samples, y + (sy + 0.5) / samples, d)) sum = sum + shade(d);
          }
        sum = sum * (1.0 / (samples * samples));
        std::uint8_t* p = &rgb[(std::size_t(y) * width + x) * 3];
        p[0] = to_byte(sum.r), p[1] = to_byte(sum.g), p[2] = to_byte(sum.b);
      }
  }, 4);
  return rgb;
}

void write_jpeg(const std::filesystem::path& path, int width, int height, const std::uint8_t* rgb, int quality) {
  write_atomically(path.string(), [&](const std::string& temp) {
    auto out = OIIO::ImageOutput::create(temp);
    if (!out) throw Error(path.string() + ": " + OIIO::geterror());
    OIIO::ImageSpec spec(width, height, 3, OIIO::TypeDesc::UINT8);
    spec.attribute("Compression", "jpeg:" + std::to_string(quality));
    spec.attribute("jpeg:subsampling", "4:2:0");
    if (!out->open(temp, spec) || !out->write_image(OIIO::TypeDesc::UINT8, rgb) || !out->close())
      throw Error(path.string() + ": " + out->geterror());
  });
}

// JSON indented one space per level, arrays of numbers on one line ("[512.0, 256.0]").
std::string json_text(const Json& j) {
  const std::string s = j.dump(1);
  std::string out;
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      out += c;
      if (c == '\\') out += s[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    const std::size_t end = c == '[' ? s.find_first_of("[]{}\"", i + 1) : std::string::npos;
    if (end != std::string::npos && s[end] == ']') {
      out += '[';
      for (std::size_t k = i + 1; k < end; ++k)
        if (s[k] == ',') out += ", ";
        else if (s[k] != ' ' && s[k] != '\n') out += s[k];
      out += ']';
      i = end;
      continue;
    }
    out += c;
  }
  return out + "\n";
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  write_atomically(path.string(), [&](const std::string& temp) {
    std::ofstream out(temp, std::ios::binary);
    out << text;
    if (!out.flush()) throw Error(path.string() + ": cannot write");
  });
}

// v rounded to `scale`ths, printed short ("19.692308", never "-0.0").
Json rounded(double v, double scale = 1e6) { return std::round(v * scale) / scale + 0.0; }
Json vec_json(Vec3 v) { return Json::array({rounded(v.x, 1e12), rounded(v.y, 1e12), rounded(v.z, 1e12)}); }

// The sample geometry: what the JSON files state and the renderers use.
constexpr int kEquirectWidth = 1024, kEquirectHeight = 512, kSamplesQuality = 90, kSupersampling = 3;
struct Lens {
  const char* name;
  const char* half;
  double centre_u, centre_v, radius, fov_deg, yaw, pitch, roll;
};
const Lens kLenses[2] = {{"back", "left", 256, 256, 256, 195, 180, 0, 0}, {"front", "right", 768, 256, 256, 195, 0, 0, 0}};
constexpr int kFisheyeWidth = 1024, kFisheyeHeight = 512;

// Where direction d lands in a lens's circle, if it is within the lens's FOV.
bool fisheye_uv(const Lens& lens, Vec3 d, double& u, double& v) {
  const Vec3 l = rotation_ypr(lens.yaw, lens.pitch, lens.roll).transposed() * d;
  const double theta = std::acos(std::clamp(l.z, -1.0, 1.0));
  if (theta > lens.fov_deg * kDeg / 2) return false;
  const double h = std::hypot(l.x, l.y), r = lens.radius * theta / (lens.fov_deg * kDeg / 2);
  u = lens.centre_u + (h > 0 ? r * l.x / h : 0);
  v = lens.centre_v + (h > 0 ? r * l.y / h : 0);
  return true;
}

}  // namespace

int make_stitch_samples(const std::filesystem::path& out_dir) {
  const std::filesystem::path dir = out_dir / "stitch";
  std::filesystem::create_directories(dir);
  Scene scene;
  scene.seed = 360;
  scene.overlays = true;
  const std::vector<MarkerFrame> frames = marker_frames();
  auto shade = [&](Vec3 d) { return with_overlays(landscape(scene, d), d, frames); };

  // equirect.jpg
  const int w = kEquirectWidth, h = kEquirectHeight;
  const auto equirect = render(w, h, kSupersampling, [&](double u, double v, Vec3& d) {
    d = equirect_direction(u, v, w, h);
    return true;
  }, shade);
  write_jpeg(dir / "equirect.jpg", w, h, equirect.data(), kSamplesQuality);

  Json markers = Json::array();
  for (const Marker& m : kMarkers) {
    const Vec3 d = direction_of(m.yaw, m.pitch);
    const auto uv = equirect_uv(d, w, h);
    Json j = {{"name", m.name}, {"label", std::string(1, m.label)}, {"yaw_deg", m.yaw}, {"pitch_deg", m.pitch},
              {"direction", vec_json(d)}, {"rgb", m.rgb}, {"equirect_uv", {rounded(uv[0]), rounded(uv[1])}}};
    if (std::abs(m.pitch) == 90)
      j["note"] = "at a pole the disc covers a band of rows, the whole width: v within " +
                  std::to_string(kDiscRadiusDeg / 180 * h) + " of " + (m.pitch > 0 ? "0" : std::to_string(h));
    markers.push_back(j);
  }
  const Json frame_doc = {
      {"axes", "panorama frame of ffmpeg v360: x right, y down, z forward (yaw 0, pitch 0)"},
      {"yaw", "atan2(x, z) in degrees, positive to the right"},
      {"pitch", "asin(-y) in degrees, positive up"},
      {"rotation", "a camera or lens with yaw, pitch, roll maps its axes (x right, y down, z optical axis) to the panorama by "
                   "R = Ry(yaw) Rx(pitch) Rz(roll) (v360 rorder ypr)"}};
  Json eq = {{"generator", "gpuproc-make-samples stitch-samples"},
             {"image", "equirect.jpg"},
             {"width", w},
             {"height", h},
             {"jpeg", {{"quality", kSamplesQuality}, {"subsampling", "4:2:0"}}},
             {"frame", frame_doc},
             {"pixel_coordinates", "continuous: pixel (i, j) covers [i, i+1) x [j, j+1) and has its centre at (i + 0.5, j + 0.5); "
                                   "u = (yaw / 360 + 0.5) * width, v = (0.5 - pitch / 180) * height"},
             {"antialiasing", std::to_string(kSupersampling) + "x" + std::to_string(kSupersampling) + " samples per pixel"},
             {"grid", {{"step_deg", kGridStepDeg}, {"line_half_width_deg", kGridHalfWidthDeg},
                       {"meridians", "every 15 degrees up to |pitch| 75, every 90 degrees up to the poles"},
                       {"rgb_over_scene", "80% towards [255, 242, 140]"}}},
             {"markers", markers},
             {"disc_radius_deg", kDiscRadiusDeg},
             {"ring", {{"from_deg", kDiscRadiusDeg}, {"to_deg", kRingOuterDeg}, {"rgb", {0, 0, 0}}}},
             {"labels", "a white box with the black 5x7 letter, centred 12 degrees below each disc in the marker's tangent "
                        "plane (the marker's yaw and pitch, roll 0: below the zenith disc is towards the front, below the "
                        "nadir disc towards the back)"},
             {"scene", "sky with clouds and a sun (yaw 50, pitch 35), hills, buildings standing in 7.5-degree sectors, "
                       "ground seen from 1.6 m: 0.5 m paving tiles within 5 m, grass and gravel beyond"}};
  write_text(dir / "equirect.json", json_text(eq));

  // dual_fisheye.jpg: the same scene through the two lenses, black outside the circles.
  const auto fisheye = render(kFisheyeWidth, kFisheyeHeight, kSupersampling, [&](double u, double v, Vec3& d) {
    const Lens& lens = kLenses[u < kFisheyeWidth / 2.0 ? 0 : 1];
    const double dx = u - lens.centre_u, dy = v - lens.centre_v, r = std::hypot(dx, dy);
    const double theta = r / lens.radius * (lens.fov_deg * kDeg / 2);
    if (r > lens.radius) return false;
    const Vec3 local{r > 0 ? std::sin(theta) * dx / r : 0, r > 0 ? std::sin(theta) * dy / r : 0, std::cos(theta)};
    d = rotation_ypr(lens.yaw, lens.pitch, lens.roll) * local;
    return true;
  }, shade);
  write_jpeg(dir / "dual_fisheye.jpg", kFisheyeWidth, kFisheyeHeight, fisheye.data(), kSamplesQuality);

  Json lenses = Json::array(), seen = Json::array();
  for (const Lens& lens : kLenses)
    lenses.push_back({{"name", lens.name}, {"half", lens.half}, {"centre_px", {lens.centre_u, lens.centre_v}},
                      {"radius_px", lens.radius}, {"fov_deg", lens.fov_deg}, {"yaw_deg", lens.yaw},
                      {"pitch_deg", lens.pitch}, {"roll_deg", lens.roll}});
  for (const Marker& m : kMarkers)
    for (const Lens& lens : kLenses) {
      double u, v;
      if (fisheye_uv(lens, direction_of(m.yaw, m.pitch), u, v))
        seen.push_back({{"marker", m.name}, {"lens", lens.name}, {"uv", {rounded(u), rounded(v)}}, {"rgb", m.rgb}});
    }
  Json fe = {{"generator", "gpuproc-make-samples stitch-samples"},
             {"image", "dual_fisheye.jpg"},
             {"width", kFisheyeWidth},
             {"height", kFisheyeHeight},
             {"jpeg", {{"quality", kSamplesQuality}, {"subsampling", "4:2:0"}}},
             {"scene", "the scene of equirect.jpg (same grid, markers and labels), rendered directly, not resampled from it"},
             {"frame", frame_doc},
             {"pixel_coordinates", "continuous, as in equirect.json: pixel (i, j) has its centre at (i + 0.5, j + 0.5)"},
             {"model", "equidistant: a direction at angle theta from the lens axis lands at distance radius_px * theta / "
                       "(fov_deg / 2) from centre_px, towards its (x, y) in the lens frame (x right, y down); the lens "
                       "frame maps to the panorama by R = Ry(yaw) Rx(pitch) Rz(roll). Black outside the circles; no "
                       "vignetting, both lenses exposed alike"},
             {"lenses", lenses},
             {"ffmpeg", "the layout of v360's dfisheye input (front lens in the right half, back lens in the left, circles "
                        "filling each half): ffmpeg -i dual_fisheye.jpg -vf v360=input=dfisheye:output=e:ih_fov=195:iv_fov=195:w=1024:h=512 "
                        "gives the panorama (v360's scale() puts pixel centres at integers and the FOV edge at radius "
                        "(512 - 1) / 2 = 255.5: within half a pixel of these)"},
             {"markers", seen}};
  write_text(dir / "dual_fisheye.json", json_text(fe));

  // corrupt.jpg: equirect.jpg cut halfway, in the middle of its entropy-coded data (no EOI marker).
  std::ifstream in(dir / "equirect.jpg", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write_text(dir / "corrupt.jpg", bytes.substr(0, bytes.size() / 2));

  std::cout << "stitch: equirect.jpg " << w << "x" << h << ", dual_fisheye.jpg " << kFisheyeWidth << "x" << kFisheyeHeight
            << ", corrupt.jpg (" << bytes.size() / 2 << " of " << bytes.size() << " bytes)\n";
  return 0;
}

int make_stitch_bench(const std::filesystem::path& dir, int count, int width) {
  const int height = width / 2;
  const auto start = std::chrono::steady_clock::now();
  std::filesystem::create_directories(dir);

  // A few scenes, rendered once at full size (16-bit, one sample per pixel).
  const int scenes = std::min(count, 3);
  std::vector<std::vector<std::uint16_t>> bases(scenes);
  for (int k = 0; k < scenes; ++k) {
    Scene s;
    s.seed = 1000 + std::uint64_t(k);
    s.sun_yaw = -150 + 110 * k, s.sun_pitch = 20 + 15 * k;
    s.cloud_cover = 0.3 + 0.3 * k, s.hill_height = 3 + 2 * k, s.building_density = 0.3 + 0.2 * k;
    s.plaza_radius = 4 + 2 * k;
    auto& base = bases[k];
    base.resize(std::size_t(width) * height * 3);
    gp::parallel_for(height, [&](long y0, long y1) {
      for (long y = y0; y < y1; ++y)
        for (int x = 0; x < width; ++x) {
          const Rgb c = landscape(s, equirect_direction(x + 0.5, y + 0.5, width, height));
          std::uint16_t* p = &base[(std::size_t(y) * width + x) * 3];
          p[0] = std::uint16_t(std::lround(std::clamp(c.r, 0.0, 1.0) * 65535));
          p[1] = std::uint16_t(std::lround(std::clamp(c.g, 0.0, 1.0) * 65535));
          p[2] = std::uint16_t(std::lround(std::clamp(c.b, 0.0, 1.0) * 65535));
        }
    }, 4);
  }
  const auto rendered = std::chrono::steady_clock::now();

  // Frames: a scene turned by a yaw of its own, exposure and white balance, plus sensor noise
  // (about 0.8 levels in the shadows to 1.7 in the highlights, independent per channel).
  std::atomic<int> next{0};
  std::atomic<long long> bytes{0};
  std::vector<std::exception_ptr> errors(std::max(1u, std::thread::hardware_concurrency()));
  auto worker = [&](std::size_t slot) {
    try {
      std::vector<std::uint8_t> rgb(std::size_t(width) * height * 3);
      for (int i; (i = next++) < count;) {
        const std::uint64_t seed = 5000 + std::uint64_t(i);
        const auto& base = bases[std::size_t(i) % bases.size()];
        const int shift = int(hash01(i, 1, seed) * width);
        const double gain = 0.88 + 0.24 * hash01(i, 2, seed);
        const double wb[3] = {gain * (0.97 + 0.06 * hash01(i, 3, seed)), gain, gain * (0.97 + 0.06 * hash01(i, 4, seed))};
        for (int y = 0; y < height; ++y)
          for (int x = 0; x < width; ++x) {
            const std::uint16_t* src = &base[(std::size_t(y) * width + (x + shift) % width) * 3];
            std::uint8_t* dst = &rgb[(std::size_t(y) * width + x) * 3];
            const std::uint64_t h0 = splitmix64(seed * 0x9E3779B97F4A7C15ull + std::uint64_t(y) * std::uint64_t(width) + std::uint64_t(x));
            const std::uint64_t h1 = splitmix64(h0);
            const std::uint32_t bits[3] = {std::uint32_t(h0), std::uint32_t(h0 >> 32), std::uint32_t(h1)};
            for (int c = 0; c < 3; ++c) {
              const double level = src[c] * (255.0 / 65535.0) * wb[c];
              // Roughly normal: two 16-bit uniforms per channel (triangular, variance 1/6), scaled.
              const double noise = (double(bits[c] & 0xFFFF) + double(bits[c] >> 16)) * (1.0 / 65536.0) - 1.0;
              const double sigma = std::sqrt(0.6 + 0.012 * level);
              dst[c] = std::uint8_t(std::clamp(std::lround(level + noise * 2.449 * sigma), 0L, 255L));
            }
          }
        char name[32];
        std::snprintf(name, sizeof name, "pano_%05d.jpg", i);
        write_jpeg(dir / name, width, height, rgb.data(), 95);
        bytes += (long long)std::filesystem::file_size(dir / name);
      }
    } catch (...) {
      errors[slot] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < errors.size(); ++t) pool.emplace_back(worker, t);
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::cout << count << " panoramas " << width << "x" << height << " q95 in " << dir.string() << ": "
            << double(bytes) / count / 1e6 << " MB each; scenes rendered in " << seconds(start, rendered)
            << " s, frames in " << seconds(rendered, std::chrono::steady_clock::now()) << " s\n";
  return 0;
}

}  // namespace gp::samples
