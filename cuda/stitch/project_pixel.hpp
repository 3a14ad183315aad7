#pragma once
// Per-pixel work of every projection, shared by the kernels (project.cu) and the CPU references
// (project_cpu.cpp), so both compute the same floats in the same order. A map turns a continuous
// output position into a source point (locate), says how far apart the source points of
// neighbouring output pixels are (stretch, for antialiasing) and interpolates the source at a
// point (shade). nvcc-safe.
#include <cstddef>
#include <cstdint>

#include "cuda/stitch/sample.hpp"
#include "cuda/stitch/sphere.hpp"

namespace gp::stitch::detail {

template <class T>
struct OutputImage {
  T* data;
  std::size_t pitch;  // bytes between rows
  int width, height, channels;
  GP_VIEW_HD T* at(int x, int y) const {
    return reinterpret_cast<T*>(reinterpret_cast<std::uint8_t*>(data) + pitch * std::size_t(y)) + std::size_t(x) * std::size_t(channels);
  }
};
struct MaskImage {
  const std::uint8_t* data;  // nullptr: no mask
  std::size_t pitch;
};

GP_VIEW_HD inline float length2(float a, float b) { return sqrtf(a * a + b * b); }

// Distance between two source positions; u differences wrap around a turn of `period` (0: none).
GP_VIEW_HD inline float source_distance(float du, float dv, float period) {
  if (period > 0.0f) {
    if (du > 0.5f * period) du -= period;
    else if (du < -0.5f * period) du += period;
  }
  return length2(du, dv);
}

struct SourcePoint {
  float u, v;
};

// Rays of a perspective view.
struct CameraRays {
  Camera camera;
  GP_VIEW_HD Vec3 direction(float x, float y) const { return camera_direction(camera, x, y); }
};

// Rays of a cube face of size n, turned by `rotation`.
struct CubeFaceRays {
  Mat3 rotation;
  int face, n;
  GP_VIEW_HD Vec3 direction(float x, float y) const {
    return normalize(rotate(rotation, cube_face_point(face, cube_face_coord(x, n), cube_face_coord(y, n))));
  }
};

// Any rays sampling an equirect source of T samples.
template <class Rays, class T>
struct EquirectSourceMap {
  using Point = SourcePoint;
  using Pixel = T;
  Rays rays;
  EquirectTexels<T> texels;
  EquirectMapping mapping;

  GP_VIEW_HD Point locate(float x, float y) const {
    Point p;
    equirect_coords(mapping, rays.direction(x, y), p.u, p.v);
    return p;
  }
  GP_VIEW_HD void stretch(const Point& p, const Point& px, const Point& py, float& sx, float& sy) const {
    sx = source_distance(px.u - p.u, px.v - p.v, mapping.period_u);
    sy = source_distance(py.u - p.u, py.v - p.v, mapping.period_u);
  }
  template <int C>
  GP_VIEW_HD void shade(const Point& p, Interp m, float out[C]) const {
    if (!equirect_visible(mapping, p.u)) {  // behind a 180-degree source: black, as v360
      for (int c = 0; c < C; ++c) out[c] = 0.0f;
      return;
    }
    interpolate<C>(texels, m, p.u, p.v, out);
  }
};

// Equirect output from six cube faces.
template <class T>
struct CubeSourceMap {
  using Pixel = T;
  struct Point {
    Vec3 d;
    int face;
    float u, v;
  };
  SourceImage<T> faces[cube_face_count];
  int n;
  int out_width, out_height;
  Mat3 rotation;

  GP_VIEW_HD Point locate(float x, float y) const {
    Point p;
    p.d = rotate(rotation, equirect_direction(x, y, out_width, out_height));
    p.face = cube_face_of(p.d);
    float a, b;
    cube_face_coords(p.face, p.d, a, b);
    p.u = cube_face_pixel(a, n);
    p.v = cube_face_pixel(b, n);
    return p;
  }
  // Neighbours measured on p's face plane (continuous across face edges); one that points away
  // from that face counts as infinitely far.
  GP_VIEW_HD float face_distance(const Point& p, const Point& q) const {
    float a, b;
    if (!cube_face_coords(p.face, q.d, a, b)) return 1.0e30f;
    return length2(cube_face_pixel(a, n) - p.u, cube_face_pixel(b, n) - p.v);
  }
  GP_VIEW_HD void stretch(const Point& p, const Point& px, const Point& py, float& sx, float& sy) const {
    sx = face_distance(p, px);
    sy = face_distance(p, py);
  }
  template <int C>
  GP_VIEW_HD void shade(const Point& p, Interp m, float out[C]) const {
    interpolate<C>(CubeTexels<T>{faces, p.face, n}, m, p.u, p.v, out);
  }
};

// Equirect output from two circular fisheyes in one frame, blended where both see a direction.
template <class T>
struct DualFisheyeMap {
  using Pixel = T;
  struct Point {
    float u[2], v[2], weight[2];
  };
  SourceImage<T> image;
  FisheyeLens lens[2];
  float blend_rad;  // 0: the whole overlap
  int out_width, out_height;

