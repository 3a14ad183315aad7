// stitch-360 projections on the CPU: the float math against double precision, the axis and sign
// conventions (known directions land on the expected pixels, as ffmpeg's v360 puts them), the
// cube faces and layouts, an equirect -> cubemap -> equirect round trip, interpolation exactness
// on constant images, antialiasing on a fine checkerboard, the dual-fisheye model and its
// feathered seam, masks, batches, argument errors, and (where ffmpeg is installed) our views
// against `ffmpeg -vf v360`.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "cuda/stitch/project.hpp"
#include "stitch/ffmpeg_v360.hpp"
#include "stitch/projection_images.hpp"
#include "support/test_data.hpp"

using namespace gp::stitch;
using gp::stitch::test::HostImage;

namespace {

constexpr double pi = 3.14159265358979323846;

SampleOptions options(Interp interp, int max_subsamples = 8, EquirectScale scale = EquirectScale::ffmpeg) {
  SampleOptions o;
  o.interp = interp;
  o.max_subsamples = max_subsamples;
  o.equirect_scale = scale;
  return o;
}

// Source whose pixels name themselves: (x & 255, x >> 8, y & 255, y >> 8).
HostImage coordinate_image(int w, int h) {
  HostImage img(w, h, 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = img.px(x, y);
      p[0] = std::uint8_t(x & 255);
      p[1] = std::uint8_t(x >> 8);
      p[2] = std::uint8_t(y & 255);
      p[3] = std::uint8_t(y >> 8);
    }
  return img;
}
int decoded_x(const HostImage& img, int x, int y) { return img.px(x, y)[0] + 256 * img.px(x, y)[1]; }
int decoded_y(const HostImage& img, int x, int y) { return img.px(x, y)[2] + 256 * img.px(x, y)[3]; }

// The source pixel a view's pixel (x, y) takes with nearest sampling and no antialiasing.
struct Hit {
  int u, v;
};
Hit view_hit(const HostImage& coords, const Camera& cam, int x, int y, EquirectScale scale = EquirectScale::ffmpeg) {
  HostImage view(cam.width, cam.height, 4);
  equirect_to_perspective_cpu(coords.view, cam, view.view, gp::ImageView{}, options(Interp::nearest, 1, scale));
  return Hit{decoded_x(view, x, y), decoded_y(view, x, y)};
}

Vec3 rotated(const Mat3& r, double x, double y, double z) { return rotate(r, Vec3{float(x), float(y), float(z)}); }

}  // namespace

TEST_CASE("float math of the projections against double precision", "[stitch]") {
  double atan2_error = 0, asin_error = 0, acos_error = 0, sincos_error = 0, sinpi_error = 0;
  for (int i = 0; i <= 20000; ++i) {
    const double a = -pi + 2 * pi * i / 20000.0;
    const float y = float(std::sin(a) * (1 + 0.37 * (i % 7))), x = float(std::cos(a) * (1 + 0.37 * (i % 7)));
    atan2_error = std::max(atan2_error, std::fabs(double(atan2_f(y, x)) - std::atan2(double(y), double(x))));
    const float t = float(-1.0 + 2.0 * i / 20000.0);
    asin_error = std::max(asin_error, std::fabs(double(asin_f(t)) - std::asin(double(t))));
    acos_error = std::max(acos_error, std::fabs(double(acos_f(t)) - std::acos(double(t))));
    const float r = float(-4 * pi + 8 * pi * i / 20000.0);
    float s, c;
    sincos_f(r, s, c);
    sincos_error = std::max({sincos_error, std::fabs(s - std::sin(double(r))), std::fabs(c - std::cos(double(r)))});
    const float q = float(-3.0 + 6.0 * i / 20000.0);
    sinpi_error = std::max(sinpi_error, std::fabs(double(sin_pi_f(q)) - std::sin(pi * double(q))));
  }
  CHECK(atan2_error < 4e-7);
  CHECK(asin_error < 4e-7);
  CHECK(acos_error < 4e-7);
  CHECK(sincos_error < 3e-7);
  CHECK(sinpi_error < 3e-7);
  CHECK(sin_pi_f(2.0f) == 0.0f);
  CHECK(sin_pi_f(-1.0f) == 0.0f);
  CHECK(atan2_f(0.0f, 0.0f) == 0.0f);
  CHECK(atan2_f(0.0f, -1.0f) == Approx(pi));
}

TEST_CASE("rotations follow v360: +yaw right, +pitch up, +roll turns the view's right edge down", "[stitch]") {
  const Vec3 yaw = rotated(rotation_from_ypr(90, 0, 0), 0, 0, 1);
  CHECK(yaw.x == Approx(1).margin(1e-6));
  CHECK(yaw.z == Approx(0).margin(1e-6));
  const Vec3 pitch = rotated(rotation_from_ypr(0, 90, 0), 0, 0, 1);
  CHECK(pitch.y == Approx(-1).margin(1e-6));  // +y is down: -1 is the zenith
  const Vec3 roll = rotated(rotation_from_ypr(0, 0, 90), 1, 0, 0);
  CHECK(roll.y == Approx(1).margin(1e-6));  // the view's right edge looks down
  // Order: R = Ry(yaw) Rx(pitch) Rz(roll); the optical axis ignores roll, pitch then yaw.
  const Vec3 axis = rotated(rotation_from_ypr(30, 20, 70), 0, 0, 1);
  CHECK(axis.x == Approx(std::cos(20 * pi / 180) * std::sin(30 * pi / 180)).margin(1e-6));
  CHECK(axis.y == Approx(-std::sin(20 * pi / 180)).margin(1e-6));
  CHECK(axis.z == Approx(std::cos(20 * pi / 180) * std::cos(30 * pi / 180)).margin(1e-6));
}

