#include "stitch/rig.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/error.hpp"
#include "core/outputs.hpp"

namespace gp::stitch {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDegrees = 180.0 / kPi;

// sin and cos of degrees: reduced to [-45, 45] and rotated by whole quadrants, so multiples of 90
// give exact 0 and +-1 (no 6e-17 where a view is axis-aligned).
void sincos_deg(double deg, double& s, double& c) {
  const double quadrants = std::round(deg / 90.0);
  const double rest = (deg - 90.0 * quadrants) / kDegrees;
  const double rs = std::sin(rest), rc = std::cos(rest);
  switch ((static_cast<long long>(quadrants) % 4 + 4) % 4) {
    case 0: s = rs, c = rc; break;
    case 1: s = rc, c = -rs; break;
    case 2: s = -rs, c = -rc; break;
    default: s = -rc, c = rs; break;
  }
}

Mat3d product(const Mat3d& a, const Mat3d& b) {
  Mat3d c{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
  return c;
}

// Shortest text that reads back to the same double; -0 written as 0.
std::string number(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v + 0.0);
  return std::string(buf, r.ptr);
}

[[noreturn]] void bad_view(const ViewSpec& spec, const std::string& what) {
  throw UsageError("view \"" + spec.name + "\": " + what);
}

void write_text(const std::string& path, const std::string& text) {
  try {
    write_atomically(path, [&](const std::string& temp) {
      std::ofstream out(temp, std::ios::binary);
      if (!out) throw ItemError(path, "write", "cannot create " + temp + ": " + std::strerror(errno));
      out.write(text.data(), std::streamsize(text.size()));
      out.flush();
      if (!out) throw ItemError(path, "write", std::string("cannot write: ") + std::strerror(errno));
    });
  } catch (const ItemError&) {
    throw;
  } catch (const Error& e) {
    throw ItemError(path, "write", e.what());
  }
}

}  // namespace

const std::vector<std::string>& view_preset_names() {
  static const std::vector<std::string> names = {"ring8", "ring8+zenith+nadir", "cube"};
  return names;
}

std::vector<ViewSpec> view_preset(const std::string& preset, int width, int height, double hfov_deg) {
  auto view = [&](std::string name, double yaw, double pitch, double fov) {
    ViewSpec v;
    v.name = std::move(name);
    v.yaw_deg = yaw, v.pitch_deg = pitch, v.hfov_deg = fov, v.width = width, v.height = height;
    return v;
  };
  std::vector<ViewSpec> views;
  if (preset == "ring8" || preset == "ring8+zenith+nadir") {
    for (int k = 0; k < 8; ++k) {
      char name[16];
      std::snprintf(name, sizeof name, "yaw%03d", 45 * k);
      views.push_back(view(name, k <= 4 ? 45.0 * k : 45.0 * k - 360.0, 0, hfov_deg));
    }
    if (preset != "ring8") {
      views.push_back(view("zenith", 0, 90, hfov_deg));
      views.push_back(view("nadir", 0, -90, hfov_deg));
    }
    return views;
  }
  if (preset == "cube") {
    if (width != height)
      throw UsageError("view preset \"cube\": the faces must be square, got " + std::to_string(width) + "x" +
                       std::to_string(height));
    return {view("front", 0, 0, 90), view("right", 90, 0, 90), view("back", 180, 0, 90),
            view("left", -90, 0, 90), view("up", 0, 90, 90),   view("down", 0, -90, 90)};
  }
  std::string known;
  for (const auto& n : view_preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw UsageError("unknown view preset \"" + preset + "\"; known: " + known);
}

Mat3d camera_to_panorama(double yaw_deg, double pitch_deg, double roll_deg) {
  double sy, cy, sp, cp, sr, cr;
  sincos_deg(yaw_deg, sy, cy);
  sincos_deg(pitch_deg, sp, cp);
  sincos_deg(roll_deg, sr, cr);
  const Mat3d yaw{cy, 0, sy, 0, 1, 0, -sy, 0, cy};
  const Mat3d pitch{1, 0, 0, 0, cp, -sp, 0, sp, cp};
  const Mat3d roll{cr, -sr, 0, sr, cr, 0, 0, 0, 1};
  return product(product(yaw, pitch), roll);
}

Mat3d transposed(const Mat3d& m) { return {m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]}; }

