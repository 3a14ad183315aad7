#pragma once
// stitch-360's virtual pinhole cameras ("views"): their specification, the presets, focal
// lengths (pixels, EXIF millimetres) and the rig description files: cameras.json and COLMAP's
// text model (cameras.txt, images.txt). Host code, double precision.
//
// Conventions (ffmpeg's v360 filter, as cuda/stitch/sphere.hpp):
// * Panorama frame: +x right (yaw 90), +y DOWN (the nadir), +z forward (yaw 0, pitch 0: the
//   centre of the equirect). Right-handed. yaw = atan2(x, z), positive to the right;
//   pitch = asin(-y), positive up.
// * Camera frame: +x right, +y down in the image, +z the viewing direction: the axes of COLMAP
//   and OpenCV. The panorama frame is the camera frame of the view with yaw = pitch = roll = 0.
// * A view with yaw, pitch, roll (degrees) has camera-to-panorama rotation
//     R = Ry(yaw) Rx(pitch) Rz(roll),  Ry = [[c,0,s],[0,1,0],[-s,0,c]], Rx = [[1,0,0],[0,c,-s],[0,s,c]],
//                                      Rz = [[c,-s,0],[s,c,0],[0,0,1]]
//   (v360's calculate_rotation_matrix, rorder "ypr"; the view equals
//   ffmpeg -vf v360=e:flat:yaw=Y:pitch=P:roll=R:h_fov=H:v_fov=V). +yaw turns the view right,
//   +pitch up, +roll turns the camera clockwise as seen from behind it (its right edge dips; the
//   scene appears turned counter-clockwise).
// * COLMAP: the panorama frame is the world; every view shares the panorama's centre, so
//   X_camera = R_wc X_world with R_wc = R^T and T = 0. images.txt holds R_wc as the unit
//   quaternion (QW, QX, QY, QZ), Hamilton convention as COLMAP's (Eigen's), QW >= 0.
// * Pixels as COLMAP: the image's top-left corner is (0, 0), pixel (i, j) has its centre at
//   (i + 0.5, j + 0.5); views are centred: cx = W / 2, cy = H / 2, square pixels: fy = fx.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace gp::stitch {

// One virtual camera as configured.
struct ViewSpec {
  std::string name;
  double yaw_deg = 0, pitch_deg = 0, roll_deg = 0;
  double hfov_deg = 90;  // horizontal field of view; used when focal_px is 0
  double focal_px = 0;   // focal length in pixels; > 0 takes precedence over hfov_deg
  int width = 1920, height = 1920;
};

// "ring8": 8 views at yaw 0, 45, ..., 315 (as -180 < yaw <= 180: 0, 45, 90, 135, 180, -135, -90,
//   -45), pitch 0, named yaw000 ... yaw315.
// "ring8+zenith+nadir": ring8, then "zenith" (pitch 90) and "nadir" (pitch -90).
// "cube": front (yaw 0), right (90), back (180), left (-90), up (pitch 90), down (pitch -90), all
//   hfov 90 whatever hfov_deg says; width must equal height (gp::UsageError otherwise). Their
//   images match v360's cube faces: up has the front at its bottom edge, down the back.
const std::vector<std::string>& view_preset_names();
// The views of a preset, each width x height with hfov_deg; gp::UsageError for an unknown name.
std::vector<ViewSpec> view_preset(const std::string& preset, int width, int height, double hfov_deg = 90);

using Vec3d = std::array<double, 3>;
using Mat3d = std::array<double, 9>;  // row-major

// R = Ry(yaw) Rx(pitch) Rz(roll) (camera -> panorama). sin and cos are exact at multiples of 90
// degrees, so axis-aligned views get exact 0 and +-1 entries.
Mat3d camera_to_panorama(double yaw_deg, double pitch_deg, double roll_deg);
Mat3d transposed(const Mat3d& m);
Vec3d multiply(const Mat3d& m, const Vec3d& v);

// Unit direction of (yaw, pitch) and back; yaw in (-180, 180], pitch in [-90, 90].
Vec3d direction_from_yaw_pitch(double yaw_deg, double pitch_deg);
void yaw_pitch_from_direction(const Vec3d& d, double& yaw_deg, double& pitch_deg);

// Unit quaternion (w, x, y, z) of a rotation matrix, w >= 0 (w = 0: first non-zero of x, y, z
// positive).
std::array<double, 4> quaternion_from_rotation(const Mat3d& r);

// f = (size / 2) / tan(fov / 2) and its inverse; fov in degrees, (0, 180).
double focal_px_from_fov(double fov_deg, int size);
double fov_deg_from_focal_px(double focal_px, int size);

// EXIF focal lengths of a view `width` pixels wide, as if its sensor were sensor_width_mm wide
// (36: full-frame equivalent): FocalLength = sensor_width_mm * f_px / width (millimetres) and
// FocalLengthIn35mmFilm = round(36 * f_px / width).
struct ExifFocal {
  double focal_length_mm = 0;
  int focal_length_35mm = 0;
};
ExifFocal exif_focal(double focal_px, int width, double sensor_width_mm = 36.0);

// A view with everything the writers and the projections need.
struct ViewCamera {
  ViewSpec spec;
  std::string file_name;              // its output file (naming template already expanded)
  double fx = 0, fy = 0, cx = 0, cy = 0;
  double hfov_deg = 0, vfov_deg = 0;
  Mat3d camera_to_panorama{};         // R
  Mat3d world_to_camera{};            // R^T, COLMAP's rotation
  std::array<double, 4> qvec{};       // COLMAP's QW, QX, QY, QZ of world_to_camera
};

