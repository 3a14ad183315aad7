// The rig: presets, focal lengths, rotations and COLMAP quaternions in v360's frame, the rays of
// view pixels, COLMAP's cameras, prefixes and captures, and the rig files read back.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "stitch/rig.hpp"
#include "support/test_data.hpp"
#include "support/text_files.hpp"

using Catch::Detail::Approx;
using gp::stitch::Mat3d;
using gp::stitch::Vec3d;
using gp::stitch::ViewCamera;
using gp::stitch::ViewSpec;

using gp::test::read_text;
using gp::test::words;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void require_vec(const Vec3d& a, const Vec3d& b, double eps = 1e-12) {
  for (int i = 0; i < 3; ++i) REQUIRE(a[i] == Approx(b[i]).margin(eps));
}

// COLMAP's quaternion -> rotation matrix (Hamilton, as Eigen's toRotationMatrix).
Mat3d matrix_of(const std::array<double, 4>& q) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

ViewSpec spec(const std::string& name, double yaw, double pitch, double roll, double hfov, int w, int h) {
  ViewSpec s;
  s.name = name, s.yaw_deg = yaw, s.pitch_deg = pitch, s.roll_deg = roll, s.hfov_deg = hfov, s.width = w, s.height = h;
  return s;
}

}  // namespace

TEST_CASE("view presets: counts, names and angles", "[stitch][rig]") {
  const auto ring = gp::stitch::view_preset("ring8", 1920, 1080, 100);
  REQUIRE(ring.size() == 8);
  const double yaws[8] = {0, 45, 90, 135, 180, -135, -90, -45};
  std::set<std::string> names;
  for (int k = 0; k < 8; ++k) {
    CHECK(ring[k].yaw_deg == yaws[k]);
    CHECK(ring[k].pitch_deg == 0);
    CHECK(ring[k].roll_deg == 0);
    CHECK(ring[k].hfov_deg == 100);
    CHECK(ring[k].width == 1920);
    CHECK(ring[k].height == 1080);
    names.insert(ring[k].name);
  }
  CHECK(names.size() == 8);
  CHECK(ring[3].name == "yaw135");
  CHECK(ring[5].name == "yaw225");

  const auto ten = gp::stitch::view_preset("ring8+zenith+nadir", 1920, 1920);
  REQUIRE(ten.size() == 10);
  CHECK(ten[7].yaw_deg == -45);
  CHECK(ten[8].name == "zenith");
  CHECK(ten[8].pitch_deg == 90);
  CHECK(ten[9].name == "nadir");
  CHECK(ten[9].pitch_deg == -90);
  CHECK(ten[9].hfov_deg == 90);

  const auto cube = gp::stitch::view_preset("cube", 1024, 1024, 120);  // hfov is always 90
  REQUIRE(cube.size() == 6);
  const char* cube_names[6] = {"front", "right", "back", "left", "up", "down"};
  const double cube_angles[6][2] = {{0, 0}, {90, 0}, {180, 0}, {-90, 0}, {0, 90}, {0, -90}};
  for (int k = 0; k < 6; ++k) {
    CHECK(cube[k].name == cube_names[k]);
    CHECK(cube[k].yaw_deg == cube_angles[k][0]);
    CHECK(cube[k].pitch_deg == cube_angles[k][1]);
    CHECK(cube[k].hfov_deg == 90);
  }
  CHECK_THROWS_AS(gp::stitch::view_preset("cube", 1024, 768), gp::UsageError);
  CHECK_THROWS_WITH(gp::stitch::view_preset("ring6", 100, 100), Catch::Contains("ring8+zenith+nadir"));
}

