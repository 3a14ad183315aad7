// gpuproc-make-samples: deterministic synthetic HDR frames (byte-identical run to run).
//   gpuproc-make-samples samples OUTDIR               the committed samples: OUTDIR/exr/*.exr, OUTDIR/hdr/*.hdr
//   gpuproc-make-samples bench OUTDIR N WIDTH HEIGHT  N half RGBA EXRs (ZIP and PIZ alternating) for benchmarks
//   gpuproc-make-samples bench-noise OUTDIR N WIDTH HEIGHT  the same of sensor-like noise alone (the codecs' worst case)
//   gpuproc-make-samples pnm-samples OUTDIR           the committed segment-pnm sample: OUTDIR/pnm/ (pnm_samples.hpp)
//   gpuproc-make-samples pnm-bench OUTDIR N [THREADS] OUTDIR/foam-N.raw + .json: an N^3 porous phantom
//   gpuproc-make-samples stitch-samples OUTDIR        the committed stitch-360 samples: OUTDIR/stitch/ (stitch_samples.hpp)
//   gpuproc-make-samples stitch-bench OUTDIR N [WIDTH] N equirect JPEGs, WIDTH x WIDTH/2 (default 7680), q95
//   gpuproc-make-samples video-samples OUTDIR         the committed video sample: OUTDIR/video/ (video_samples.hpp)
// The scene is procedural: sky with clouds and a ~1e3 sun, buildings with lit windows, a textured
// ground with ~1e-3 shadows and street lamps, a soft-edged alpha, and sensor-like noise.
#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "core/splitmix64.hpp"
#include "pnm_samples.hpp"
#include "rig_scene.hpp"
#include "stitch_samples.hpp"
#include "video_samples.hpp"