TEST_CASE("cameras: focal length from the horizontal FOV, square pixels, centred principal point", "[stitch]") {
  const Camera c = make_camera(0, 0, 0, 90, 1920, 1080);
  CHECK(c.fx == Approx(960.0));
  CHECK(c.fy == c.fx);
  CHECK(c.cx == 959.5f);
  CHECK(c.cy == 539.5f);
  CHECK(camera_h_fov_deg(c) == Approx(90.0));
  CHECK(camera_v_fov_deg(c) == Approx(2 * std::atan(1080.0 / 1920.0) * 180 / pi));
  CHECK(make_camera_focal(0, 0, 0, 500, 800, 600).fx == 500.0f);
  CHECK_THROWS_AS(make_camera(0, 0, 0, 180, 100, 100), gp::Error);
  CHECK_THROWS_AS(make_camera(0, 0, 0, 90, 0, 100), gp::Error);
}

TEST_CASE("known directions land on the expected equirect pixels", "[stitch]") {
  // Odd sizes, so the expected positions ((W - 1) t) are whole pixels.
  const int w = 1001, h = 501;
  const HostImage coords = coordinate_image(w, h);
  auto centre = [&](double yaw, double pitch, double roll, EquirectScale scale = EquirectScale::ffmpeg) {
    return view_hit(coords, make_camera(yaw, pitch, roll, 60, 33, 33), 16, 16, scale);
  };
  SECTION("yaw 0 pitch 0: the centre of the panorama") {
    const Hit hit = centre(0, 0, 0);
    CHECK(hit.u == 500);
    CHECK(hit.v == 250);
  }
  SECTION("yaw +90 looks a quarter turn to the right, -90 to the left, 180 at the seam") {
    CHECK(centre(90, 0, 0).u == 750);  // v360: (W - 1) * 3/4
    CHECK(centre(-90, 0, 0).u == 250);
    const int back = centre(180, 0, 0).u;
    CHECK((back == 0 || back == 1000));
    CHECK(centre(90, 0, 0, EquirectScale::exact).u == 750);  // 1001 * 3/4 - 1/2 = 750.25
  }
  SECTION("pitch +90 is the zenith (top row), -90 the nadir, +45 a quarter of the way down") {
    CHECK(centre(0, 90, 0).v == 0);
    CHECK(centre(0, -90, 0).v == 500);
    CHECK(centre(0, 45, 0).v == 125);
    CHECK(centre(37, 45, 0).u == 603);  // 500 + 1000 * 37 / 360 = 602.8
  }
  SECTION("roll +90: the view's right half looks down") {
    const Camera cam = make_camera(0, 0, 90, 60, 33, 33);
    const Hit right = view_hit(coords, cam, 32, 16);
    CHECK(right.u == 500);
    CHECK(right.v > 250 + 60);
    const Hit below = view_hit(coords, cam, 16, 32);
    CHECK(below.v == 250);
    CHECK(below.u < 500 - 60);  // the view's bottom looks left
  }
  SECTION("view axes: x right, y down") {
    const Camera cam = make_camera(0, 0, 0, 90, 33, 33);
    CHECK(view_hit(coords, cam, 32, 16).u > 600);
    CHECK(view_hit(coords, cam, 16, 32).v > 300);
    // Edge pixel of a 90 deg view: 45 deg minus half a pixel's angle to the right.
    const double angle = std::atan((32 - 16) / (33 / 2.0)) * 180 / pi;
    CHECK(view_hit(coords, cam, 32, 16).u == std::lround(500 + 1000 * angle / 360));
  }
}

TEST_CASE("cube faces: centres on the axes, v360's orientation", "[stitch]") {
  const int w = 1001, h = 501, n = 33;
  const HostImage coords = coordinate_image(w, h);
  struct Expected {
    CubeFace face;
    int u, v;
  };
  const Expected expected[] = {{CubeFace::right, 750, 250}, {CubeFace::left, 250, 250}, {CubeFace::up, -1, 0},
                               {CubeFace::down, -1, 500},   {CubeFace::front, 500, 250}, {CubeFace::back, 1000, 250}};
  for (const Expected& e : expected) {
    HostImage face(n, n, 4);
    equirect_to_cubemap_face_cpu(coords.view, e.face, face.view, options(Interp::nearest, 1));
    INFO("face " << int(e.face));
    if (e.u >= 0) {
      const int u = decoded_x(face, 16, 16);
      CHECK((u == e.u || (e.u == 1000 && u == 0)));
    }
    CHECK(decoded_y(face, 16, 16) == e.v);
  }
  // Orientation: on the front face +a is right; the up face's bottom edge meets the front face,
  // the down face's top edge too; the right face's left edge meets the front.
  HostImage front(n, n, 4), up(n, n, 4), down(n, n, 4), right(n, n, 4);
  const SampleOptions o = options(Interp::nearest, 1);
  equirect_to_cubemap_face_cpu(coords.view, CubeFace::front, front.view, o);
  equirect_to_cubemap_face_cpu(coords.view, CubeFace::up, up.view, o);
  equirect_to_cubemap_face_cpu(coords.view, CubeFace::down, down.view, o);
  equirect_to_cubemap_face_cpu(coords.view, CubeFace::right, right.view, o);
  CHECK(decoded_x(front, 32, 16) > 600);
  CHECK(decoded_y(front, 16, 32) > 300);
  CHECK(decoded_x(up, 16, 32) == 500);
  CHECK(std::abs(decoded_y(up, 16, 32) - 125) <= 3);  // 45 deg up, half a face pixel short
  CHECK(decoded_x(down, 16, 0) == 500);
  CHECK(std::abs(decoded_y(down, 16, 0) - 375) <= 3);
  CHECK(std::abs(decoded_x(right, 0, 16) - 625) <= 3);  // 45 deg right
}

