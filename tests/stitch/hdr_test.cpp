// stitch-360's float (HDR) projections on the CPU: the same kernels as 8-bit (a float copy of an
// 8-bit panorama projects to the same values before rounding), nothing clipped (the sun's
// radiance survives every mode), an equirect -> cubemap -> equirect round trip keeping each
// face's mean radiance, and (where ffmpeg is installed) agreement with v360, which in FFmpeg 5.1
// has no float formats: it is compared in 16 bits on the panorama scaled into 0..1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/error.hpp"
#include "cuda/stitch/project.hpp"
#include "stitch/ffmpeg_v360.hpp"
#include "stitch/hdr_images.hpp"
#include "stitch/projection_images.hpp"
#include "support/test_data.hpp"

using namespace gp::stitch;
using gp::stitch::test::FloatImage;
using gp::stitch::test::HostImage;

namespace {

SampleOptions bilinear() {
  SampleOptions o;
  o.interp = Interp::bilinear;
  return o;
}

CubeFaces face_views(std::vector<FloatImage>& faces, int n) {
  CubeFaces views;
  faces.clear();
  for (int f = 0; f < cube_face_count; ++f) faces.emplace_back(n, n, 3);
  for (int f = 0; f < cube_face_count; ++f) views[f] = faces[std::size_t(f)].view;
  return views;
}

float max_value(const FloatImage& img) { return *std::max_element(img.pixels.begin(), img.pixels.end()); }

}  // namespace

TEST_CASE("float panoramas project like 8-bit ones, unrounded", "[stitch][hdr]") {
  const HostImage pano8 = gp::stitch::test::textured_equirect(512, 256, 3);
  FloatImage pano(512, 256, 3);
  for (std::size_t i = 0; i < pano.pixels.size(); ++i) pano.pixels[i] = float(pano8.pixels[i]);
  for (const Interp interp : {Interp::nearest, Interp::bilinear, Interp::bicubic, Interp::lanczos3}) {
    SampleOptions o = bilinear();
    o.interp = interp;
    const Camera cam = make_camera(20, 10, 5, 100, 160, 120);
    HostImage view8(160, 120, 3);
    FloatImage view(160, 120, 3);
    equirect_to_perspective_cpu(pano8.view, cam, view8.view, {}, o);
    equirect_to_perspective_cpu(pano.view, cam, view.view, {}, o);
    for (std::size_t i = 0; i < view.pixels.size(); ++i) REQUIRE(to_u8(view.pixels[i]) == view8.pixels[i]);
  }
}

TEST_CASE("float outputs keep values above 1 in every mode", "[stitch][hdr]") {
  const FloatImage pano = gp::stitch::test::hdr_equirect(1024, 512);
  const float peak = max_value(pano);
  REQUIRE(peak > 0.9f * gp::stitch::test::sun_radiance);
  // A view facing the sun: its centre at the sun's radiance, many pixels above 1.
  const Camera cam = make_camera(20, 15, 0, 60, 256, 256);
  FloatImage view(256, 256, 3);
  equirect_to_perspective_cpu(pano.view, cam, view.view, {}, bilinear());
  CHECK(view.px(128, 128)[0] > 0.9f * peak);
  long above_one = 0;
  for (float v : view.pixels) above_one += v > 1.0f;
  CHECK(above_one > 1000);  // the 8-bit path saturates all of these
  // Cube faces: the sun lands on one face whole, its peak kept.
  std::vector<FloatImage> faces;
  const CubeFaces cube = face_views(faces, 256);
  equirect_to_cubemap_cpu(pano.view, cube, bilinear());
  float brightest = 0;
  for (const FloatImage& f : faces) brightest = std::max(brightest, max_value(f));
  CHECK(brightest > 0.9f * peak);
  // Back to equirect: the sun again.
  FloatImage back(1024, 512, 3);
  cubemap_to_equirect_cpu(cube, back.view, {}, bilinear());
  CHECK(max_value(back) > 0.9f * peak);
}