Vec3d multiply(const Mat3d& m, const Vec3d& v) {
  return {m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
          m[6] * v[0] + m[7] * v[1] + m[8] * v[2]};
}

Vec3d direction_from_yaw_pitch(double yaw_deg, double pitch_deg) {
  const Mat3d r = camera_to_panorama(yaw_deg, pitch_deg, 0);
  return {r[2], r[5], r[8]};  // R (0, 0, 1)
}

void yaw_pitch_from_direction(const Vec3d& d, double& yaw_deg, double& pitch_deg) {
  const double norm = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  yaw_deg = std::atan2(d[0], d[2]) * kDegrees;
  if (yaw_deg <= -180.0) yaw_deg += 360.0;
  pitch_deg = std::asin(std::clamp(-d[1] / norm, -1.0, 1.0)) * kDegrees;
}

std::array<double, 4> quaternion_from_rotation(const Mat3d& m) {
  // Shepperd's method: divide by the largest of the four candidates for stability.
  std::array<double, 4> q;  // w, x, y, z
  const double trace = m[0] + m[4] + m[8];
  if (trace > 0) {
    const double s = 2 * std::sqrt(1 + trace);
    q = {s / 4, (m[7] - m[5]) / s, (m[2] - m[6]) / s, (m[3] - m[1]) / s};
  } else if (m[0] > m[4] && m[0] > m[8]) {
    const double s = 2 * std::sqrt(1 + m[0] - m[4] - m[8]);
    q = {(m[7] - m[5]) / s, s / 4, (m[1] + m[3]) / s, (m[2] + m[6]) / s};
  } else if (m[4] > m[8]) {
    const double s = 2 * std::sqrt(1 + m[4] - m[0] - m[8]);
    q = {(m[2] - m[6]) / s, (m[1] + m[3]) / s, s / 4, (m[5] + m[7]) / s};
  } else {
    const double s = 2 * std::sqrt(1 + m[8] - m[0] - m[4]);
    q = {(m[3] - m[1]) / s, (m[2] + m[6]) / s, (m[5] + m[7]) / s, s / 4};
  }
  const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& c : q) c /= norm;
  // q and -q are the same rotation: pick w > 0, or the first non-zero component positive.
  for (double c : q)
    if (c != 0) {
      if (c < 0)
        for (double& e : q) e = -e;
      break;
    }
  return q;
}

// tan and atan about 45 degrees, tan(45 + d) = (1 + tan d) / (1 - tan d): exact for 90-degree
// views (std::tan of pi/4 rounds to 0.9999999999999999, which would give f = 960.0000000000001).
double focal_px_from_fov(double fov_deg, int size) {
  const double t = std::tan((fov_deg / 2.0 - 45.0) / kDegrees);
  return (size / 2.0) * (1.0 - t) / (1.0 + t);
}
double fov_deg_from_focal_px(double focal_px, int size) {
  const double t = (size / 2.0) / focal_px;  // tan(fov / 2)
  return 2.0 * (45.0 + std::atan((t - 1.0) / (t + 1.0)) * kDegrees);
}

ExifFocal exif_focal(double focal_px, int width, double sensor_width_mm) {
  ExifFocal e;
  e.focal_length_mm = sensor_width_mm * focal_px / width;
  e.focal_length_35mm = int(std::lround(36.0 * focal_px / width));
  return e;
}