TEST_CASE("cube layouts as v360: c3x2 r l u / d f b, c6x1 and c1x6", "[stitch]") {
  HostImage layout(3 * 8, 2 * 8, 3);
  const CubeFaces faces = cube_layout_faces(layout.view, CubeLayout::c3x2);
  auto offset = [&](const gp::ImageView& v) { return static_cast<std::uint8_t*>(v.data) - layout.pixels.data(); };
  CHECK(offset(faces[0]) == 0);                            // right: top left
  CHECK(offset(faces[2]) == 2 * 8 * 3);                    // up: top right
  CHECK(offset(faces[3]) == 8 * long(layout.view.pitch));  // down: bottom left
  CHECK(offset(faces[4]) == 8 * long(layout.view.pitch) + 8 * 3);  // front: bottom middle
  CHECK(faces[5].width == 8);
  CHECK(faces[5].pitch == layout.view.pitch);
  CHECK(cube_layout_width(CubeLayout::c6x1, 8) == 48);
  CHECK(cube_layout_height(CubeLayout::c1x6, 8) == 48);
  HostImage column(8, 48, 1);
  CHECK(static_cast<std::uint8_t*>(cube_layout_face(column.view, CubeLayout::c1x6, 4).data) - column.pixels.data() ==
        4 * 8 * 8);
  HostImage odd(25, 16, 3);
  CHECK_THROWS_AS(cube_layout_faces(odd.view, CubeLayout::c3x2), gp::Error);
}

TEST_CASE("equirect -> cubemap -> equirect round trip", "[stitch]") {
  const int w = 1024, h = 512, n = w / 4;
  for (double detail : {1.0, 3.0})
  for (EquirectScale scale : {EquirectScale::ffmpeg, EquirectScale::exact})
    for (Interp interp : {Interp::bilinear, Interp::bicubic, Interp::lanczos3}) {
      const HostImage pano = gp::stitch::test::textured_equirect(w, h, 3, detail);
      HostImage layout(cube_layout_width(CubeLayout::c3x2, n), cube_layout_height(CubeLayout::c3x2, n), 3);
      const CubeFaces faces = cube_layout_faces(layout.view, CubeLayout::c3x2);
      const SampleOptions o = options(interp, 8, scale);
      equirect_to_cubemap_cpu(pano.view, faces, o);
      HostImage back(w, h, 3);
      cubemap_to_equirect_cpu(faces, back.view, gp::ImageView{}, o);
      const double db = gp::stitch::test::psnr(pano, back);
      std::printf("round trip e %dx%d (detail %.0f) -> cube %d -> e, %s, %s scale: PSNR %.2f dB\n", w, h, detail, n,
                  interp == Interp::bilinear ? "bilinear" : interp == Interp::bicubic ? "bicubic" : "lanczos3",
                  scale == EquirectScale::ffmpeg ? "v360" : "exact", db);
      // Measured here (bilinear / bicubic / Lanczos-3): detail 1: 49.9 / 49.8 / 49.7 dB with v360's
      // scale, 58.8 / 58.4 / 57.6 dB exact; detail 3: 41.3 / 41.4 / 41.4 and 52.6 / 58.0 / 56.9 dB.
      // v360's scale loses most: the cube samples longitudes squeezed by (W-1)/W, the equirect
      // output puts them back at the true pixel centres (v360 does the same).
      const bool exact = scale == EquirectScale::exact;
      CHECK(db >= (detail == 1.0 ? (exact ? 57.0 : 48.5) : (exact ? 52.0 : 40.5)));
    }
}

TEST_CASE("bicubic and Lanczos-3 (and the others) reproduce a constant image exactly", "[stitch]") {
  for (int value : {0, 1, 77, 200, 254, 255})
    for (Interp interp : {Interp::nearest, Interp::bilinear, Interp::bicubic, Interp::lanczos3}) {
      const HostImage pano = gp::stitch::test::constant_image(256, 128, 3, std::uint8_t(value));
      const HostImage expected = gp::stitch::test::constant_image(48, 48, 3, std::uint8_t(value));
      HostImage view(48, 48, 3);
      equirect_to_perspective_cpu(pano.view, make_camera(33, 71, -20, 100, 48, 48), view.view, gp::ImageView{},
                                  options(interp));
      CHECK(gp::stitch::test::max_difference(view, expected) == 0);
      HostImage face(48, 48, 3);
      equirect_to_cubemap_face_cpu(pano.view, CubeFace::up, face.view, options(interp));
      CHECK(gp::stitch::test::max_difference(face, expected) == 0);
      CubeFaces faces;
      faces.fill(face.view);
      HostImage back(96, 48, 3);
      cubemap_to_equirect_cpu(faces, back.view, gp::ImageView{}, options(interp));
      CHECK(gp::stitch::test::max_difference(back, gp::stitch::test::constant_image(96, 48, 3, std::uint8_t(value))) == 0);
    }
}