TEST_CASE("equirect -> cubemap -> equirect in float keeps each face's mean radiance within 0.5%", "[stitch][hdr]") {
  const int w = 2048, h = 1024, n = 512;
  const FloatImage pano = gp::stitch::test::hdr_equirect(w, h);
  std::vector<FloatImage> faces;
  const CubeFaces cube = face_views(faces, n);
  equirect_to_cubemap_cpu(pano.view, cube, bilinear());
  FloatImage back(w, h, 3);
  cubemap_to_equirect_cpu(cube, back.view, {}, bilinear());
  // Mean radiance over each face's solid angle (equirect pixels weighted by cos(latitude)),
  // before and after; the sun's face included.
  double before[6][3] = {}, after[6][3] = {}, weight[6] = {};
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      double d[3];
      gp::stitch::test::equirect_pixel_direction(i, j, w, h, d);
      const int face = cube_face_of(Vec3{float(d[0]), float(d[1]), float(d[2])});
      const double cos_lat = std::sqrt(d[0] * d[0] + d[2] * d[2]);
      weight[face] += cos_lat;
      for (int c = 0; c < 3; ++c) {
        before[face][c] += cos_lat * pano.px(i, j)[c];
        after[face][c] += cos_lat * back.px(i, j)[c];
      }
    }
  for (int f = 0; f < 6; ++f)
    for (int c = 0; c < 3; ++c) {
      INFO("face " << f << " channel " << c << ": mean " << before[f][c] / weight[f] << " -> " << after[f][c] / weight[f]);
      CHECK(std::abs(after[f][c] / before[f][c] - 1.0) < 0.005);
    }
}

TEST_CASE("float views agree with ffmpeg's v360 (16 bits, the panorama scaled into 0..1)", "[stitch][hdr][ffmpeg]") {
  if (!gp::stitch::test::have_ffmpeg()) {
    WARN("ffmpeg not installed: comparison with v360 skipped");
    return;
  }
  // FFmpeg 5.1's v360 takes no float formats (it negotiates gbrp16le): the HDR panorama divided by
  // its peak goes in as 16-bit RGB and our float view of the same scaled panorama is compared at
  // 16 bits. The sun is left out (its edge alone would dominate the error).
  const int w = 1024, h = 512, vw = 320, vh = 240;
  FloatImage pano = gp::stitch::test::hdr_equirect(w, h);
  for (float& v : pano.pixels) v = std::min(v, 4.0f) / 4.0f;
  const auto dir = gp::test::scratch_dir("v360_hdr");
  {
    std::ofstream raw(dir / "in.rgb48", std::ios::binary);
    for (float v : pano.pixels) {
      const auto q = std::uint16_t(std::lround(v * 65535.0f));
      raw.put(char(q & 0xff)).put(char(q >> 8));
    }
  }
  const std::string cmd = "ffmpeg -v error -y -f rawvideo -pix_fmt rgb48le -s " + std::to_string(w) + "x" +
                          std::to_string(h) + " -i '" + (dir / "in.rgb48").string() +
                          "' -vf 'v360=e:flat:yaw=-40:pitch=10:h_fov=90:v_fov=73.7398:w=320:h=240:interp=linear' "
                          "-f rawvideo -pix_fmt rgb48le '" + (dir / "out.rgb48").string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream out(dir / "out.rgb48", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() == std::size_t(vw) * vh * 6);
  FloatImage view(vw, vh, 3);
  const double fx = (vw / 2.0) / std::tan(45.0 * 3.14159265358979323846 / 180.0);
  equirect_to_perspective_cpu(pano.view, make_camera_focal(-40, 10, 0, fx, vw, vh), view.view, {}, bilinear());
  double sum = 0;
  for (std::size_t i = 0; i < view.pixels.size(); ++i) {
    const double expected = (std::uint8_t(bytes[2 * i]) | (std::uint8_t(bytes[2 * i + 1]) << 8)) / 65535.0;
    const double d = double(view.pixels[i]) - expected;
    sum += d * d;
  }
  const double psnr = 10.0 * std::log10(1.0 / (sum / double(view.pixels.size())));
  INFO("PSNR against v360 at 16 bits: " << psnr << " dB");
  CHECK(psnr >= 45.0);
  std::filesystem::remove_all(dir);
}