ViewCamera resolve_view(const ViewSpec& spec, const std::string& file_name) {
  if (spec.width < 1 || spec.width > 65535 || spec.height < 1 || spec.height > 65535)
    bad_view(spec, "size " + std::to_string(spec.width) + "x" + std::to_string(spec.height) + " is outside 1..65535");
  if (!std::isfinite(spec.yaw_deg) || !std::isfinite(spec.pitch_deg) || !std::isfinite(spec.roll_deg))
    bad_view(spec, "yaw, pitch and roll must be finite numbers");
  if (spec.pitch_deg < -90 || spec.pitch_deg > 90) bad_view(spec, "pitch " + number(spec.pitch_deg) + " is outside [-90, 90]");
  ViewCamera v;
  v.spec = spec;
  v.file_name = file_name;
  if (spec.focal_px > 0 && std::isfinite(spec.focal_px)) {
    v.fx = spec.focal_px;
  } else if (spec.focal_px == 0 && spec.hfov_deg > 0 && spec.hfov_deg < 180) {
    v.fx = focal_px_from_fov(spec.hfov_deg, spec.width);
  } else {
    bad_view(spec, "needs focal_px > 0 or hfov in (0, 180) degrees (focal_px " + number(spec.focal_px) + ", hfov " +
                       number(spec.hfov_deg) + ")");
  }
  v.fy = v.fx;
  v.cx = spec.width / 2.0;
  v.cy = spec.height / 2.0;
  v.hfov_deg = fov_deg_from_focal_px(v.fx, spec.width);
  v.vfov_deg = fov_deg_from_focal_px(v.fy, spec.height);
  v.camera_to_panorama = camera_to_panorama(spec.yaw_deg, spec.pitch_deg, spec.roll_deg);
  v.world_to_camera = transposed(v.camera_to_panorama);
  v.qvec = quaternion_from_rotation(v.world_to_camera);
  return v;
}

Vec3d view_ray(const ViewCamera& view, double x, double y) {
  const Vec3d d = multiply(view.camera_to_panorama, {(x - view.cx) / view.fx, (y - view.cy) / view.fy, 1.0});
  const double n = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  return {d[0] / n, d[1] / n, d[2] / n};
}

bool project_to_view(const ViewCamera& view, const Vec3d& direction, double& x, double& y) {
  const Vec3d c = multiply(view.world_to_camera, direction);
  if (!(c[2] > 0)) return false;
  x = view.cx + view.fx * c[0] / c[2];
  y = view.cy + view.fy * c[1] / c[2];
  return true;
}

std::array<double, 4> rig_relative_qvec(const ViewCamera& camera, const ViewCamera& reference) {
  return quaternion_from_rotation(product(camera.world_to_camera, reference.camera_to_panorama));
}