TEST_CASE("antialiasing averages a fine checkerboard that point sampling aliases", "[stitch]") {
  // 1-pixel checkerboard; a 90 deg view 64 pixels wide covers ~10 source pixels per view pixel.
  HostImage checker(2048, 1024, 1);
  for (int y = 0; y < 1024; ++y)
    for (int x = 0; x < 2048; ++x) checker.px(x, y)[0] = ((x + y) & 1) ? 255 : 0;
  auto deviation = [&](int max_subsamples, Interp interp) {
    HostImage view(64, 64, 1);
    equirect_to_perspective_cpu(checker.view, make_camera(10, 5, 0, 90, 64, 64), view.view, gp::ImageView{},
                                options(interp, max_subsamples));
    double sum = 0;
    for (int y = 0; y < 64; ++y)
      for (int x = 0; x < 64; ++x) sum += (view.px(x, y)[0] - 127.5) * (view.px(x, y)[0] - 127.5);
    return std::sqrt(sum / (64 * 64));
  };
  const double point = deviation(1, Interp::nearest), point_bilinear = deviation(1, Interp::bilinear);
  const double area = deviation(8, Interp::nearest), area_bilinear = deviation(8, Interp::bilinear);
  std::printf("checkerboard RMS deviation from grey: nearest %.1f -> %.1f with antialiasing, bilinear %.1f -> %.1f\n",
              point, area, point_bilinear, area_bilinear);
  CHECK(point > 100);
  CHECK(area < 20);
  CHECK(area_bilinear < 20);
  CHECK(area_bilinear < point_bilinear / 3);
}

TEST_CASE("antialiasing leaves views at the panorama's resolution alone", "[stitch]") {
  // 90 deg views 1/4 of the panorama wide sample about one source pixel per view pixel on the
  // horizon: subsampling there would only blur. Same result with and without it near the centre.
  const HostImage pano = gp::stitch::test::textured_equirect(1024, 512, 3, 3.0);
  HostImage with(256, 256, 3), without(256, 256, 3);
  const Camera cam = make_camera(0, 0, 0, 90, 256, 256);
  equirect_to_perspective_cpu(pano.view, cam, with.view, gp::ImageView{}, options(Interp::bilinear, 8));
  equirect_to_perspective_cpu(pano.view, cam, without.view, gp::ImageView{}, options(Interp::bilinear, 1));
  long same = 0;
  for (int y = 96; y < 160; ++y)
    for (int x = 96; x < 160; ++x) same += std::equal(with.px(x, y), with.px(x, y) + 3, without.px(x, y));
  CHECK(same == 64 * 64);
}

namespace {

// Renders a dual-fisheye frame from a function of the direction through the lens model (the
// inverse of what dual_fisheye_to_equirect samples): per lens, pixel -> (theta, azimuth) -> d.
HostImage render_dual_fisheye(const DualFisheye& rig, int w, int h,
                              const std::function<double(const double*, int, int)>& f) {
  HostImage img(w, h, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < 2; ++k) {
        const FisheyeLens& lens = rig.lens[k];
        if (x < lens.clip[0] || x > lens.clip[2] || y < lens.clip[1] || y > lens.clip[3]) continue;
        const double dx = x - lens.cx, dy = y - lens.cy, r = std::hypot(dx, dy);
        double theta = r / lens.px_per_rad;
        if (lens.k[0] != 0) {  // invert the polynomial by Newton steps
          theta = r / lens.k[0];
          for (int i = 0; i < 20; ++i) {
            const double t = theta, p = ((lens.k[3] * t + lens.k[2]) * t + lens.k[1]) * t * t + lens.k[0] * t;
            const double dp = ((4 * lens.k[3] * t + 3 * lens.k[2]) * t + 2 * lens.k[1]) * t + lens.k[0];
            theta -= (p - r) / dp;
          }
        }
        if (theta > lens.half_fov + 0.02) continue;
        const double s = r > 0 ? std::sin(theta) / r : 0;
        const double local[3] = {dx * s, dy * s, std::cos(theta)};
        double d[3];
        for (int i = 0; i < 3; ++i)
          d[i] = lens.rotation.m[3 * i] * local[0] + lens.rotation.m[3 * i + 1] * local[1] +
                 lens.rotation.m[3 * i + 2] * local[2];
        for (int c = 0; c < 3; ++c) img.px(x, y)[c] = gp::stitch::test::to_byte(f(d, c, k));
      }
  return img;
}

}  // namespace

