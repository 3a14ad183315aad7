#pragma once
// stitch-360's job config: the schema (the single source of the documented example and of
// validation) and the typed settings read from a validated config.
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/output_naming.hpp"
#include "core/views.hpp"
#include "cuda/tone/tone_kernels.hpp"
#include "stitch/frame_selection.hpp"
#include "stitch/rig.hpp"

namespace gp::stitch {

const config::Schema& schema();

// One lens of a dual-fisheye frame, in pixels of that frame once resolved (the config gives
// centre and radius as fractions of the frame's width and height).
struct LensConfig {
  double center_x = 0.25, center_y = 0.5;  // fractions of the frame's width and height
  double radius = 0.25;                    // fraction of the frame's width
  double fov_deg = 195;
  double yaw_deg = 0, pitch_deg = 0, roll_deg = 0;
  double k[4] = {0, 0, 0, 0};              // r(theta) = f (theta + k1 theta^2 + ...); all 0 = equidistant
};

// Masks of the outputs (modes views and cubemap): a panorama-space mask projected like the
// pixels, written as a PNG per output (255 keep, 0 drop), e.g. to keep a tripod out of a
// photogrammetry reconstruction.
struct MaskConfig {
  bool enabled = false;
  std::string image;            // equirect mask file (dark = drop), any 2:1 size; empty: none
  double nadir_deg = 0;         // also drop the cap this close to the nadir; 0: none
  std::string name_template;    // {output} {stem} {name} {view} {index} {ext}
  bool apply = false;           // also black out dropped pixels in the views (mode views)
};

// Float outputs (output.format exr or hdr): how EXRs are stored, and 8-bit previews tone-mapped
// with the tone operators tonemap-exr also uses (cuda/tone).
struct HdrOutputConfig {
  bool exr_half = true;                 // EXR sample type: half (else float)
  std::string exr_compression = "zip";  // OpenEXR compression
  bool preview = false;                 // a tone-mapped 8-bit preview per output
  std::string preview_name_template;    // {output} {stem} {name} {view} {index} {ext}
  tone::Operator preview_operator = tone::Operator::aces_hill;
  double preview_ev = 0;                // exposure compensation in stops
  bool preview_auto_exposure = false;   // log-average luminance to 0.18 per output first
};

// How an equirect input holds its eyes: one 2:1 panorama, or a stereo pair, the left eye above
// the right (top_bottom) or beside it (side_by_side), each eye a 2:1 panorama of its own.
enum class Stereo { mono, top_bottom, side_by_side };

struct Settings {
  bool recursive = false;
  std::string mode = "views";    // views, cubemap, equirect_from_cubemap, equirect_from_dual_fisheye
  Stereo stereo = Stereo::mono;  // modes views and cubemap
  VideoSelection video;          // which frames of a video input become panoramas
  int video_decoders = 0;        // decoders per video (0: by the cores), see VideoFrameSource
  std::vector<int> eyes{0};      // the eyes projected: {0} (mono, or the left eye), {1} (right), {0, 1}

  // Mode views: the views as the config gives them (read_settings resolves them into `views`).
  struct ViewRequest {
    std::string preset = "ring8";  // ring8, ring8+zenith+nadir, cube, custom
    int width = 1920, height = 1920;
    double hfov_deg = 90;
    std::vector<std::string> custom;  // "name=... yaw=... ..." per view (preset custom)
  } view_request;
  std::vector<ViewSpec> views;   // mode views
  std::string cube_layout = "faces";  // faces (6 files), 3x2, 1x6
  int cube_face_size = 0;        // 0 = panorama width / 4
  int equirect_width = 0;        // equirect outputs; 0 = from the input (4 x face, or 2 x frame height)
  LensConfig lenses[2];
  double blend_deg = 5;          // feathering band across the fisheye seam

  std::string interpolation = "bilinear";  // nearest, bilinear, bicubic, lanczos3
  bool antialias = true;

  OutputNaming naming;            // output.dir, output.mirror_inputs
  std::string name_template;     // {stem} {view} {index} {ext}...
  std::string video_name_template;  // the same for a video's frames, with {frame} and {time}
  std::string format = "jpg";    // jpg, png, tif; exr, hdr (float: HDR inputs keep their range)
  HdrOutputConfig hdr;
  int jpeg_quality = 95;
  bool chroma_444 = false;       // JPEG chroma subsampling 4:4:4 instead of 4:2:0
  bool exif = true;
  bool rig_files = true;         // cameras.json, cameras.txt, images.txt
  MaskConfig mask;

  int batch = 16;                // panoramas per GPU batch
  int gpu_workers = 2;           // GPU workers (stream, codec, batch each)
  bool stop_on_error = false;
};

// The eye `eye` (0 left, 1 right) of a stereo panorama as a view into it (host or device
// pixels alike); the panorama itself when mono.
ImageView eye_view(const ImageView& panorama, Stereo stereo, int eye);
// "" for mono, else "left" / "right": the {eye} of output names.
const char* eye_name(Stereo stereo, int eye);
// Whether an eye of this size is a 180-degree half panorama (VR180: a square eye of a stereo
// input, longitudes -90..90 degrees over its width, v360's hequirect).
bool hemisphere_eye(const Settings& s, int eye_width, int eye_height);
// Why an equirect input of this size cannot be projected ("" when it can): each eye must be a
// 2:1 panorama (within 1%), or square for a stereo input (VR180).
std::string equirect_size_problem(const Settings& s, int width, int height);

// Whether the outputs are float images (EXR, Radiance .hdr).
inline bool float_outputs(const Settings& s) { return s.format == "exr" || s.format == "hdr"; }

// Reads a validated config. Throws UsageError naming the field for what the schema cannot
// express (a malformed custom view).
Settings read_settings(const config::json& config);

// A custom view from "name=front yaw=0 pitch=0 roll=0 hfov=90 width=1920 height=1920" (every key
// optional; the others from `defaults`). Throws UsageError quoting `where` and the text.
ViewSpec parse_view(const std::string& text, const ViewSpec& defaults, const std::string& where);

}  // namespace gp::stitch
