#include "stitch/projector.hpp"

#include <string>

#include "core/error.hpp"

namespace gp::stitch {
namespace {

Interp interp_of(const std::string& name) {
  if (name == "nearest") return Interp::nearest;
  if (name == "bicubic") return Interp::bicubic;
  if (name == "lanczos3") return Interp::lanczos3;
  return Interp::bilinear;
}

CubeLayout layout_of(const std::string& name) { return name == "1x6" ? CubeLayout::c1x6 : CubeLayout::c3x2; }

DualFisheye lenses_for(const Settings& s, int frame_w, int frame_h) {
  DualFisheye rig;
  for (int i = 0; i < 2; ++i) {
    const LensConfig& l = s.lenses[i];
    rig.lens[i] = make_fisheye_lens(l.center_x * frame_w, l.center_y * frame_h, l.radius * frame_w, l.fov_deg,
                                    l.yaw_deg, l.pitch_deg, l.roll_deg, frame_w, frame_h, l.k);
  }
  rig.blend_deg = float(s.blend_deg);
  return rig;
}

}  // namespace

SampleOptions Projector::options_for(const ImageView& src) const {
  SampleOptions o = options_;
  o.equirect_hemisphere = hemisphere_eye(settings_, src.width, src.height);
  return o;
}

Projector::Projector(const Settings& settings) : settings_(settings) {
  options_.interp = interp_of(settings.interpolation);
  options_.max_subsamples = settings.antialias ? 8 : 1;
  for (const ViewCamera& v : resolve_views(settings))
    cameras_.push_back(make_camera_focal(v.spec.yaw_deg, v.spec.pitch_deg, v.spec.roll_deg, v.fx, v.spec.width,
                                         v.spec.height));
}

std::vector<PerspectiveTarget> Projector::view_targets(const std::vector<ImageView>& dst,
                                                       const std::vector<ImageView>& masks) const {
  std::vector<PerspectiveTarget> targets;
  // Both eyes of a stereo input: the views once per eye.
  for (std::size_t v = 0; v < dst.size(); ++v)
    targets.push_back({cameras_[v % cameras_.size()], dst[v], masks.empty() ? ImageView{} : masks[v]});
  return targets;
}

std::size_t Projector::remap_table_bytes(const std::vector<ImageView>& outputs) const {
  const std::vector<PerspectiveTarget> targets = view_targets(outputs, {});
  return perspective_remap_bytes(targets.data(), int(targets.size()));
}

void Projector::build_remap_device(const ImageView& panorama, const std::vector<ImageView>& outputs, void* table,
                                   cudaStream_t stream) const {
  const std::vector<PerspectiveTarget> targets = view_targets(outputs, {});
  // Every eye has the same size (its half of the panorama): the table is the same per eye's views.
  const ImageView eye = eye_view(panorama, settings_.stereo, 0);
  auto* bytes = static_cast<std::uint8_t*>(table);
  for (std::size_t first = 0; first < targets.size(); first += max_batch_views) {
    const int count = int(std::min<std::size_t>(max_batch_views, targets.size() - first));
    build_perspective_remap_gpu(eye, targets.data() + first, count, options_for(eye), bytes, stream);
    bytes += perspective_remap_bytes(targets.data() + first, count);
  }
}

void Projector::project(const ImageView& panorama, const std::vector<ImageView>& dst, const std::vector<ImageView>& masks,
                        const cudaStream_t* stream, const void* remap_table) const {
  // Stereo inputs: each eye's outputs in turn (plan_outputs' order), from that eye's half.
  const std::size_t eyes = settings_.eyes.size();
  const std::size_t per_eye = dst.size() / eyes;
  const auto* table = static_cast<const std::uint8_t*>(remap_table);
  for (std::size_t e = 0; e < eyes; ++e) {
    const auto part = [&](const std::vector<ImageView>& v) {
      return v.empty() ? v : std::vector<ImageView>(v.begin() + std::ptrdiff_t(e * per_eye), v.begin() + std::ptrdiff_t((e + 1) * per_eye));
    };
    const std::vector<ImageView> eye_dst = part(dst);
    project_eye(eye_view(panorama, settings_.stereo, settings_.eyes[e]), eye_dst, part(masks), stream, table);
    if (table) table += remap_table_bytes(eye_dst);
  }
}

void Projector::project_eye(const ImageView& src, const std::vector<ImageView>& dst, const std::vector<ImageView>& masks,
                            const cudaStream_t* stream, const void* remap_table) const {
  const Settings& s = settings_;
  const SampleOptions options = options_for(src);
  const ImageView no_mask;
  if (!masks.empty() && (s.mode != "views" || masks.size() != dst.size()))
    throw Error("stitch-360: " + std::to_string(masks.size()) + " masks for " + std::to_string(dst.size()) +
                " outputs of mode " + s.mode + " (masks are applied in mode views, one per view)");
  if (s.mode == "views") {
    const std::vector<PerspectiveTarget> targets = view_targets(dst, masks);
    const auto* table = static_cast<const std::uint8_t*>(remap_table);
    for (std::size_t first = 0; first < targets.size(); first += max_batch_views) {
      const int count = int(std::min<std::size_t>(max_batch_views, targets.size() - first));
      if (stream && table)
        equirect_to_perspective_remap_gpu(src, targets.data() + first, count, options, table, *stream);
      else if (stream)
        equirect_to_perspective_batch_gpu(src, targets.data() + first, count, options, *stream);
      else
        equirect_to_perspective_batch_cpu(src, targets.data() + first, count, options);
      if (table) table += perspective_remap_bytes(targets.data() + first, count);
    }
  } else if (s.mode == "cubemap") {
    CubeFaces faces;
    if (s.cube_layout == "faces")
      for (int f = 0; f < cube_face_count; ++f) faces[f] = dst[f];
    else
      faces = cube_layout_faces(dst[0], layout_of(s.cube_layout));
    if (stream)
      equirect_to_cubemap_gpu(src, faces, options, *stream);
    else
      equirect_to_cubemap_cpu(src, faces, options);
  } else if (s.mode == "equirect_from_cubemap") {
    const CubeFaces faces = cube_layout_faces(src, layout_of(s.cube_layout));
    if (stream)
      cubemap_to_equirect_gpu(faces, dst[0], no_mask, options, *stream);
    else
      cubemap_to_equirect_cpu(faces, dst[0], no_mask, options);
  } else {
    const DualFisheye rig = lenses_for(s, src.width, src.height);
    if (stream)
      dual_fisheye_to_equirect_gpu(src, rig, dst[0], no_mask, options, *stream);
    else
      dual_fisheye_to_equirect_cpu(src, rig, dst[0], no_mask, options);
  }
}

void Projector::run_cpu(const ImageView& panorama, std::vector<OutputImage>& outputs,
                        const std::vector<ImageView>& masks) const {
  std::vector<ImageView> dst;
  for (OutputImage& o : outputs) {
    o.channels = panorama.channels;
    o.type = panorama.type;
    o.pixels.resize(o.bytes());
    dst.push_back(o.view());
  }
  project(panorama, dst, masks, nullptr, nullptr);
}

void Projector::run_device(const ImageView& panorama, const std::vector<ImageView>& outputs, cudaStream_t stream,
                           const std::vector<ImageView>& masks, const void* remap_table) const {
  project(panorama, outputs, masks, &stream, remap_table);
}

}  // namespace gp::stitch