namespace {

using OIIO::ImageSpec;
using OIIO::TypeDesc;

// ---- deterministic randomness: pure functions of their inputs, so threads cannot change output --

using gp::splitmix64;

std::uint64_t hash3(std::int64_t a, std::int64_t b, std::uint64_t seed) {
  return splitmix64(seed ^ splitmix64(std::uint64_t(a) * 0x9E3779B97F4A7C15ull ^ std::uint64_t(b)));
}

// Uniform in [0, 1).
float hash01(std::int64_t a, std::int64_t b, std::uint64_t seed) { return float(hash3(a, b, seed) >> 40) * 0x1p-24f; }

// Roughly standard normal: the sum of four 16-bit uniforms of one hash (Irwin-Hall), scaled.
float gaussian(std::uint64_t h) {
  float sum = 0;
  for (int i = 0; i < 4; ++i, h >>= 16) sum += float(h & 0xFFFF) * (1.f / 65536.f);
  return (sum - 2.f) * 1.7320508f;
}

float smoothstep(float edge0, float edge1, float x) {
  const float t = std::clamp((x - edge0) / (edge1 - edge0), 0.f, 1.f);
  return t * t * (3.f - 2.f * t);
}

float value_noise(float x, float y, std::uint64_t seed) {
  const float fx = std::floor(x), fy = std::floor(y);
  const auto ix = std::int64_t(fx), iy = std::int64_t(fy);
  const float tx = smoothstep(0.f, 1.f, x - fx), ty = smoothstep(0.f, 1.f, y - fy);
  const float top = hash01(ix, iy, seed) + (hash01(ix + 1, iy, seed) - hash01(ix, iy, seed)) * tx;
  const float bottom = hash01(ix, iy + 1, seed) + (hash01(ix + 1, iy + 1, seed) - hash01(ix, iy + 1, seed)) * tx;
  return top + (bottom - top) * ty;
}

// Fractal value noise in [0, 1): octaves of doubling frequency and halving amplitude.
float fbm(float x, float y, std::uint64_t seed, int octaves = 5) {
  float sum = 0, amplitude = 0.5f, norm = 0;
  for (int o = 0; o < octaves; ++o, x *= 2.03f, y *= 2.03f, amplitude *= 0.5f) {
    sum += amplitude * value_noise(x, y, seed + std::uint64_t(o));
    norm += amplitude;
  }
  return sum / norm;
}

// ---- the scene ---------------------------------------------------------------------------------

struct Rgb {
  float r = 0, g = 0, b = 0;
};
Rgb operator*(Rgb a, float s) { return {a.r * s, a.g * s, a.b * s}; }
Rgb operator*(Rgb a, Rgb b) { return {a.r * b.r, a.g * b.g, a.b * b.b}; }
Rgb operator+(Rgb a, Rgb b) { return {a.r + b.r, a.g + b.g, a.b + b.b}; }
Rgb mix(Rgb a, Rgb b, float t) { return a * (1.f - t) + b * t; }

struct SceneParams {
  std::uint64_t seed = 1;        // the city and the ground texture
  std::uint64_t frame_seed = 1;  // lit windows and noise
  float sun_x = 1.3f, sun_y = 0.5f;  // in height units from the top-left corner
  float sun_strength = 1;        // direct light and glow
  float sky_level = 1;           // sky brightness (~fill light)
  float cloud_drift = 0;
  float lit_windows = 0.3f;      // fraction of windows lit
  bool chart = false;            // colour and exposure ramps along the bottom
  bool soft_matte = true;        // alpha fading out at the borders; false: opaque everywhere
};

// What a renderer would output per pixel: reflected light, emitted light and coverage.
struct ScenePixel {
  Rgb diffuse, emission;
  float alpha = 1;
};

constexpr float kHorizon = 0.62f;
const Rgb kSunColour{1.f, 0.9f, 0.75f};

Rgb hue(float h) {
  auto channel = [&](float offset) { return std::clamp(std::abs(std::fmod(h * 6.f + offset, 6.f) - 3.f) - 1.f, 0.f, 1.f); };
  return {channel(0.f), channel(4.f), channel(2.f)};
}

// Buildings: one per column of 1/7 height units, standing on the horizon.
struct Building {
  bool present;
  float top, left, right;  // top in height units; left/right as fractions of the column
};
Building building_at(float x, const SceneParams& p) {
  const auto column = std::int64_t(std::floor(x * 7.f));
  return {hash01(column, 1, p.seed) > 0.25f, kHorizon - 0.06f - 0.22f * hash01(column, 0, p.seed), 0.12f, 0.88f};
}

ScenePixel shade_sky(float x, float y, const SceneParams& p) {
  ScenePixel px;
  const float h = y / kHorizon;  // 0 at the top, 1 at the horizon
  const Rgb sky = mix(Rgb{0.08f, 0.18f, 0.6f}, Rgb{0.9f, 0.6f, 0.35f}, std::pow(h, 1.5f)) * p.sky_level;
  const float clouds = fbm(x * 2.5f + p.cloud_drift, y * 7.f, p.seed + 100);
  const float cover = smoothstep(0.52f, 0.72f, clouds) * (1.f - 0.6f * h);
  const float sun_distance = std::hypot(x - p.sun_x, y - p.sun_y);
  const Rgb cloud = Rgb{0.9f, 0.85f, 0.8f} * (p.sky_level * (0.8f + clouds)) +
                    kSunColour * (4.f * p.sun_strength * std::exp(-sun_distance / 0.25f));
  px.diffuse = mix(sky, cloud, cover);
  const float sun_radius = 0.02f;
  const float disk = 1.f - smoothstep(0.8f * sun_radius, sun_radius, sun_distance);
  const float glow = 25.f * std::exp(-sun_distance * sun_distance / (0.045f * 0.045f)) + 1.5f * std::exp(-sun_distance / 0.2f);
  px.emission = kSunColour * ((1000.f * disk + glow) * p.sun_strength * (1.f - 0.7f * cover));
  return px;
}

ScenePixel shade_building(float x, float y, const Building& b, float in_column, const SceneParams& p) {
  ScenePixel px;
  px.diffuse = Rgb{0.2f, 0.19f, 0.18f} * ((0.6f + 0.4f * fbm(x * 40.f, y * 40.f, p.seed + 200)) * 0.15f * p.sky_level);
  const float wx = (in_column - b.left) / (b.right - b.left) * 6.f, wy = (y - b.top) * 60.f;
  const float fx = wx - std::floor(wx), fy = wy - std::floor(wy);
  if (fx > 0.2f && fx < 0.8f && fy > 0.25f && fy < 0.75f && y > b.top + 0.01f) {
    const auto window = std::int64_t(std::floor(x * 7.f)) * 64 + std::int64_t(wx);
    const float lit = hash01(window, std::int64_t(wy), p.frame_seed + 300);
    if (lit > 1.f - p.lit_windows) {
      const float level = std::pow(10.f, 1.f + 1.3f * hash01(window, std::int64_t(wy), p.seed + 301));  // 10..200
      px.emission = (lit > 1.f - 0.3f * p.lit_windows ? Rgb{0.6f, 0.8f, 1.f} : Rgb{1.f, 0.7f, 0.4f}) * level;
    }
  }
  return px;
}

ScenePixel shade_ground(float x, float y, float aspect, const Building& behind, const SceneParams& p) {
  ScenePixel px;
  const float depth = (y - kHorizon) / (1.f - kHorizon);  // 0 at the horizon, 1 at the bottom
  const float perspective = 1.f / (depth + 0.08f);
  const float texture = fbm((x - aspect / 2) * perspective * 2.f, perspective * 4.f, p.seed + 400);
  const Rgb albedo = Rgb{0.35f, 0.3f, 0.24f} * (0.25f + 1.2f * smoothstep(0.25f, 0.75f, texture));
  // Buildings cast long shadows toward the viewer; only a little skylight reaches into them.
  const bool shadow = behind.present && y < kHorizon + 1.6f * (kHorizon - behind.top);
  const Rgb light = shadow ? Rgb{0.01f, 0.01f, 0.012f} * p.sky_level
                           : kSunColour * (2.5f * p.sun_strength) + Rgb{0.3f, 0.35f, 0.45f} * p.sky_level;
  px.diffuse = albedo * light;
  // Street lamps: a bright bulb and the pool of light under it.
  for (int lamp = 0; lamp < 6; ++lamp) {
    const float lx = hash01(lamp, 10, p.seed) * aspect, ly = kHorizon + (0.1f + 0.85f * hash01(lamp, 11, p.seed)) * (1.f - kHorizon);
    const float d2 = (x - lx) * (x - lx) + (y - ly) * (y - ly);
    const float size = 0.004f + 0.006f * (ly - kHorizon) / (1.f - kHorizon);
    px.emission = px.emission + Rgb{1.f, 0.75f, 0.45f} * (300.f * std::exp(-d2 / (size * size)) +
                                                         4.f * std::exp(-d2 / (100.f * size * size)));
  }
  return px;
}

// Two ramps: hues at 1.0, and grey from 1e-3 to 1e2 (five decades) left to right.
ScenePixel shade_chart(float x, float y, float aspect) {
  ScenePixel px;
  const float t = x / aspect;
  px.emission = y < 0.965f ? hue(t) : Rgb{1, 1, 1} * std::pow(10.f, -3.f + 5.f * t);
  return px;
}

ScenePixel shade(float x, float y, float aspect, const SceneParams& p) {
  const Building b = building_at(x, p);
  const float in_column = x * 7.f - std::floor(x * 7.f);
  const bool inside_building = b.present && in_column > b.left && in_column < b.right;
  ScenePixel px;
  if (p.chart && y > 0.93f)
    px = shade_chart(x, y, aspect);
  else if (y < kHorizon && inside_building && y >= b.top)
    px = shade_building(x, y, b, in_column, p);
  else if (y < kHorizon)
    px = shade_sky(x, y, p);
  else
    px = shade_ground(x, y, aspect, inside_building ? b : Building{false, 0, 0, 0}, p);
  // A soft-edged matte: opaque, fading to 0 over the outer 5% (of the height) of each border.
  if (p.soft_matte) px.alpha = smoothstep(0.f, 0.05f, std::min({x, aspect - x, y, 1.f - y}));
  return px;
}

// ---- images ------------------------------------------------------------------------------------

// The frame as a renderer's passes: beauty RGBA (with sensor noise), diffuse RGB, emission RGB.
struct Frame {
  int width = 0, height = 0;
  std::vector<float> beauty, diffuse, emission;  // interleaved, 4 / 3 / 3 channels
};

Frame render(int width, int height, const SceneParams& p) {
  Frame f{width, height, {}, {}, {}};
  f.beauty.resize(std::size_t(width) * height * 4);
  f.diffuse.resize(std::size_t(width) * height * 3);
  f.emission.resize(std::size_t(width) * height * 3);
  const float aspect = float(width) / float(height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const std::size_t i = std::size_t(y) * width + x;
      const ScenePixel px = shade((float(x) + 0.5f) / float(height), (float(y) + 0.5f) / float(height), aspect, p);
      const float diffuse[3] = {px.diffuse.r, px.diffuse.g, px.diffuse.b};
      const float emission[3] = {px.emission.r, px.emission.g, px.emission.b};
      // Colours premultiplied by alpha, as EXR expects; beauty = diffuse + emission + noise.
      for (int c = 0; c < 3; ++c) {
        f.diffuse[i * 3 + c] = diffuse[c] * px.alpha;
        f.emission[i * 3 + c] = emission[c] * px.alpha;
        // Sensor-like noise: 1.5% shot noise plus a 2e-4 read-noise floor.
        const std::uint64_t h = hash3(std::int64_t(i), c, p.frame_seed + 500);
        const float clean = f.diffuse[i * 3 + c] + f.emission[i * 3 + c];
        const float noisy = clean * (1.f + 0.015f * gaussian(h)) + 2e-4f * px.alpha * gaussian(splitmix64(h));
        f.beauty[i * 4 + c] = std::max(0.f, noisy);
      }
      f.beauty[i * 4 + 3] = px.alpha;
    }
  return f;
}

// Interleaves whole channel groups of a frame: e.g. beauty RGBA then diffuse RGB.
std::vector<float> interleave(const Frame& f, const std::vector<const std::vector<float>*>& groups) {
  std::vector<int> widths;
  int total = 0;
  for (auto* g : groups) {
    widths.push_back(int(g->size() / (std::size_t(f.width) * f.height)));
    total += widths.back();
  }
  std::vector<float> out;
  out.reserve(std::size_t(f.width) * f.height * total);
  for (std::size_t i = 0; i < std::size_t(f.width) * f.height; ++i)
    for (std::size_t g = 0; g < groups.size(); ++g)
      out.insert(out.end(), groups[g]->begin() + i * widths[g], groups[g]->begin() + (i + 1) * widths[g]);
  return out;
}

// ---- files -------------------------------------------------------------------------------------

struct ExrPart {
  std::string name;                   // "" = single-part file
  std::vector<std::string> channels;
  std::vector<float> pixels;          // interleaved
};

struct ExrOptions {
  std::string compression = "zip";
  TypeDesc type = TypeDesc::HALF;
  int tile = 0;  // 0 = scanline
};

bool write_exr(const std::string& path, int width, int height, const std::vector<ExrPart>& parts, const ExrOptions& o) {
  std::vector<ImageSpec> specs;
  for (auto& part : parts) {
    ImageSpec spec(width, height, int(part.channels.size()), o.type);
    spec.channelnames = part.channels;
    spec.alpha_channel = -1;
    for (std::size_t c = 0; c < part.channels.size(); ++c)
      if (part.channels[c] == "A") spec.alpha_channel = int(c);
    spec.attribute("compression", o.compression);
    spec.attribute("DateTime", "2024:01:01 00:00:00");  // the writer would stamp the time otherwise
    if (!part.name.empty()) spec.attribute("oiio:subimagename", part.name);
    spec.tile_width = spec.tile_height = o.tile;
    specs.push_back(spec);
  }
  auto out = OIIO::ImageOutput::create(path);
  bool ok = out != nullptr;
  for (std::size_t s = 0; ok && s < parts.size(); ++s) {
    ok = s == 0 ? out->open(path, int(specs.size()), specs.data())
                : out->open(path, specs[s], OIIO::ImageOutput::AppendSubimage);
    ok = ok && out->write_image(TypeDesc::FLOAT, parts[s].pixels.data());
  }
  ok = ok && out->close();
  if (!ok) std::cerr << path << ": " << (out ? out->geterror() : OIIO::geterror()) << "\n";
  return ok;
}

bool write_hdr(const std::string& path, const Frame& f) {
  std::vector<float> rgb(std::size_t(f.width) * f.height * 3);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = f.diffuse[i] + f.emission[i];
  auto out = OIIO::ImageOutput::create(path);
  const bool ok = out && out->open(path, ImageSpec(f.width, f.height, 3, TypeDesc::FLOAT)) &&
                  out->write_image(TypeDesc::FLOAT, rgb.data()) && out->close();
  if (!ok) std::cerr << path << ": " << (out ? out->geterror() : OIIO::geterror()) << "\n";
  return ok;
}

const std::vector<std::string> kRgba = {"R", "G", "B", "A"};
const std::vector<std::string> kRgb = {"R", "G", "B"};

std::vector<float> rgb_of(const Frame& f) {
  std::vector<float> rgb(std::size_t(f.width) * f.height * 3);
  for (std::size_t i = 0; i < std::size_t(f.width) * f.height; ++i)
    std::copy_n(&f.beauty[i * 4], 3, &rgb[i * 3]);
  return rgb;
}

// The committed samples; data-samples/README.md describes each one.
int make_samples(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "exr");
  std::filesystem::create_directories(dir / "hdr");
  auto exr = [&](const char* name) { return (dir / "exr" / name).string(); };
  bool ok = true;