TEST_CASE("dual fisheye to equirect: equidistant and polynomial lenses", "[stitch]") {
  const int fw = 1024, fh = 512, w = 1024, h = 512;
  auto texture = [](const double* d, int c, int) { return gp::stitch::test::sphere_texture(d, c); };
  const HostImage truth = gp::stitch::test::textured_equirect(w, h, 3);
  SECTION("v360 layout, 190 deg lenses") {
    const DualFisheye rig = dual_fisheye_v360(fw, fh, 190);
    const HostImage frame = render_dual_fisheye(rig, fw, fh, texture);
    HostImage pano(w, h, 3);
    dual_fisheye_to_equirect_cpu(frame.view, rig, pano.view, gp::ImageView{}, options(Interp::bilinear));
    const double db = gp::stitch::test::psnr(truth, pano);
    std::printf("dual fisheye (v360 layout, 190 deg) -> equirect vs the texture: PSNR %.2f dB\n", db);
    CHECK(db > 30);
  }
  SECTION("tilted lenses, off-centre, polynomial r(theta)") {
    DualFisheye rig;
    const double k[4] = {150.0, 8.0, -6.0, 0.5};  // r(theta) in pixels, increasing up to theta 1.7
    const double radius = ((0.5 * 1.7 - 6.0) * 1.7 + 8.0) * 1.7 * 1.7 + 150.0 * 1.7;  // r(1.7) = 252.8
    rig.lens[0] = make_fisheye_lens(766, 255, radius, 2 * 1.7 * 180 / pi, 5, 3, 2, fw, fh, k);
    rig.lens[1] = make_fisheye_lens(258, 257, radius, 2 * 1.7 * 180 / pi, 183, -2, -1, fw, fh, k);
    rig.lens[0].clip[0] = 512;
    rig.lens[1].clip[2] = 511;
    const HostImage frame = render_dual_fisheye(rig, fw, fh, texture);
    HostImage pano(w, h, 3);
    dual_fisheye_to_equirect_cpu(frame.view, rig, pano.view, gp::ImageView{}, options(Interp::bicubic));
    const double db = gp::stitch::test::psnr(truth, pano);
    std::printf("dual fisheye (polynomial, tilted) -> equirect vs the texture: PSNR %.2f dB\n", db);
    CHECK(db > 28);
  }
  SECTION("the polynomial k1 = px/rad is the equidistant model") {
    const DualFisheye rig = dual_fisheye_v360(fw, fh, 200);
    DualFisheye poly = rig;
    for (auto& lens : poly.lens) lens.k[0] = lens.px_per_rad;
    const HostImage frame = render_dual_fisheye(rig, fw, fh, texture);
    HostImage a(w, h, 3), b(w, h, 3);
    dual_fisheye_to_equirect_cpu(frame.view, rig, a.view, gp::ImageView{}, options(Interp::bilinear));
    dual_fisheye_to_equirect_cpu(frame.view, poly, b.view, gp::ImageView{}, options(Interp::bilinear));
    CHECK(gp::stitch::test::max_difference(a, b) <= 1);
  }
}

TEST_CASE("dual fisheye seam: weights ramp linearly across the overlap", "[stitch]") {
  // Lens 0 sees grey 60, lens 1 grey 180: across the 190 deg lenses' 10 deg overlap (directions
  // within 5 deg of the plane z = 0) the output ramps linearly from 60 to 180.
  const int fw = 2048, fh = 1024, w = 1440, h = 720;
  const DualFisheye rig = dual_fisheye_v360(fw, fh, 190);
  const HostImage frame = render_dual_fisheye(rig, fw, fh, [](const double*, int, int k) { return k == 0 ? 60 : 180; });
  HostImage pano(w, h, 3);
  dual_fisheye_to_equirect_cpu(frame.view, rig, pano.view, gp::ImageView{}, options(Interp::bilinear));
  // Along the equator, longitude phi: angle from the seam plane alpha = 90 - |phi| (degrees).
  const int y = h / 2;
  double worst = 0;
  for (int x = 0; x < w; ++x) {
    const double phi = ((2.0 * x + 1.0) / w - 1.0) * 180.0, alpha = 90.0 - std::fabs(phi);
    const double w0 = std::fmin(1.0, std::fmax(0.0, (5.0 + alpha) / 10.0));
    worst = std::max(worst, std::fabs(pano.px(x, y)[0] - (60.0 * w0 + 180.0 * (1.0 - w0))));
  }
  CHECK(worst <= 1.0);
  SECTION("a narrower blend band") {
    DualFisheye narrow = rig;
    narrow.blend_deg = 4;
    dual_fisheye_to_equirect_cpu(frame.view, narrow, pano.view, gp::ImageView{}, options(Interp::bilinear));
    double narrow_worst = 0;
    for (int x = 0; x < w; ++x) {
      const double phi = ((2.0 * x + 1.0) / w - 1.0) * 180.0, alpha = 90.0 - std::fabs(phi);
      const double w0 = std::fmin(1.0, std::fmax(0.0, 0.5 + alpha / 4.0));
      narrow_worst = std::max(narrow_worst, std::fabs(pano.px(x, y)[0] - (60.0 * w0 + 180.0 * (1.0 - w0))));
    }
    CHECK(narrow_worst <= 1.0);
  }
}

