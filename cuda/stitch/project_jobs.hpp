#pragma once
// Host side shared by the launchers and the CPU references: argument checks (a wrong view becomes
// a gp::Error naming the function) and the job lists both run. nvcc-safe.
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "cuda/common/checks.hpp"
#include "cuda/stitch/project.hpp"
#include "cuda/stitch/project_pixel.hpp"

namespace gp::stitch::detail {

using kernel_checks::require;

inline std::string size_text(const ImageView& v) { return std::to_string(v.width) + "x" + std::to_string(v.height); }

// The ImageView pixel type of samples of type T (u8 or f32).
template <class T>
constexpr PixelType pixel_type_of() {
  return sizeof(T) == 1 ? PixelType::u8 : PixelType::f32;
}

// A non-empty u8 or f32 (as T) image with 1-4 interleaved channels.
template <class T>
void require_image(const ImageView& v, const char* function, const char* name) {
  require(v.type == pixel_type_of<T>(), function,
          std::string(name) + (sizeof(T) == 1 ? ": must be u8 like the source" : ": must be f32 like the source"));
  require(v.channels >= 1 && v.channels <= 4, function, std::string(name) + ": must have 1-4 channels");
  require(v.width > 0 && v.height > 0, function, std::string(name) + ": empty image");
  require(v.width < (1 << 20) && v.height < (1 << 20), function, std::string(name) + ": too large");
  require(v.pitch >= v.row_bytes(), function, std::string(name) + ": pitch smaller than a row");
  require(v.data != nullptr, function, std::string(name) + ": no data");
}

inline void require_options(const SampleOptions& o, const char* function) {
  require(o.interp == Interp::nearest || o.interp == Interp::bilinear || o.interp == Interp::bicubic ||
              o.interp == Interp::lanczos3,
          function, "unknown interpolation");
  require(o.max_subsamples >= 1 && o.max_subsamples <= 64, function, "max_subsamples must be 1..64");
  require(o.equirect_scale == EquirectScale::ffmpeg || o.equirect_scale == EquirectScale::exact, function,
          "unknown equirect scale");
}

template <class T>
SourceImage<T> source_image(const ImageView& v) {
  return SourceImage<T>{static_cast<const T*>(v.data), v.pitch, v.width, v.height, v.channels};
}

template <class T>
OutputImage<T> output_image(const ImageView& dst, const ImageView& src, const char* function) {
  require_image<T>(dst, function, "dst");
  require(dst.channels == src.channels, function,
          "dst has " + std::to_string(dst.channels) + " channels, the source " + std::to_string(src.channels));
  return OutputImage<T>{static_cast<T*>(dst.data), dst.pitch, dst.width, dst.height, dst.channels};
}

// Calls f(T{}) with T the sample type of `v` (u8 -> std::uint8_t, f32 -> float); other types
// are refused naming the function.
template <class F>
decltype(auto) with_sample_type(const ImageView& v, const char* function, F&& f) {
  require(v.type == PixelType::u8 || v.type == PixelType::f32, function, "src: must be u8 or f32");
  if (v.type == PixelType::f32) return f(float{});
  return f(std::uint8_t{});
}

inline MaskImage mask_image(const ImageView& mask, const ImageView& dst, const char* function) {
  if (mask.data == nullptr) return MaskImage{nullptr, 0};
  require(mask.type == PixelType::u8 && mask.channels == 1, function, "mask: must be u8 with 1 channel");
  require(mask.width == dst.width && mask.height == dst.height, function,
          "mask is " + size_text(mask) + ", the output " + size_text(dst));
  require(mask.pitch >= mask.row_bytes(), function, "mask: pitch smaller than a row");
  return MaskImage{static_cast<const std::uint8_t*>(mask.data), mask.pitch};
}

template <class T>
EquirectTexels<T> equirect_texels(const ImageView& src, const SampleOptions& o) {
  return EquirectTexels<T>{source_image<T>(src), o.equirect_scale == EquirectScale::ffmpeg, o.equirect_hemisphere};
}

template <class Map, int N>
void add_job(JobList<Map, N>& list, const Map& map, const OutputImage<typename Map::Pixel>& out, const MaskImage& mask) {
  list.job[list.count++] = Job<Map>{map, out, mask};
  if (out.width > list.max_width) list.max_width = out.width;
  if (out.height > list.max_height) list.max_height = out.height;
}

template <class Map, int N>
JobList<Map, N> empty_job_list() {
  JobList<Map, N> list{};
  list.count = list.max_width = list.max_height = 0;
  return list;
}

template <class T>
using PerspectiveJobs = JobList<EquirectSourceMap<CameraRays, T>, max_batch_views>;
template <class T>
using CubeFaceJobs = JobList<EquirectSourceMap<CubeFaceRays, T>, cube_face_count>;
template <class T>
using CubeSourceJobs = JobList<CubeSourceMap<T>, 1>;
template <class T>
using DualFisheyeJobs = JobList<DualFisheyeMap<T>, 1>;

template <class T>
PerspectiveJobs<T> perspective_jobs(const ImageView& src, const PerspectiveTarget* targets, int count,
                                    const SampleOptions& o, const char* function) {
  require_image<T>(src, function, "src");
  require_options(o, function);
  require(count >= 1 && count <= max_batch_views, function,
          "1.." + std::to_string(max_batch_views) + " views per call, not " + std::to_string(count));
  auto list = empty_job_list<EquirectSourceMap<CameraRays, T>, max_batch_views>();
  for (int i = 0; i < count; ++i) {
    const PerspectiveTarget& t = targets[i];
    const OutputImage<T> out = output_image<T>(t.dst, src, function);
    const Camera& c = t.camera;
    require(c.width == t.dst.width && c.height == t.dst.height, function,
            "camera " + std::to_string(i) + " is " + std::to_string(c.width) + "x" + std::to_string(c.height) +
                ", its output " + size_text(t.dst));
    require(std::isfinite(c.fx) && std::isfinite(c.fy) && c.fx > 0 && c.fy > 0, function, "focal lengths must be positive");
    const EquirectSourceMap<CameraRays, T> map{CameraRays{c}, equirect_texels<T>(src, o),
                                            equirect_mapping(src.width, src.height, o.equirect_scale, o.equirect_hemisphere)};
    add_job(list, map, out, mask_image(t.mask, t.dst, function));
  }
  return list;
}

// Where each job's points start in a remap table (project.hpp's layout), and its size.
struct RemapOffsets {
  std::size_t first[max_batch_views];
  std::size_t total;
};

template <class T>
RemapOffsets remap_offsets(const PerspectiveJobs<T>& jobs) {
  RemapOffsets o{};
  for (int j = 0; j < jobs.count; ++j) {
    o.first[j] = o.total;
    o.total += std::size_t(jobs.job[j].out.width) * std::size_t(jobs.job[j].out.height);
  }
  return o;
}

inline void require_face(int face, const char* function) {
  require(face >= 0 && face < cube_face_count, function, "face index must be 0..5, not " + std::to_string(face));
}

template <class T>
CubeFaceJobs<T> cube_face_jobs(const ImageView& src, const ImageView* dsts, const int* face_ids, int count,
                               const Mat3& rotation, const SampleOptions& o, const char* function) {
  require_image<T>(src, function, "src");
  require_options(o, function);
  auto list = empty_job_list<EquirectSourceMap<CubeFaceRays, T>, cube_face_count>();
  for (int i = 0; i < count; ++i) {
    require_face(face_ids[i], function);
    const OutputImage<T> out = output_image<T>(dsts[i], src, function);
    require(out.width == out.height, function, "cube face " + size_text(dsts[i]) + " is not square");
    const EquirectSourceMap<CubeFaceRays, T> map{CubeFaceRays{rotation, face_ids[i], out.width}, equirect_texels<T>(src, o),
                                              equirect_mapping(src.width, src.height, o.equirect_scale, o.equirect_hemisphere)};
    add_job(list, map, out, MaskImage{nullptr, 0});
  }
  return list;
}

template <class T>
CubeSourceJobs<T> cube_source_jobs(const CubeFaces& faces, const ImageView& dst, const ImageView& mask,
                                   const Mat3& rotation, const SampleOptions& o, const char* function) {
  require_options(o, function);
  CubeSourceMap<T> map{};
  for (int f = 0; f < cube_face_count; ++f) {
    const std::string name = "face " + std::to_string(f);
    require_image<T>(faces[f], function, name.c_str());
    require(faces[f].width == faces[f].height && faces[f].width == faces[0].width &&
                faces[f].channels == faces[0].channels,
            function, name + " (" + size_text(faces[f]) + ") differs from face 0 (" + size_text(faces[0]) + ")");
    map.faces[f] = source_image<T>(faces[f]);
  }
  map.n = faces[0].width;
  map.out_width = dst.width;
  map.out_height = dst.height;
  map.rotation = rotation;
  auto list = empty_job_list<CubeSourceMap<T>, 1>();
  add_job(list, map, output_image<T>(dst, faces[0], function), mask_image(mask, dst, function));
  return list;
}

template <class T>
DualFisheyeJobs<T> dual_fisheye_jobs(const ImageView& src, const DualFisheye& rig, const ImageView& dst,
                                     const ImageView& mask, const SampleOptions& o, const char* function) {
  require_image<T>(src, function, "src");
  require_options(o, function);
  DualFisheyeMap<T> map{};
  map.image = source_image<T>(src);
  for (int k = 0; k < 2; ++k) {
    FisheyeLens lens = rig.lens[k];
    require(lens.half_fov > 0.0f && lens.half_fov <= k_pi, function, "lens FOV must be in (0, 360] degrees");
    // Keep each lens's clip rectangle inside the frame.
    lens.clip[0] = std::fmax(lens.clip[0], 0.0f);
    lens.clip[1] = std::fmax(lens.clip[1], 0.0f);
    lens.clip[2] = std::fmin(lens.clip[2], float(src.width - 1));
    lens.clip[3] = std::fmin(lens.clip[3], float(src.height - 1));
    require(lens.clip[0] <= lens.clip[2] && lens.clip[1] <= lens.clip[3], function, "lens clip rectangle is empty");
    map.lens[k] = lens;
  }
  require(std::isfinite(rig.blend_deg) && rig.blend_deg >= 0.0f, function, "blend width must be >= 0");
  map.blend_rad = float(double(rig.blend_deg) * 3.14159265358979323846 / 180.0);
  map.out_width = dst.width;
  map.out_height = dst.height;
  auto list = empty_job_list<DualFisheyeMap<T>, 1>();
  add_job(list, map, output_image<T>(dst, src, function), mask_image(mask, dst, function));
  return list;
}

}  // namespace gp::stitch::detail