TEST_CASE("focal lengths in pixels and EXIF millimetres", "[stitch][rig]") {
  CHECK(gp::stitch::focal_px_from_fov(90, 1920) == Approx(960).epsilon(1e-14));
  CHECK(gp::stitch::focal_px_from_fov(60, 1000) == Approx(500 / std::tan(30 * M_PI / 180)));
  CHECK(gp::stitch::fov_deg_from_focal_px(gp::stitch::focal_px_from_fov(73.5, 1234), 1234) == Approx(73.5));

  const auto wide = gp::stitch::exif_focal(960, 1920);  // 90 degrees: 18 mm full-frame equivalent
  CHECK(wide.focal_length_mm == Approx(18));
  CHECK(wide.focal_length_35mm == 18);
  const auto normal = gp::stitch::exif_focal(gp::stitch::focal_px_from_fov(60, 1000), 1000);  // 31.18 mm
  CHECK(normal.focal_length_mm == Approx(36 * 0.5 / std::tan(30 * M_PI / 180)));
  CHECK(normal.focal_length_35mm == 31);
  const auto small_sensor = gp::stitch::exif_focal(960, 1920, 6.17);  // a 1/2.3" sensor
  CHECK(small_sensor.focal_length_mm == Approx(3.085));
  CHECK(small_sensor.focal_length_35mm == 18);

  const ViewCamera tall = gp::stitch::resolve_view(spec("tall", 0, 0, 0, 90, 1000, 2000));
  CHECK(tall.fx == Approx(500));
  CHECK(tall.fy == tall.fx);
  CHECK(tall.cx == 500);
  CHECK(tall.cy == 1000);
  CHECK(tall.hfov_deg == Approx(90));
  CHECK(tall.vfov_deg == Approx(2 * std::atan(2.0) * 180 / M_PI));
  ViewSpec by_focal = spec("focal", 0, 0, 0, 90, 1000, 1000);
  by_focal.focal_px = 700;  // takes precedence over hfov
  CHECK(gp::stitch::resolve_view(by_focal).fx == 700);
}

TEST_CASE("bad views are usage errors naming the view", "[stitch][rig]") {
  CHECK_THROWS_AS(gp::stitch::resolve_view(spec("a", 0, 0, 0, 90, 0, 100)), gp::UsageError);
  CHECK_THROWS_AS(gp::stitch::resolve_view(spec("b", 0, 0, 0, 180, 100, 100)), gp::UsageError);
  CHECK_THROWS_AS(gp::stitch::resolve_view(spec("c", 0, 0, 0, 0, 100, 100)), gp::UsageError);
  CHECK_THROWS_WITH(gp::stitch::resolve_view(spec("tilted", 0, 95, 0, 90, 100, 100)), Catch::Contains("tilted"));
  CHECK_THROWS_AS(gp::stitch::resolve_view(spec("d", NAN, 0, 0, 90, 100, 100)), gp::UsageError);
  ViewSpec negative = spec("e", 0, 0, 0, 90, 100, 100);
  negative.focal_px = -5;
  CHECK_THROWS_AS(gp::stitch::resolve_view(negative), gp::UsageError);
}

TEST_CASE("COLMAP quaternions in v360's frame", "[stitch][rig]") {
  SECTION("yaw 0: identity") {
    const ViewCamera v = gp::stitch::resolve_view(spec("front", 0, 0, 0, 90, 100, 100));
    CHECK(v.qvec == std::array<double, 4>{1, 0, 0, 0});
    CHECK(v.world_to_camera == Mat3d{1, 0, 0, 0, 1, 0, 0, 0, 1});
  }
  SECTION("yaw 90 looks along +x: world-to-camera is -90 degrees about y") {
    const ViewCamera v = gp::stitch::resolve_view(spec("right", 90, 0, 0, 90, 100, 100));
    const double h = std::sqrt(0.5);
    CHECK(v.qvec[0] == Approx(h));
    CHECK(v.qvec[1] == 0);
    CHECK(v.qvec[2] == Approx(-h));
    CHECK(v.qvec[3] == 0);
    // The panorama's right is this camera's forward; the panorama's forward is its left (-x).
    require_vec(gp::stitch::multiply(v.world_to_camera, {1, 0, 0}), {0, 0, 1});
    require_vec(gp::stitch::multiply(v.world_to_camera, {0, 0, 1}), {-1, 0, 0});
    require_vec(gp::stitch::multiply(v.world_to_camera, {0, 1, 0}), {0, 1, 0});  // down stays down
  }
  SECTION("pitch 90 looks at the zenith, the front at the bottom of the image") {
    const ViewCamera v = gp::stitch::resolve_view(spec("up", 0, 90, 0, 90, 100, 100));
    require_vec(gp::stitch::multiply(v.world_to_camera, {0, -1, 0}), {0, 0, 1});
    require_vec(gp::stitch::multiply(v.world_to_camera, {0, 0, 1}), {0, 1, 0});
    CHECK(v.qvec[0] == Approx(std::sqrt(0.5)));
    CHECK(v.qvec[1] == Approx(-std::sqrt(0.5)));  // -90 degrees about x
  }
  SECTION("yaw 180: the half turn about y, w = 0 with y positive") {
    const ViewCamera v = gp::stitch::resolve_view(spec("back", 180, 0, 0, 90, 100, 100));
    CHECK(v.qvec == std::array<double, 4>{0, 0, 1, 0});
  }
  SECTION("any orientation: the quaternion is the unit quaternion of R^T") {
    for (double yaw : {-170.0, -33.0, 0.0, 12.5, 135.0, 180.0})
      for (double pitch : {-90.0, -47.0, 0.0, 20.0, 90.0})
        for (double roll : {-120.0, 0.0, 7.0, 179.0}) {
          const ViewCamera v = gp::stitch::resolve_view(spec("v", yaw, pitch, roll, 80, 64, 48));
          const auto& q = v.qvec;
          CHECK(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] == Approx(1));
          CHECK(q[0] >= 0);
          const Mat3d m = matrix_of(q);
          for (int i = 0; i < 9; ++i) CHECK(m[i] == Approx(v.world_to_camera[i]).margin(1e-12));
          // R^T R = I
          const Mat3d& r = v.camera_to_panorama;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
              CHECK(r[i] * r[j] + r[3 + i] * r[3 + j] + r[6 + i] * r[6 + j] == Approx(i == j ? 1.0 : 0.0).margin(1e-12));
        }
  }
}