std::string check_rig(RigModel& model) {
  namespace fs = std::filesystem;
  std::vector<RigCamera>& cameras = model.cameras;
  const std::vector<RigImage>& images = model.images;
  // Each camera's folders, and the cameras of each folder.
  std::vector<std::set<std::string>> folders(cameras.size());
  std::map<std::string, std::set<std::size_t>> cameras_in;
  for (const RigImage& image : images) {
    const std::string folder = fs::path(image.name).parent_path().string();
    folders.at(image.camera).insert(folder);
    cameras_in[folder].insert(image.camera);
  }
  // COLMAP's numbering: a camera per folder, in the order of the sorted image names.
  std::vector<const RigImage*> sorted;
  for (const RigImage& image : images) sorted.push_back(&image);
  std::sort(sorted.begin(), sorted.end(), [](const RigImage* a, const RigImage* b) { return a->name < b->name; });
  for (RigCamera& c : cameras) c.colmap_camera_id = 0, c.image_prefix.clear();
  int next_id = 1;
  for (const RigImage* image : sorted)
    if (cameras[image->camera].colmap_camera_id == 0) cameras[image->camera].colmap_camera_id = next_id++;
  for (RigCamera& c : cameras)
    if (c.colmap_camera_id == 0) c.colmap_camera_id = next_id++;

  if (images.empty()) return "no view has been written yet";
  for (std::size_t c = 0; c < cameras.size(); ++c) {
    const std::string& name = cameras[c].label;
    if (folders[c].empty()) return "view " + name + " has no image";
    if (folders[c].size() > 1)
      return "the images of view " + name + " lie in several folders (" + *folders[c].begin() + ", " +
             *std::next(folders[c].begin()) + "); COLMAP would give each folder a camera of its own";
    const std::string& folder = *folders[c].begin();
    if (cameras_in[folder].size() > 1)
      return "views " + cameras[*cameras_in[folder].begin()].label + " and " +
             cameras[*std::next(cameras_in[folder].begin())].label + " share " +
             (folder.empty() ? std::string("the output folder") : "the folder \"" + folder + "\"") +
             "; COLMAP (single_camera_per_folder) would see them as one camera: name the views' files with a "
             "folder per view, such as {view}/{stem}.{ext}";
    if (folder.empty()) return "view " + name + " has no folder of its own";
    cameras[c].image_prefix = folder + "/";
  }
  // COLMAP's matching, rig by rig (one per eye): the images whose names contain a prefix of the
  // rig, grouped by the text after its last occurrence, must be the captures.
  for (const int eye : {0, 1}) {
    std::map<std::string, std::set<std::size_t>> by_suffix;  // suffix -> captures
    std::map<std::size_t, std::set<std::string>> suffixes;   // capture -> suffixes
    for (const RigImage& image : images) {
      std::vector<std::size_t> matched;
      for (std::size_t c = 0; c < cameras.size(); ++c)
        if (cameras[c].eye == eye && image.name.find(cameras[c].image_prefix) != std::string::npos) matched.push_back(c);
      if (matched.empty()) {
        if (cameras[image.camera].eye == eye)
          return "image " + image.name + " does not contain its view's prefix " + cameras[image.camera].image_prefix;
        continue;
      }
      if (matched.size() > 1 || matched[0] != image.camera)
        return "image " + image.name + " contains the prefix " + cameras[matched.back()].image_prefix + " of view " +
               cameras[matched.back()].label + (cameras[matched.back()].eye_name.empty() ? "" : " (" + cameras[matched.back()].eye_name + ")") +
               "; COLMAP would take it for that view's";
      const std::string& prefix = cameras[image.camera].image_prefix;
      const std::string suffix = image.name.substr(image.name.rfind(prefix) + prefix.size());
      by_suffix[suffix].insert(image.capture);
      suffixes[image.capture].insert(suffix);
    }
    for (const auto& [suffix, captures] : by_suffix)
      if (captures.size() > 1)
        return "images of two captures (" + model.captures.at(*captures.begin()).input + ", " +
               model.captures.at(*std::next(captures.begin())).input + ") end alike (\"" + suffix +
               "\" after their folders); COLMAP would take them for one snapshot";
    for (const auto& [capture, names] : suffixes)
      if (names.size() > 1)
        return "the views of " + model.captures.at(capture).input + " are named differently after their folders (\"" +
               *names.begin() + "\", \"" + *std::next(names.begin()) + "\"); COLMAP would split the capture";
  }
  return "";
}