TEST_CASE("masks zero the output where they are 0", "[stitch]") {
  const HostImage pano = gp::stitch::test::textured_equirect(512, 256, 3);
  const Camera cam = make_camera(0, -60, 0, 90, 40, 30);
  HostImage mask(40, 30, 1), plain(40, 30, 3), masked(40, 30, 3);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) mask.px(x, y)[0] = y < 20 ? 255 : 0;  // drop the bottom (tripod)
  equirect_to_perspective_cpu(pano.view, cam, plain.view, gp::ImageView{}, options(Interp::bilinear));
  equirect_to_perspective_cpu(pano.view, cam, masked.view, mask.view, options(Interp::bilinear));
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x)
      for (int c = 0; c < 3; ++c) {
        if (y < 20) REQUIRE(masked.px(x, y)[c] == plain.px(x, y)[c]);
        else REQUIRE(masked.px(x, y)[c] == 0);
      }
  HostImage wrong(39, 30, 1);
  CHECK_THROWS_AS(equirect_to_perspective_cpu(pano.view, cam, masked.view, wrong.view, options(Interp::bilinear)),
                  gp::Error);
}

TEST_CASE("a batch of views equals the views one by one", "[stitch]") {
  const HostImage pano = gp::stitch::test::textured_equirect(800, 400, 3);
  std::vector<HostImage> batch, single;
  std::vector<PerspectiveTarget> targets;
  for (int i = 0; i < 5; ++i) {
    const Camera cam = make_camera(72.0 * i, i == 4 ? 90 : 0, 0, 90, 60 + 4 * i, 50);
    batch.emplace_back(cam.width, cam.height, 3, 16);
    single.emplace_back(cam.width, cam.height, 3);
    equirect_to_perspective_cpu(pano.view, cam, single.back().view, gp::ImageView{}, options(Interp::bicubic));
    targets.push_back(PerspectiveTarget{cam, gp::ImageView{}, gp::ImageView{}});
  }
  for (int i = 0; i < 5; ++i) targets[i].dst = batch[i].view;
  equirect_to_perspective_batch_cpu(pano.view, targets.data(), 5, options(Interp::bicubic));
  for (int i = 0; i < 5; ++i) CHECK(gp::stitch::test::max_difference(batch[i], single[i]) == 0);
}

TEST_CASE("views through a remap table equal the views located pixel by pixel", "[stitch]") {
  // Small panorama and large views (antialiasing off where the views magnify) and a large
  // panorama with small views (sub-sampled pixels: the table marks them, they are rendered in
  // full); every interpolation, taps across the seam and the poles, a mask, 1 and 3 channels.
  for (int channels : {1, 3})
    for (const auto& size : {std::make_pair(320, 160), std::make_pair(1600, 800)}) {
      const HostImage pano = gp::stitch::test::textured_equirect(size.first, size.second, channels, 3.0);
      const Camera cams[] = {make_camera(0, 0, 0, 90, 97, 83), make_camera(175, 80, 10, 100, 64, 64),
                             make_camera(-60, -89, 0, 120, 50, 70)};
      HostImage mask(97, 83, 1);
      for (int y = 0; y < 83; ++y)
        for (int x = 0; x < 97; ++x) mask.px(x, y)[0] = (x + 2 * y) % 7 ? 255 : 0;
      for (Interp m : {Interp::nearest, Interp::bilinear, Interp::bicubic, Interp::lanczos3})
        for (int max_sub : {1, 8}) {
          INFO(channels << " channels, panorama " << size.first << ", interpolation " << int(m) << ", max_subsamples "
                        << max_sub);
          std::vector<HostImage> direct, remapped;
          std::vector<PerspectiveTarget> direct_targets, remap_targets;
          for (const Camera& c : cams) {
            direct.emplace_back(c.width, c.height, channels);
            remapped.emplace_back(c.width, c.height, channels, 5);
          }
          for (int i = 0; i < 3; ++i) {
            const gp::ImageView mask_view = i == 0 ? mask.view : gp::ImageView{};
            direct_targets.push_back(PerspectiveTarget{cams[i], direct[i].view, mask_view});
            remap_targets.push_back(PerspectiveTarget{cams[i], remapped[i].view, mask_view});
          }
          const SampleOptions o = options(m, max_sub);
          equirect_to_perspective_batch_cpu(pano.view, direct_targets.data(), 3, o);
          std::vector<std::uint8_t> table(perspective_remap_bytes(remap_targets.data(), 3));
          REQUIRE(table.size() == 8 * (97 * 83 + 64 * 64 + 50 * 70));
          build_perspective_remap_cpu(pano.view, remap_targets.data(), 3, o, table.data());
          equirect_to_perspective_remap_cpu(pano.view, remap_targets.data(), 3, o, table.data());
          for (int i = 0; i < 3; ++i) CHECK(gp::stitch::test::max_difference(remapped[i], direct[i]) == 0);
        }
    }
}