TEST_CASE("a view's rays point where its yaw, pitch and roll say", "[stitch][rig]") {
  const ViewSpec specs[] = {spec("a", 0, 0, 0, 90, 640, 480),     spec("b", 37, 0, 0, 60, 640, 480),
                            spec("c", -120, 25, 0, 90, 500, 500), spec("d", 170, -60, 30, 75, 800, 600),
                            spec("e", -45, 10, -90, 100, 300, 200)};
  for (const ViewSpec& s : specs) {
    const ViewCamera v = gp::stitch::resolve_view(s);
    double yaw, pitch;
    gp::stitch::yaw_pitch_from_direction(gp::stitch::view_ray(v, v.cx, v.cy), yaw, pitch);
    CHECK(yaw == Approx(s.yaw_deg));
    CHECK(pitch == Approx(s.pitch_deg).margin(1e-12));
    require_vec(gp::stitch::view_ray(v, v.cx, v.cy), gp::stitch::direction_from_yaw_pitch(s.yaw_deg, s.pitch_deg));
    // Pixels and rays are inverse maps.
    for (double x : {0.0, 0.5 * s.width, double(s.width)})
      for (double y : {0.0, 17.25, double(s.height)}) {
        double px, py;
        REQUIRE(gp::stitch::project_to_view(v, gp::stitch::view_ray(v, x, y), px, py));
        CHECK(px == Approx(x).margin(1e-9));
        CHECK(py == Approx(y).margin(1e-9));
      }
    // Behind the camera: no projection.
    const Vec3d centre = gp::stitch::view_ray(v, v.cx, v.cy);
    double px, py;
    CHECK_FALSE(gp::stitch::project_to_view(v, {-centre[0], -centre[1], -centre[2]}, px, py));
  }

  SECTION("unrolled: right of centre is more yaw, above it more pitch; the edge is half the FOV away") {
    const ViewCamera v = gp::stitch::resolve_view(spec("b", 37, 0, 0, 60, 640, 480));
    double yaw, pitch;
    gp::stitch::yaw_pitch_from_direction(gp::stitch::view_ray(v, 640, v.cy), yaw, pitch);
    CHECK(yaw == Approx(37 + 30));
    CHECK(pitch == Approx(0).margin(1e-12));
    gp::stitch::yaw_pitch_from_direction(gp::stitch::view_ray(v, v.cx, 0), yaw, pitch);
    CHECK(yaw == Approx(37));
    CHECK(pitch == Approx(v.vfov_deg / 2));
  }
  SECTION("roll 30: the right edge dips below the horizon") {
    const ViewCamera v = gp::stitch::resolve_view(spec("d", 0, 0, 30, 90, 600, 600));
    double yaw, pitch;
    gp::stitch::yaw_pitch_from_direction(gp::stitch::view_ray(v, 600, 300), yaw, pitch);
    CHECK(yaw > 0);
    CHECK(pitch < 0);
    // At the image's right edge the ray is (1, 0, 1) turned by 30 degrees about z: (cos, sin, 1).
    const double c = std::cos(M_PI / 6), s = std::sin(M_PI / 6), n = std::sqrt(2.0);
    require_vec(gp::stitch::view_ray(v, 600, 300), {c / n, s / n, 1 / n});
  }
  SECTION("cube faces: up has the front below it, down the back") {
    const auto cube = gp::stitch::view_preset("cube", 100, 100);
    const ViewCamera up = gp::stitch::resolve_view(cube[4]), down = gp::stitch::resolve_view(cube[5]);
    const Vec3d up_bottom = gp::stitch::view_ray(up, 50, 100), down_bottom = gp::stitch::view_ray(down, 50, 100);
    require_vec(up_bottom, {0, -std::sqrt(0.5), std::sqrt(0.5)});
    require_vec(down_bottom, {0, std::sqrt(0.5), -std::sqrt(0.5)});
    // The right face's left edge meets the front face's right edge.
    const ViewCamera front = gp::stitch::resolve_view(cube[0]), right = gp::stitch::resolve_view(cube[1]);
    require_vec(gp::stitch::view_ray(front, 100, 50), gp::stitch::view_ray(right, 0, 50));
  }
}