// Checks the spec (gp::UsageError naming the view: size 1..65535, finite angles, pitch within
// [-90, 90], focal_px > 0 or hfov_deg in (0, 180)) and derives the rest.
ViewCamera resolve_view(const ViewSpec& spec, const std::string& file_name = "");

// Panorama direction (unit) through the continuous view position (x, y), and the view position
// of a direction (false when it is not in front of the camera: z <= 0).
Vec3d view_ray(const ViewCamera& view, double x, double y);
bool project_to_view(const ViewCamera& view, const Vec3d& direction, double& x, double& y);

// ---- The job's rig ----------------------------------------------------------------------------
//
// A camera of the rig is one view as one eye sees it (mono inputs: one per view); a capture is one
// still panorama or one video frame, whose views were all taken at once (COLMAP's rig "snapshot").
// COLMAP gives each folder of images a camera of its own (feature_extractor
// --ImageReader.single_camera_per_folder 1), numbered in the order it meets the folders in its
// sorted image list; rig_bundle_adjuster's configuration names each camera by that id and by an
// image_prefix: an image belongs to the camera whose prefix its name contains, and images whose
// names are equal after their prefixes form one snapshot.

struct RigCamera {
  std::size_t view = 0;      // index into RigModel::views
  int eye = 0;               // 0: mono or the left eye, 1: the right eye
  std::string eye_name;      // "", "left", "right"
  std::string label;         // its {view} in the names (with the eye when both eyes are projected)
  std::string image_prefix;  // "folder/" of its images (set by check_rig; empty when there is none)
  int colmap_camera_id = 0;  // set by check_rig
};

struct RigCapture {
  std::string input;   // the input file
  std::string frame;   // a video frame's index ("" for a still)
  std::string time_s;  // its time in seconds ("" for a still)
};

// One written view: its name relative to the output folder (COLMAP's image name when the output
// folder is its image_path), its camera and its capture.
struct RigImage {
  std::string name;
  std::size_t camera = 0, capture = 0;
};

struct RigModel {
  std::vector<ViewCamera> views;
  std::vector<RigCamera> cameras;
  std::vector<RigCapture> captures;
  std::vector<RigImage> images;
};

// Numbers the cameras as COLMAP's import does (the order of their images' folders in the sorted
// names; cameras without images after, in order), sets each camera's image_prefix, and says why
// COLMAP could not use a rig configuration of these names ("" when it can): every camera needs its
// images in one folder of its own (else COLMAP's cameras are not the views), and COLMAP's matching
// by prefix (its StringContains and the text after the last occurrence) must give each image its
// own camera and group the images exactly by capture.
std::string check_rig(RigModel& model);

// The relative pose of a camera in its rig (the rig frame: the reference camera's; all views
// share the panorama's centre, so the translation is 0): X_camera = R_rel X_rig with R_rel =
// W_camera W_reference^T (W: world-to-camera rotations), COLMAP's rel_qvec (w, x, y, z).
std::array<double, 4> rig_relative_qvec(const ViewCamera& camera, const ViewCamera& reference);

// The writers: atomic (gp::write_atomically), gp::ItemError(path, "write", ...) on failure;
// `model` as check_rig left it.
//
// cameras.json: {"generator", "conventions" {...}, "sensor_width_mm", "views": [{"name", "file"
// (its first image), "yaw_deg", "pitch_deg", "roll_deg", "direction" (centre ray, panorama frame),
// "rotation_world_to_camera" (3 rows), "quaternion_wxyz", "fx", "fy", "cx", "cy", "width",
// "height", "hfov_deg", "vfov_deg", "focal_length_mm", "focal_length_35mm", "colmap_camera_id"
// (of its first eye's camera)}], "cameras": [{"colmap_camera_id", "view", "eye", "label",
// "image_prefix"}], "captures": [{"input", "frame", "time_s", "images": [names, in camera order]}],
// "rig_config" (the file, or why there is none)}.
void write_cameras_json(const std::string& path, const RigModel& model, const std::string& rig_problem,
                        double sensor_width_mm = 36.0);
// cameras.txt: "CAMERA_ID PINHOLE WIDTH HEIGHT fx fy cx cy" per camera, in id order.
void write_colmap_cameras_txt(const std::string& path, const RigModel& model);
// images.txt: the images whose poses are known, per image "IMAGE_ID QW QX QY QZ TX TY TZ
// CAMERA_ID NAME" and an empty POINTS2D line: with one capture, its views (each the view's
// rotation, T = 0: they share the panorama's centre, the world origin), of the first eye only for
// a stereo input (the other eye's centre is a baseline away that is not known); with several
// captures, none (the panorama moved between them, by how much is unknown: the rig configuration
// holds what is known).
void write_colmap_images_txt(const std::string& path, const RigModel& model);
// points3D.txt: no points (COLMAP's text model needs the file).
void write_colmap_points3d_txt(const std::string& path);
// rig_config.json for colmap rig_bundle_adjuster: one rig per eye, [{"ref_camera_id", "cameras":
// [{"camera_id", "image_prefix", "rel_qvec", "rel_tvec"}]}], the reference its first view.
// check_rig must have found no problem.
void write_colmap_rig_config(const std::string& path, const RigModel& model);

}  // namespace gp::stitch