TEST_CASE("projection argument errors name the function", "[stitch]") {
  const HostImage pano = gp::stitch::test::textured_equirect(64, 32, 3);
  HostImage gray(16, 16, 1), rgb(16, 16, 3);
  const Camera cam = make_camera(0, 0, 0, 90, 16, 16);
  CHECK_THROWS_WITH(equirect_to_perspective_cpu(pano.view, cam, gray.view, gp::ImageView{}, options(Interp::bilinear)),
                    Catch::Contains("equirect_to_perspective_cpu") && Catch::Contains("channels"));
  CHECK_THROWS_AS(equirect_to_perspective_cpu(pano.view, make_camera(0, 0, 0, 90, 16, 15), rgb.view, gp::ImageView{},
                                              options(Interp::bilinear)),
                  gp::Error);
  CHECK_THROWS_AS(equirect_to_perspective_cpu(pano.view, cam, rgb.view, gp::ImageView{}, options(Interp::bilinear, 0)),
                  gp::Error);
  HostImage rect(16, 12, 3);
  CHECK_THROWS_AS(equirect_to_cubemap_face_cpu(pano.view, CubeFace::front, rect.view, options(Interp::bilinear)),
                  gp::Error);
  CubeFaces faces;
  faces.fill(rgb.view);
  faces[3] = rect.view;
  HostImage out(32, 16, 3);
  CHECK_THROWS_AS(cubemap_to_equirect_cpu(faces, out.view, gp::ImageView{}, options(Interp::bilinear)), gp::Error);
  std::vector<PerspectiveTarget> too_many(max_batch_views + 1, PerspectiveTarget{cam, rgb.view, gp::ImageView{}});
  CHECK_THROWS_AS(equirect_to_perspective_batch_cpu(pano.view, too_many.data(), int(too_many.size()),
                                                    options(Interp::bilinear)),
                  gp::Error);
}

// ---- against ffmpeg's v360 (skipped where ffmpeg is not installed)

TEST_CASE("views, cubemaps and dual fisheye equal ffmpeg's v360", "[stitch][ffmpeg]") {
  if (!gp::stitch::test::have_ffmpeg()) {
    WARN("ffmpeg not installed: comparison with v360 skipped");
    return;
  }
  const HostImage pano = gp::stitch::test::textured_equirect(1024, 512, 3, 2.0);
  SECTION("flat views") {
    struct View {
      double yaw, pitch, roll, h_fov;
      int w, h;
    };
    for (const View& v : {View{0, 0, 0, 90, 256, 256}, View{30, 20, 10, 90, 256, 256}, View{-135, -50, 25, 75, 320, 200},
                          View{170, 80, -40, 100, 200, 200}}) {
      const Camera cam = make_camera(v.yaw, v.pitch, v.roll, v.h_fov, v.w, v.h);
      char filter[256];
      std::snprintf(filter, sizeof filter, "v360=e:flat:yaw=%g:pitch=%g:roll=%g:h_fov=%g:v_fov=%.6f:w=%d:h=%d:interp=%%s",
                    v.yaw, v.pitch, v.roll, v.h_fov, camera_v_fov_deg(cam), v.w, v.h);
      for (Interp interp : {Interp::bilinear, Interp::nearest, Interp::bicubic}) {
        char f[300];
        std::snprintf(f, sizeof f, filter,
                      interp == Interp::bilinear ? "linear" : interp == Interp::nearest ? "near" : "cubic");
        const HostImage expected = gp::stitch::test::ffmpeg_v360(pano, f, v.w, v.h);
        HostImage ours(v.w, v.h, 3);
        equirect_to_perspective_cpu(pano.view, cam, ours.view, gp::ImageView{}, options(interp, 1));
        long differing = 0, beyond_one = 0;
        const int worst = gp::stitch::test::max_difference(ours, expected, &differing);
        for (int y = 0; y < v.h; ++y)
          for (int x = 0; x < v.w * 3; ++x) beyond_one += std::abs(ours.px(0, y)[x] - expected.px(0, y)[x]) > 1;
        const double db = gp::stitch::test::psnr(ours, expected), values = v.w * v.h * 3.0;
        std::printf("vs %s: PSNR %.1f dB, %.3f%% values differ, %.4f%% by more than 1 (max %d)\n", f, db,
                    100.0 * differing / values, 100.0 * beyond_one / values, worst);
        // v360 rounds its 14-bit fixed-point weights down, we round to nearest: about half the
        // values differ by 1. Larger differences: positions a float rounding apart on either side
        // of a pixel boundary (nearest), or of the +-180 deg seam, where v360's W - 1 scale makes
        // columns 0 and W - 1 the same longitude.
        CHECK(db >= (interp == Interp::nearest ? 60.0 : 50.0));
        CHECK(beyond_one <= values * 1e-3);
      }
    }
  }
  SECTION("cubemap c3x2 and back") {
    const int n = 128;
    HostImage layout(3 * n, 2 * n, 3);
    equirect_to_cubemap_cpu(pano.view, cube_layout_faces(layout.view, CubeLayout::c3x2), options(Interp::bilinear, 1));
    const HostImage expected = gp::stitch::test::ffmpeg_v360(pano, "v360=e:c3x2:w=384:h=256:interp=linear", 3 * n, 2 * n);
    const double db = gp::stitch::test::psnr(layout, expected);
    std::printf("e -> c3x2 vs v360: PSNR %.1f dB\n", db);
    CHECK(db >= 45.0);
    HostImage back(512, 256, 3);
    cubemap_to_equirect_cpu(cube_layout_faces(layout.view, CubeLayout::c3x2), back.view, gp::ImageView{},
                            options(Interp::bilinear, 1));
    const HostImage expected_back = gp::stitch::test::ffmpeg_v360(layout, "v360=c3x2:e:w=512:h=256:interp=linear", 512, 256);
    const double db_back = gp::stitch::test::psnr(back, expected_back);
    std::printf("c3x2 -> e vs v360: PSNR %.1f dB\n", db_back);
    CHECK(db_back >= 40.0);
  }
  SECTION("dual fisheye, 180 deg lenses (no overlap: v360 does not blend)") {
    HostImage frame(1024, 512, 3);
    const DualFisheye rig = dual_fisheye_v360(1024, 512, 180);
    // A dual-fisheye frame from v360 itself, then back to equirect both ways.
    frame = gp::stitch::test::ffmpeg_v360(pano, "v360=e:dfisheye:h_fov=180:v_fov=180:w=1024:h=512:interp=linear", 1024, 512);
    const HostImage expected =
        gp::stitch::test::ffmpeg_v360(frame, "v360=dfisheye:e:ih_fov=180:iv_fov=180:w=1024:h=512:interp=linear", 1024, 512);
    HostImage ours(1024, 512, 3);
    dual_fisheye_to_equirect_cpu(frame.view, rig, ours.view, gp::ImageView{}, options(Interp::bilinear, 1));
    const double db = gp::stitch::test::psnr(ours, expected);
    std::printf("dfisheye -> e vs v360: PSNR %.1f dB\n", db);
    CHECK(db >= 40.0);
  }
}