TEST_CASE("the committed stitch sample uses the same frame", "[stitch][rig]") {
  // data-samples/stitch/equirect.json was written by gpuproc-make-samples with its own math.
  std::ifstream in(gp::test::source_path("data-samples/stitch/equirect.json"));
  REQUIRE(in.good());
  const auto sample = nlohmann::json::parse(in);
  const int width = sample.at("width"), height = sample.at("height");
  const auto ring = gp::stitch::view_preset("ring8", 512, 512);
  int checked = 0;
  for (const auto& m : sample.at("markers")) {
    const double yaw = m.at("yaw_deg"), pitch = m.at("pitch_deg");
    const Vec3d d = gp::stitch::direction_from_yaw_pitch(yaw, pitch);
    require_vec(d, {m.at("direction")[0], m.at("direction")[1], m.at("direction")[2]});
    if (std::abs(pitch) < 90) {
      // u = (yaw / 360 + 0.5) W, v = (0.5 - pitch / 180) H, pixel centres at +0.5.
      CHECK(double(m.at("equirect_uv")[0]) == Approx(std::fmod((yaw / 360 + 0.5) * width, width)));
      CHECK(double(m.at("equirect_uv")[1]) == Approx((0.5 - pitch / 180) * height));
      // The ring view at the marker's yaw is centred on it.
      for (const ViewSpec& s : ring)
        if (s.yaw_deg == yaw) {
          const ViewCamera v = gp::stitch::resolve_view(s);
          require_vec(gp::stitch::view_ray(v, v.cx, v.cy), d);
          ++checked;
        }
    }
  }
  CHECK(checked == 4);
}

namespace {

// The views of ring8+zenith+nadir and a 1280x960 "detail", a camera per view (mono), and one
// capture per name in `captures`, its views named "<view>/<capture>.jpg".
gp::stitch::RigModel ring_model(const std::vector<std::string>& captures) {
  gp::stitch::RigModel model;
  for (const ViewSpec& s : gp::stitch::view_preset("ring8+zenith+nadir", 1920, 1920))
    model.views.push_back(gp::stitch::resolve_view(s));
  model.views.push_back(gp::stitch::resolve_view(spec("detail", 20, -10, 5, 70, 1280, 960)));
  for (std::size_t v = 0; v < model.views.size(); ++v) model.cameras.push_back({v, 0, "", model.views[v].spec.name, "", 0});
  for (const std::string& c : captures) {
    model.captures.push_back({"in/" + c + ".jpg", "", ""});
    for (std::size_t v = 0; v < model.views.size(); ++v)
      model.images.push_back({model.views[v].spec.name + "/" + c + ".jpg", v, model.captures.size() - 1});
  }
  return model;
}

// Rotation angle (degrees) of a * b^T.
double angle_between(const Mat3d& a, const Mat3d& b) {
  double trace = 0;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) trace += a[3 * i + k] * b[3 * i + k];
  return std::acos(std::clamp((trace - 1) / 2, -1.0, 1.0)) * 180 / 3.14159265358979323846;
}