  SceneParams sunset;
  sunset.sun_x = 1.35f, sunset.sun_y = kHorizon - 0.1f, sunset.chart = true;
  const Frame a = render(512, 256, sunset);
  ok &= write_exr(exr("sunset_half_zip.exr"), a.width, a.height, {{"", kRgba, a.beauty}}, {"zip", TypeDesc::HALF, 0});

  SceneParams noon;
  noon.seed = 2, noon.frame_seed = 2, noon.sun_x = 0.4f, noon.sun_y = 0.12f, noon.sun_strength = 2.f,
  noon.sky_level = 3.f, noon.lit_windows = 0.05f, noon.soft_matte = false;  // written without alpha
  const Frame b = render(320, 180, noon);
  ok &= write_exr(exr("noon_float_piz.exr"), b.width, b.height, {{"", kRgb, rgb_of(b)}}, {"piz", TypeDesc::FLOAT, 0});

  SceneParams dusk;
  dusk.seed = 3, dusk.frame_seed = 3, dusk.sun_x = 1.0f, dusk.sun_y = kHorizon + 0.05f, dusk.sun_strength = 0.1f,
  dusk.sky_level = 0.15f, dusk.lit_windows = 0.6f;
  const Frame c = render(480, 270, dusk);
  ok &= write_exr(exr("dusk_half_dwaa_tiled.exr"), c.width, c.height, {{"", kRgba, c.beauty}},
                  {"dwaa", TypeDesc::HALF, 64});