// ---- 180-degree sources (VR180 eyes, v360's hequirect)

TEST_CASE("a 180-degree source: views within it match the whole sphere's, behind it black; as v360's hequirect", "[stitch]") {
  // The same sphere texture as a whole equirect and as a 180-degree half (v360's hequirect pixel
  // positions: longitude (i / (W - 1) - 0.5) pi, latitude (j / (H - 1) - 0.5) pi).
  const int n = 512;
  HostImage half(n, n, 3);
  const double pi = 3.14159265358979323846;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double phi = (double(i) / (n - 1) - 0.5) * pi, theta = (double(j) / (n - 1) - 0.5) * pi;
      const double d[3] = {std::cos(theta) * std::sin(phi), std::sin(theta), std::cos(theta) * std::cos(phi)};
      for (int c = 0; c < 3; ++c) half.px(i, j)[c] = gp::stitch::test::to_byte(gp::stitch::test::sphere_texture(d, c, 1.5));
    }
  const HostImage whole = gp::stitch::test::textured_equirect(2 * n, n, 3, 1.5);
  SampleOptions hemisphere = options(Interp::bilinear, 8);
  hemisphere.equirect_hemisphere = true;
  const auto view = [&](const HostImage& src, const SampleOptions& o, double yaw) {
    HostImage out(200, 200, 3);
    equirect_to_perspective_cpu(src.view, make_camera(yaw, 10, 0, 80, 200, 200), out.view, gp::ImageView{}, o);
    return out;
  };
  const double inside = gp::stitch::test::psnr(view(half, hemisphere, -20), view(whole, options(Interp::bilinear, 8), -20));
  std::printf("180-degree source, view inside it: PSNR %.1f dB against the whole sphere's\n", inside);
  CHECK(inside >= 35.0);
  const HostImage behind = view(half, hemisphere, 180);
  CHECK(gp::stitch::test::max_difference(behind, gp::stitch::test::constant_image(200, 200, 3, 0)) == 0);
  // Half in, half out (yaw 90: the edge of the source down the middle of the view).
  const HostImage edge = view(half, hemisphere, 90);
  CHECK(edge.px(10, 100)[0] + edge.px(10, 100)[1] + edge.px(10, 100)[2] > 0);
  CHECK(edge.px(190, 100)[0] + edge.px(190, 100)[1] + edge.px(190, 100)[2] == 0);
  // Cube faces: the back face is black, the front one the texture.
  HostImage faces_layout(3 * 128, 2 * 128, 3);
  equirect_to_cubemap_cpu(half.view, cube_layout_faces(faces_layout.view, CubeLayout::c3x2), hemisphere);
  const gp::ImageView back = cube_layout_face(faces_layout.view, CubeLayout::c3x2, 5);
  const gp::ImageView front = cube_layout_face(faces_layout.view, CubeLayout::c3x2, 4);
  long back_sum = 0, front_sum = 0;
  for (int y = 0; y < 128; ++y)
    for (int x = 0; x < 3 * 128; ++x) back_sum += back.row<std::uint8_t>(y)[x], front_sum += front.row<std::uint8_t>(y)[x];
  CHECK(back_sum == 0);
  CHECK(front_sum > 128L * 128 * 3 * 60);

  if (!gp::stitch::test::have_ffmpeg()) {
    WARN("ffmpeg not installed: comparison with v360's hequirect skipped");
    return;
  }
  const Camera cam = make_camera(-20, 10, 0, 80, 200, 200);
  char filter[256];
  std::snprintf(filter, sizeof filter, "v360=hequirect:flat:yaw=-20:pitch=10:h_fov=80:v_fov=%.6f:w=200:h=200:interp=linear",
                camera_v_fov_deg(cam));
  const HostImage expected = gp::stitch::test::ffmpeg_v360(half, filter, 200, 200);
  HostImage ours(200, 200, 3);
  SampleOptions o = options(Interp::bilinear, 1);
  o.equirect_hemisphere = true;
  equirect_to_perspective_cpu(half.view, cam, ours.view, gp::ImageView{}, o);
  const double db = gp::stitch::test::psnr(ours, expected);
  std::printf("180-degree source vs v360 hequirect: PSNR %.1f dB\n", db);
  CHECK(db >= 50.0);
}