Mat3d times(const Mat3d& a, const Mat3d& b) {
  Mat3d c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c[3 * i + j] += a[3 * i + k] * b[3 * k + j];
  return c;
}

}  // namespace

TEST_CASE("the rig: COLMAP's camera ids, image prefixes and captures", "[stitch][rig]") {
  gp::stitch::RigModel model = ring_model({"p1", "p2"});
  REQUIRE(gp::stitch::check_rig(model) == "");
  // COLMAP numbers the folders in the order of its sorted image list: detail, nadir, yaw000, ...
  CHECK(model.cameras[10].colmap_camera_id == 1);
  CHECK(model.cameras[9].colmap_camera_id == 2);   // nadir
  CHECK(model.cameras[0].colmap_camera_id == 3);   // yaw000
  CHECK(model.cameras[7].colmap_camera_id == 10);  // yaw315
  CHECK(model.cameras[8].colmap_camera_id == 11);  // zenith
  CHECK(model.cameras[0].image_prefix == "yaw000/");

  SECTION("views in one folder: one COLMAP camera, no rig") {
    for (auto& image : model.images) image.name = "p_" + std::to_string(image.camera) + "_" + std::to_string(image.capture) + ".jpg";
    CHECK_THAT(gp::stitch::check_rig(model), Catch::Contains("share the output folder"));
  }
  SECTION("a view in two folders (mirrored inputs)") {
    model.images[11].name = "b/" + model.images[11].name;
    CHECK_THAT(gp::stitch::check_rig(model), Catch::Contains("several folders"));
  }
  SECTION("two captures named alike after their folders") {
    for (auto& image : model.images)
      if (image.capture == 1) image.name = model.views[image.camera].spec.name + "/p1.jpg";
    CHECK_THAT(gp::stitch::check_rig(model), Catch::Contains("end alike"));
  }
  SECTION("a capture's views named differently after their folders") {
    model.images[3].name = model.views[3].spec.name + "/p1_other.jpg";
    CHECK_THAT(gp::stitch::check_rig(model), Catch::Contains("named differently"));
  }
  SECTION("a name that holds another view's folder") {
    model.images[3].name = model.views[3].spec.name + "/yaw000/p1.jpg";
    model.images[14].name = model.views[3].spec.name + "/yaw000/p2.jpg";
    CHECK_THAT(gp::stitch::check_rig(model), Catch::Contains("COLMAP would take it for that view's"));
  }
  SECTION("nothing written yet") {
    model.images.clear();
    model.captures.clear();
    CHECK(gp::stitch::check_rig(model) == "no view has been written yet");
  }
}

TEST_CASE("the rig's relative rotations: X_camera = R_rel X_reference", "[stitch][rig]") {
  const ViewCamera front = gp::stitch::resolve_view(spec("front", 0, 0, 0, 90, 64, 64));
  const ViewCamera right = gp::stitch::resolve_view(spec("right", 90, 0, 0, 90, 64, 64));
  const ViewCamera tilted = gp::stitch::resolve_view(spec("tilted", -30, 20, 10, 90, 64, 64));
  // The right view's centre ray is the front camera's +x axis: R_rel maps it to the right
  // camera's +z.
  require_vec(gp::stitch::multiply(matrix_of(gp::stitch::rig_relative_qvec(right, front)), {1, 0, 0}), {0, 0, 1});
  // R_rel = W_camera W_reference^T for any pair, and the reference's own is the identity.
  for (const ViewCamera* ref : {&front, &right, &tilted})
    for (const ViewCamera* cam : {&front, &right, &tilted}) {
      const Mat3d rel = matrix_of(gp::stitch::rig_relative_qvec(*cam, *ref));
      CHECK(angle_between(rel, times(cam->world_to_camera, ref->camera_to_panorama)) < 1e-6);
      CHECK(angle_between(times(rel, ref->world_to_camera), cam->world_to_camera) < 1e-6);
    }
  CHECK(gp::stitch::rig_relative_qvec(tilted, tilted) == std::array<double, 4>{1, 0, 0, 0});
}