  SceneParams render_params = sunset;
  render_params.seed = 4, render_params.frame_seed = 4, render_params.chart = false, render_params.sun_x = 0.6f;
  const Frame d = render(320, 180, render_params);
  ok &= write_exr(exr("render_multipart.exr"), d.width, d.height,
                  {{"beauty", kRgba, d.beauty}, {"diffuse", kRgb, d.diffuse}}, {"zip", TypeDesc::HALF, 0});
  ok &= write_exr(exr("render_multilayer.exr"), d.width, d.height,
                  {{"",
                    {"R", "G", "B", "A", "diffuse.R", "diffuse.G", "diffuse.B", "emission.R", "emission.G", "emission.B"},
                    interleave(d, {&d.beauty, &d.diffuse, &d.emission})}},
                  {"piz", TypeDesc::HALF, 0});

  SceneParams opaque_sunset = sunset;
  opaque_sunset.soft_matte = false;  // Radiance files have no alpha
  ok &= write_hdr((dir / "hdr" / "sunset_sky.hdr").string(), render(256, 128, opaque_sunset));
  return ok ? 0 : 1;
}

// A frame of noise alone: log-normal RGB (a wide spread of exponents, random mantissas), alpha 1.
Frame noise_frame(int width, int height, std::uint64_t seed) {
  Frame f{width, height, {}, {}, {}};
  f.beauty.resize(std::size_t(width) * height * 4);
  for (std::size_t i = 0; i < std::size_t(width) * height; ++i) {
    for (int c = 0; c < 3; ++c) f.beauty[i * 4 + c] = 0.2f * std::exp(1.5f * gaussian(hash3(std::int64_t(i), c, seed)));
    f.beauty[i * 4 + 3] = 1.f;
  }
  return f;
}