void write_cameras_json(const std::string& path, const RigModel& model, const std::string& rig_problem,
                        double sensor_width_mm) {
  using Json = nlohmann::ordered_json;
  // Each view's first eye's camera, and its first image.
  std::vector<int> view_camera_id(model.views.size(), 0);
  for (const RigCamera& c : model.cameras)
    if (view_camera_id.at(c.view) == 0) view_camera_id[c.view] = c.colmap_camera_id;
  std::vector<std::string> view_file(model.views.size());
  for (const RigImage& image : model.images) {
    const RigCamera& c = model.cameras.at(image.camera);
    if (view_file[c.view].empty() && c.colmap_camera_id == view_camera_id[c.view]) view_file[c.view] = image.name;
  }
  Json list = Json::array();
  for (std::size_t i = 0; i < model.views.size(); ++i) {
    const ViewCamera& v = model.views[i];
    const ExifFocal exif = exif_focal(v.fx, v.spec.width, sensor_width_mm);
    const Mat3d& r = v.world_to_camera;
    Json rows = Json::array();
    for (int row = 0; row < 3; ++row) rows.push_back({r[3 * row] + 0.0, r[3 * row + 1] + 0.0, r[3 * row + 2] + 0.0});
    const Vec3d centre = multiply(v.camera_to_panorama, {0, 0, 1});
    list.push_back({{"name", v.spec.name},
                    {"file", view_file[i].empty() ? v.file_name : view_file[i]},
                    {"yaw_deg", v.spec.yaw_deg},
                    {"pitch_deg", v.spec.pitch_deg},
                    {"roll_deg", v.spec.roll_deg},
                    {"direction", {centre[0] + 0.0, centre[1] + 0.0, centre[2] + 0.0}},
                    {"rotation_world_to_camera", rows},
                    {"quaternion_wxyz", {v.qvec[0] + 0.0, v.qvec[1] + 0.0, v.qvec[2] + 0.0, v.qvec[3] + 0.0}},
                    {"fx", v.fx},
                    {"fy", v.fy},
                    {"cx", v.cx},
                    {"cy", v.cy},
                    {"width", v.spec.width},
                    {"height", v.spec.height},
                    {"hfov_deg", v.hfov_deg},
                    {"vfov_deg", v.vfov_deg},
                    {"focal_length_mm", exif.focal_length_mm},
                    {"focal_length_35mm", exif.focal_length_35mm},
                    {"colmap_camera_id", view_camera_id[i]}});
  }
  Json cameras = Json::array();
  for (const RigCamera& c : model.cameras)
    cameras.push_back({{"colmap_camera_id", c.colmap_camera_id},
                       {"view", model.views.at(c.view).spec.name},
                       {"eye", c.eye_name},
                       {"label", c.label},
                       {"image_prefix", c.image_prefix}});
  std::vector<Json> capture_images(model.captures.size(), Json::array());
  for (const RigImage& image : model.images) capture_images.at(image.capture).push_back(image.name);
  Json captures = Json::array();
  for (std::size_t k = 0; k < model.captures.size(); ++k) {
    const RigCapture& c = model.captures[k];
    Json entry = {{"input", c.input}};
    if (!c.frame.empty()) entry["frame"] = std::stoll(c.frame), entry["time_s"] = std::stod(c.time_s);
    entry["images"] = capture_images[k];
    captures.push_back(entry);
  }
  const Json doc = {
      {"generator", "gpuproc stitch-360"},
      {"conventions",
       {{"panorama_frame", "ffmpeg v360: x right (yaw 90), y down (nadir), z forward (yaw 0, pitch 0)"},
        {"camera_frame", "COLMAP / OpenCV: x right, y down, z viewing direction"},
        {"rotation", "camera-to-panorama R = Ry(yaw) Rx(pitch) Rz(roll) (v360 rorder ypr); +yaw right, +pitch up, "
                     "+roll turns the camera clockwise seen from behind"},
        {"rotation_world_to_camera", "R^T, with the panorama frame as the world: X_camera = R^T X_world (COLMAP's R, T = 0)"},
        {"quaternion_wxyz", "R^T as a unit quaternion, Hamilton convention (COLMAP's QW QX QY QZ), w >= 0"},
        {"direction", "the view's centre ray in the panorama frame"},
        {"pixels", "top-left image corner at (0, 0), pixel centres at +0.5 (COLMAP); cx = width / 2, cy = height / 2"},
        {"focal_length_mm", "EXIF FocalLength for a sensor sensor_width_mm wide: sensor_width_mm * fx / width"},
        {"focal_length_35mm", "EXIF FocalLengthIn35mmFilm: round(36 * fx / width)"},
        {"cameras", "COLMAP's cameras: one per view and eye, numbered as feature_extractor "
                    "--ImageReader.single_camera_per_folder 1 numbers the views' folders (image_path: the output folder)"},
        {"captures", "each still panorama or selected video frame with its views' images (names relative to the output folder)"}}},
      {"sensor_width_mm", sensor_width_mm},
      {"views", list},
      {"cameras", cameras},
      {"captures", captures},
      {"rig_config", rig_problem.empty() ? Json("rig_config.json") : Json("none: " + rig_problem)}};
  write_text(path, doc.dump(2) + "\n");
}