TEST_CASE("cameras.json, cameras.txt, images.txt, points3D.txt and rig_config.json read back", "[stitch][rig]") {
  const auto dir = gp::test::scratch_dir("rig");
  gp::stitch::RigModel one = ring_model({"p1"}), two = ring_model({"p1", "p2"});
  REQUIRE(gp::stitch::check_rig(one) == "");
  REQUIRE(gp::stitch::check_rig(two) == "");
  const auto& views = one.views;

  SECTION("cameras.json") {
    gp::stitch::write_cameras_json((dir / "cameras.json").string(), two, "");
    const auto j = nlohmann::json::parse(read_text(dir / "cameras.json"));
    CHECK(j.at("sensor_width_mm") == 36.0);
    const auto& list = j.at("views");
    REQUIRE(list.size() == 11);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto& e = list[i];
      const ViewCamera& v = views[i];
      CHECK(e.at("name") == v.spec.name);
      CHECK(e.at("file") == v.spec.name + "/p1.jpg");
      CHECK(e.at("yaw_deg") == v.spec.yaw_deg);
      CHECK(e.at("pitch_deg") == v.spec.pitch_deg);
      CHECK(e.at("fx") == v.fx);
      CHECK(e.at("fy") == v.fy);
      CHECK(e.at("cx") == v.cx);
      CHECK(e.at("cy") == v.cy);
      CHECK(e.at("width") == v.spec.width);
      CHECK(e.at("height") == v.spec.height);
      CHECK(double(e.at("hfov_deg")) == Approx(v.spec.hfov_deg));
      CHECK(e.at("colmap_camera_id") == two.cameras[i].colmap_camera_id);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) CHECK(e.at("rotation_world_to_camera")[r][c] == v.world_to_camera[3 * r + c]);
      for (int k = 0; k < 4; ++k) CHECK(e.at("quaternion_wxyz")[k] == v.qvec[k]);
    }
    CHECK(list[0].at("focal_length_35mm") == 18);
    CHECK(double(list[0].at("focal_length_mm")) == Approx(18));
    CHECK(list[2].at("direction") == nlohmann::json::array({1.0, 0.0, 0.0}));  // yaw 90: +x, exactly
    CHECK(list[8].at("direction") == nlohmann::json::array({0.0, -1.0, 0.0}));  // zenith: -y
    REQUIRE(j.at("cameras").size() == 11);
    CHECK(j.at("cameras")[0].at("image_prefix") == "yaw000/");
    CHECK(j.at("cameras")[0].at("colmap_camera_id") == 3);
    REQUIRE(j.at("captures").size() == 2);
    CHECK(j.at("captures")[1].at("input") == "in/p2.jpg");
    CHECK(j.at("captures")[1].at("images").size() == 11);
    CHECK(j.at("captures")[1].at("images")[10] == "detail/p2.jpg");
    CHECK(j.at("rig_config") == "rig_config.json");
  }

  SECTION("cameras.txt: a PINHOLE camera per view, in COLMAP's order") {
    gp::stitch::write_colmap_cameras_txt((dir / "cameras.txt").string(), two);
    std::vector<std::vector<std::string>> rows;
    for (const auto& line : lines_of(read_text(dir / "cameras.txt")))
      if (!line.empty() && line[0] != '#') rows.push_back(words(line));
    REQUIRE(rows.size() == 11);
    REQUIRE(rows[0].size() == 8);
    CHECK(rows[0][0] == "1");  // detail
    CHECK(rows[0][2] == "1280");
    CHECK(rows[0][3] == "960");
    CHECK(std::stod(rows[0][4]) == views[10].fx);  // shortest round-trip text
    CHECK(std::stod(rows[0][5]) == views[10].fy);
    CHECK(std::stod(rows[0][6]) == 640);
    CHECK(std::stod(rows[0][7]) == 480);
    CHECK(rows[2] == std::vector<std::string>{"3", "PINHOLE", "1920", "1920", "960", "960", "960", "960"});
    CHECK(rows[10][0] == "11");
  }

  SECTION("images.txt: poses of one panorama's views; none for several") {
    gp::stitch::write_colmap_images_txt((dir / "images.txt").string(), one);
    std::vector<std::string> data;
    for (const auto& line : lines_of(read_text(dir / "images.txt")))
      if (line.empty() || line[0] != '#') data.push_back(line);
    REQUIRE(data.size() == 22);  // two lines per image, the second (points) empty
    for (std::size_t i = 0; i < 11; ++i) {
      const auto w = words(data[2 * i]);
      REQUIRE(w.size() == 10);
      CHECK(w[0] == std::to_string(i + 1));
      for (int k = 0; k < 4; ++k) CHECK(std::stod(w[1 + k]) == views[i].qvec[k]);
      CHECK(w[5] == "0");
      CHECK(w[6] == "0");
      CHECK(w[7] == "0");
      CHECK(w[8] == std::to_string(one.cameras[i].colmap_camera_id));
      CHECK(w[9] == views[i].spec.name + "/p1.jpg");
      CHECK(data[2 * i + 1].empty());
    }

    gp::stitch::write_colmap_images_txt((dir / "images2.txt").string(), two);
    const auto text = read_text(dir / "images2.txt");
    CHECK_THAT(text, Catch::Contains("# Number of images: 0,"));
    for (const auto& line : lines_of(text)) CHECK((line.empty() || line[0] == '#'));

    one.images[3].name = "has space.jpg";
    CHECK_THROWS_AS(gp::stitch::write_colmap_images_txt((dir / "bad.txt").string(), one), gp::ItemError);
    CHECK_FALSE(std::filesystem::exists(dir / "bad.txt"));
  }

  SECTION("points3D.txt: no points") {
    gp::stitch::write_colmap_points3d_txt((dir / "points3D.txt").string());
    for (const auto& line : lines_of(read_text(dir / "points3D.txt"))) CHECK((line.empty() || line[0] == '#'));
  }

  SECTION("rig_config.json: one rig per eye, relative rotations to the first view") {
    gp::stitch::write_colmap_rig_config((dir / "rig_config.json").string(), two);
    const auto j = nlohmann::json::parse(read_text(dir / "rig_config.json"));
    REQUIRE(j.size() == 1);
    CHECK(j[0].at("ref_camera_id") == 3);  // yaw000
    const auto& cameras = j[0].at("cameras");
    REQUIRE(cameras.size() == 11);
    for (std::size_t c = 0; c < 11; ++c) {
      CHECK(cameras[c].at("camera_id") == two.cameras[c].colmap_camera_id);
      CHECK(cameras[c].at("image_prefix") == views[c].spec.name + "/");
      CHECK(cameras[c].at("rel_tvec") == nlohmann::json::array({0.0, 0.0, 0.0}));
      const std::array<double, 4> q{cameras[c]["rel_qvec"][0], cameras[c]["rel_qvec"][1], cameras[c]["rel_qvec"][2],
                                    cameras[c]["rel_qvec"][3]};
      CHECK(angle_between(matrix_of(q), views[c].world_to_camera) < 1e-6);  // the reference is the panorama frame
    }

    // Both eyes of a stereo input: a rig each, each with its own reference.
    gp::stitch::RigModel stereo;
    stereo.views = two.views;
    for (int eye = 0; eye < 2; ++eye)
      for (std::size_t v = 0; v < stereo.views.size(); ++v)
        stereo.cameras.push_back({v, eye, eye ? "right" : "left", stereo.views[v].spec.name + (eye ? "_right" : "_left"), "", 0});
    stereo.captures.push_back({"in/s.jpg", "", ""});
    for (std::size_t c = 0; c < stereo.cameras.size(); ++c) stereo.images.push_back({stereo.cameras[c].label + "/s.jpg", c, 0});
    REQUIRE(gp::stitch::check_rig(stereo) == "");
    gp::stitch::write_colmap_rig_config((dir / "stereo.json").string(), stereo);
    const auto k = nlohmann::json::parse(read_text(dir / "stereo.json"));
    REQUIRE(k.size() == 2);
    CHECK(k[0].at("cameras").size() == 11);
    CHECK(k[1].at("cameras").size() == 11);
    CHECK(k[1].at("cameras")[0].at("image_prefix") == "yaw000_right/");
    CHECK(k[1].at("ref_camera_id") == stereo.cameras[11].colmap_camera_id);
    // One stereo capture: the left eye's views posed, the right eye's (a baseline away) not.
    gp::stitch::write_colmap_images_txt((dir / "stereo_images.txt").string(), stereo);
    const auto text = read_text(dir / "stereo_images.txt");
    CHECK_THAT(text, Catch::Contains("# Number of images: 11,"));
    CHECK_THAT(text, Catch::Contains("yaw000_left/s.jpg"));
    CHECK_THAT(text, !Catch::Contains("_right/"));
  }
  std::filesystem::remove_all(dir);
}