// Benchmark frames: one city, the sun crossing the sky and clouds drifting frame to frame (or,
// `noise`, frames of noise alone).
int make_bench(const std::filesystem::path& dir, int count, int width, int height, bool noise) {
  std::filesystem::create_directories(dir);
  std::atomic<int> next{0}, failures{0};
  auto worker = [&] {
    for (int i; (i = next++) < count;) {
      SceneParams p;
      p.frame_seed = 1000 + std::uint64_t(i);
      const float t = count > 1 ? float(i) / float(count - 1) : 0.5f;
      const float aspect = float(width) / float(height);
      p.sun_x = aspect * (0.15f + 0.7f * t);
      p.sun_y = kHorizon - 0.08f - 0.3f * std::sin(3.14159265f * t);
      p.sun_strength = 0.6f + 0.8f * std::sin(3.14159265f * t);
      p.sky_level = 0.8f + 1.5f * std::sin(3.14159265f * t);
      p.cloud_drift = 0.05f * float(i);
      p.lit_windows = 0.35f - 0.25f * std::sin(3.14159265f * t);
      const Frame f = noise ? noise_frame(width, height, p.frame_seed) : render(width, height, p);
      char name[32];
      std::snprintf(name, sizeof name, "bench_%04d.exr", i);
      if (!write_exr((dir / name).string(), width, height, {{"", kRgba, f.beauty}},
                     {i % 2 == 0 ? "zip" : "piz", TypeDesc::HALF, 0}))
        ++failures;
    }
  };
  const unsigned threads = std::max(1u, std::min(unsigned(count), std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return failures == 0 ? 0 : 1;
}

int usage() {
  std::cerr << "usage: gpuproc-make-samples samples OUTDIR\n"
               "       gpuproc-make-samples bench OUTDIR N WIDTH HEIGHT\n"
               "       gpuproc-make-samples bench-noise OUTDIR N WIDTH HEIGHT\n"
               "       gpuproc-make-samples pnm-samples OUTDIR\n"
               "       gpuproc-make-samples pnm-bench OUTDIR N [THREADS]\n"
               "       gpuproc-make-samples stitch-samples OUTDIR\n"
               "       gpuproc-make-samples stitch-bench OUTDIR N [WIDTH]\n"
               "       gpuproc-make-samples video-samples OUTDIR\n"
               "       gpuproc-make-samples rig-scene OUTDIR [WIDTH [FRAMES]]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 2 && args[0] == "samples") return make_samples(args[1]);
    if (args.size() == 5 && (args[0] == "bench" || args[0] == "bench-noise")) {
      const int n = std::stoi(args[2]), w = std::stoi(args[3]), h = std::stoi(args[4]);
      if (n < 1 || w < 1 || h < 1) return usage();
      return make_bench(args[1], n, w, h, args[0] == "bench-noise");
    }
    if (args.size() == 2 && args[0] == "pnm-samples") return gp::samples::make_pnm_samples(args[1]);
    if ((args.size() == 3 || args.size() == 4) && args[0] == "pnm-bench") {
      const int n = std::stoi(args[2]), threads = args.size() == 4 ? std::stoi(args[3]) : 0;
      if (n < 8 || threads < 0) return usage();
      return gp::samples::make_pnm_bench(args[1], n, threads);
    }
    if (args.size() == 2 && args[0] == "stitch-samples") return gp::samples::make_stitch_samples(args[1]);
    if ((args.size() == 3 || args.size() == 4) && args[0] == "stitch-bench") {
      const int n = std::stoi(args[2]), width = args.size() == 4 ? std::stoi(args[3]) : 7680;
      if (n < 1 || width < 64 || width % 2 != 0) return usage();
      return gp::samples::make_stitch_bench(args[1], n, width);
    }
    if (args.size() == 2 && args[0] == "video-samples") return gp::samples::make_video_samples(args[1]);
    if (args.size() >= 2 && args.size() <= 4 && args[0] == "rig-scene") {
      const int width = args.size() >= 3 ? std::stoi(args[2]) : 2048, frames = args.size() == 4 ? std::stoi(args[3]) : 4;
      if (width < 64 || width % 4 != 0 || frames < 1) return usage();
      return gp::samples::make_rig_scene(args[1], width, frames);
    }
  } catch (const std::exception& e) {
    std::cerr << "gpuproc-make-samples: " << e.what() << "\n";
    return 1;
  }
  return usage();
}