void write_colmap_cameras_txt(const std::string& path, const RigModel& model) {
  std::vector<const RigCamera*> by_id;
  for (const RigCamera& c : model.cameras) by_id.push_back(&c);
  std::sort(by_id.begin(), by_id.end(),
            [](const RigCamera* a, const RigCamera* b) { return a->colmap_camera_id < b->colmap_camera_id; });
  std::string text =
      "# Camera list with one line of data per camera:\n"
      "#   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]\n"
      "# Number of cameras: " + std::to_string(by_id.size()) + "\n";
  for (const RigCamera* c : by_id) {
    const ViewCamera& v = model.views.at(c->view);
    text += std::to_string(c->colmap_camera_id) + " PINHOLE " + std::to_string(v.spec.width) + " " +
            std::to_string(v.spec.height) + " " + number(v.fx) + " " + number(v.fy) + " " + number(v.cx) + " " +
            number(v.cy) + "\n";
  }
  write_text(path, text);
}

void write_colmap_images_txt(const std::string& path, const RigModel& model) {
  // Poses are known only within one capture, and there only for one eye: its views share that
  // eye's centre, the world origin (the other eye's lies a baseline away that is not known).
  std::vector<const RigImage*> posed;
  if (model.captures.size() == 1)
    for (const RigImage& image : model.images)
      if (model.cameras.at(image.camera).eye == model.cameras.front().eye) posed.push_back(&image);
  const std::size_t count = posed.size();
  std::string text =
      "# Image list with two lines of data per image:\n"
      "#   IMAGE_ID, QW, QX, QY, QZ, TX, TY, TZ, CAMERA_ID, NAME\n"
      "#   POINTS2D[] as (X, Y, POINT3D_ID)\n"
      "# Number of images: " + std::to_string(count) + ", mean observations per image: 0\n";
  if (model.captures.size() > 1)
    text += "# No poses: the " + std::to_string(model.captures.size()) +
            " panoramas or frames were taken at unknown places (rig_config.json holds the views' relative rotations)\n";
  else if (count < model.images.size())
    text += "# The " + std::string(model.cameras.front().eye_name) +
            " eye's views only: the other eye's centre is a baseline away that is not known\n";
  for (std::size_t i = 0; i < count; ++i) {
    const RigImage& image = *posed[i];
    if (image.name.empty() || image.name.find_first_of(" \t\r\n") != std::string::npos)
      throw ItemError(path, "write", "COLMAP image names must be non-empty and without white space, got \"" + image.name + "\"");
    const RigCamera& camera = model.cameras.at(image.camera);
    const auto& q = model.views.at(camera.view).qvec;
    text += std::to_string(i + 1) + " " + number(q[0]) + " " + number(q[1]) + " " + number(q[2]) + " " + number(q[3]) +
            " 0 0 0 " + std::to_string(camera.colmap_camera_id) + " " + image.name + "\n\n";
  }
  write_text(path, text);
}

void write_colmap_points3d_txt(const std::string& path) {
  write_text(path,
             "# 3D point list with one line of data per point:\n"
             "#   POINT3D_ID, X, Y, Z, R, G, B, ERROR, TRACK[] as (IMAGE_ID, POINT2D_IDX)\n"
             "# Number of points: 0, mean track length: 0\n");
}

void write_colmap_rig_config(const std::string& path, const RigModel& model) {
  using Json = nlohmann::ordered_json;
  Json rigs = Json::array();
  for (const int eye : {0, 1}) {
    const RigCamera* reference = nullptr;
    Json cameras = Json::array();
    for (const RigCamera& c : model.cameras) {
      if (c.eye != eye) continue;
      if (!reference) reference = &c;
      const auto q = rig_relative_qvec(model.views.at(c.view), model.views.at(reference->view));
      cameras.push_back({{"camera_id", c.colmap_camera_id},
                         {"image_prefix", c.image_prefix},
                         {"rel_qvec", {q[0] + 0.0, q[1] + 0.0, q[2] + 0.0, q[3] + 0.0}},
                         {"rel_tvec", {0.0, 0.0, 0.0}}});
    }
    if (reference) rigs.push_back({{"ref_camera_id", reference->colmap_camera_id}, {"cameras", cameras}});
  }
  write_text(path, rigs.dump(2) + "\n");
}

}  // namespace gp::stitch