  GP_VIEW_HD Point locate(float x, float y) const {
    const Vec3 d = equirect_direction(x, y, out_width, out_height);
    Point p;
    float margin[2];
    bool seen[2];
    for (int k = 0; k < 2; ++k) {
      float theta;
      fisheye_coords(lens[k], d, theta, p.u[k], p.v[k]);
      margin[k] = lens[k].half_fov - theta;  // angle inside the FOV edge
      seen[k] = margin[k] >= 0.0f && p.u[k] >= lens[k].clip[0] - 0.5f && p.v[k] >= lens[k].clip[1] - 0.5f &&
                p.u[k] <= lens[k].clip[2] + 0.5f && p.v[k] <= lens[k].clip[3] + 0.5f;
    }
    if (seen[0] && seen[1]) {
      const float overlap = margin[0] + margin[1];
      const float band = blend_rad > 0.0f && blend_rad < overlap ? blend_rad : overlap;
      float w0 = band > 0.0f ? 0.5f + (margin[0] - margin[1]) / (2.0f * band) : 0.5f;
      w0 = fminf(fmaxf(w0, 0.0f), 1.0f);
      p.weight[0] = w0;
      p.weight[1] = 1.0f - w0;
    } else {
      p.weight[0] = seen[0] ? 1.0f : 0.0f;
      p.weight[1] = seen[1] ? 1.0f : 0.0f;
    }
    return p;
  }
  GP_VIEW_HD void stretch(const Point& p, const Point& px, const Point& py, float& sx, float& sy) const {
    sx = sy = 0.0f;
    for (int k = 0; k < 2; ++k)
      if (p.weight[k] > 0.0f) {
        sx = fmaxf(sx, length2(px.u[k] - p.u[k], px.v[k] - p.v[k]));
        sy = fmaxf(sy, length2(py.u[k] - p.u[k], py.v[k] - p.v[k]));
      }
  }
  template <int C>
  GP_VIEW_HD void shade(const Point& p, Interp m, float out[C]) const {
    for (int c = 0; c < C; ++c) out[c] = 0.0f;
    for (int k = 0; k < 2; ++k) {
      if (!(p.weight[k] > 0.0f)) continue;
      const FisheyeLens& l = lens[k];
      float s[C];
      interpolate<C>(ClampTexels<T>{image, int(l.clip[0]), int(l.clip[1]), int(l.clip[2]), int(l.clip[3])}, m, p.u[k],
                     p.v[k], s);
      for (int c = 0; c < C; ++c) out[c] += p.weight[k] * s[c];
    }
  }
};

// Sub-samples along one output axis for a stretch of s source pixels: round(s), 1..max.
GP_VIEW_HD inline int subsample_count(float s, int max_subsamples) {
  if (!(s < float(max_subsamples))) return max_subsamples;  // also NaN
  const int n = int(floorf(s + 0.5f));
  return n < 1 ? 1 : n;
}

// Sub-samples along each output axis at output pixel (x, y), whose source point is p: 1 x 1
// unless antialiasing is on and neighbouring output pixels sample further apart than about one
// source pixel.
template <class Map>
GP_VIEW_HD void subsample_counts(const Map& map, const typename Map::Point& p, int x, int y, int max_subsamples,
                                 int& nx, int& ny) {
  nx = ny = 1;
  if (max_subsamples <= 1) return;
  float sx, sy;
  map.stretch(p, map.locate(float(x + 1), float(y)), map.locate(float(x), float(y + 1)), sx, sy);
  nx = subsample_count(sx, max_subsamples);
  ny = subsample_count(sy, max_subsamples);
}

// One output pixel: the map's value at (x, y), or the mean of nx x ny sub-samples spread evenly
// over the pixel (subsample_counts).
template <int C, class Map>
GP_VIEW_HD void render_pixel(const Map& map, int x, int y, Interp m, int max_subsamples, float out[C]) {
  const typename Map::Point p = map.locate(float(x), float(y));
  int nx, ny;
  subsample_counts(map, p, x, y, max_subsamples, nx, ny);
  if (nx == 1 && ny == 1) {
    map.template shade<C>(p, m, out);
    return;
  }
  for (int c = 0; c < C; ++c) out[c] = 0.0f;
  for (int j = 0; j < ny; ++j) {
    const float ys = float(y) + ((float(j) + 0.5f) / float(ny) - 0.5f);
    for (int i = 0; i < nx; ++i) {
      const float xs = float(x) + ((float(i) + 0.5f) / float(nx) - 0.5f);
      float s[C];
      map.template shade<C>(map.locate(xs, ys), m, s);
      for (int c = 0; c < C; ++c) out[c] += s[c];
    }
  }
  const float count = float(nx * ny);
  for (int c = 0; c < C; ++c) out[c] = out[c] / count;
}

// A map with where its pixels go.
template <class Map>
struct Job {
  Map map;
  OutputImage<typename Map::Pixel> out;  // the source's sample type
  MaskImage mask;
};

// Computes and stores output pixel (x, y) of a job (inside the output).
template <int C, class Map>
GP_VIEW_HD void render_job_pixel(const Job<Map>& job, int x, int y, Interp m, int max_subsamples) {
  auto* dst = job.out.at(x, y);
  if (job.mask.data != nullptr && job.mask.data[job.mask.pitch * std::size_t(y) + std::size_t(x)] == 0) {
    for (int c = 0; c < C; ++c) dst[c] = 0;
    return;
  }
  float value[C];
  render_pixel<C>(job.map, x, y, m, max_subsamples, value);
  for (int c = 0; c < C; ++c) store_sample(dst[c], value[c]);
}

// ---- remap tables (equirect sources)
// Where an output pixel samples an equirect source depends on the job's rays, the source's size
// and the options, not on the source's pixels: a batch of panoramas locates every pixel once into
// a table, and each panorama then costs a table read and the interpolation (the trigonometry of
// locate() made the direct kernel compute-bound). Pixels that need several sub-samples keep the
// marker remap_subsampled and are rendered in full. Same results as render_job_pixel.
struct RemapPoint {
  float u, v;
};
constexpr float remap_subsampled = -3.0e38f;  // u of a pixel rendered in full

template <class Rays, class T>
GP_VIEW_HD RemapPoint remap_point(const EquirectSourceMap<Rays, T>& map, int x, int y, int max_subsamples) {
  const SourcePoint p = map.locate(float(x), float(y));
  int nx, ny;
  subsample_counts(map, p, x, y, max_subsamples, nx, ny);
  if (nx != 1 || ny != 1) return RemapPoint{remap_subsampled, 0.0f};
  return RemapPoint{p.u, p.v};
}

// render_job_pixel with pixel (x, y)'s table entry r.
template <int C, class Rays, class T>
GP_VIEW_HD void remap_job_pixel(const Job<EquirectSourceMap<Rays, T>>& job, const RemapPoint& r, int x, int y, Interp m,
                                int max_subsamples) {
  if (r.u == remap_subsampled || job.mask.data != nullptr) {  // masks are rare: their pixels the long way
    render_job_pixel<C>(job, x, y, m, max_subsamples);
    return;
  }
  float value[C];
  const SourceImage<T>& image = job.map.texels.image;
  if (!equirect_visible(job.map.mapping, r.u))
    for (int c = 0; c < C; ++c) value[c] = 0.0f;
  else if (taps_inside(m, r.u, r.v, image.width, image.height))
    interpolate<C>(clamp_texels(image), m, r.u, r.v, value);  // the same taps without wrap-around
  else
    interpolate<C>(job.map.texels, m, r.u, r.v, value);
  T* dst = job.out.at(x, y);
  for (int c = 0; c < C; ++c) store_sample(dst[c], value[c]);
}

// Up to N jobs of one kind, passed to a kernel by value (one grid z-slice per job).
template <class Map, int N>
struct JobList {
  Job<Map> job[N];
  int count;
  int max_width, max_height;
};

}  // namespace gp::stitch::detail
