#pragma once
// stitch-360 projections: GPU launchers (*_gpu, asynchronous on `stream`, no allocation) and their
// CPU references (*_cpu, multithreaded), same arguments, same results (bit-identical floats; see
// sphere.hpp for the axis conventions, those of ffmpeg's v360). Images are u8 (8-bit) or f32
// (HDR, linear radiance: nothing clamped, values above 1 kept) ImageViews with 1-4 interleaved
// channels; outputs have the source's type and channel count. nvcc-safe.
//
// Optional masks: a u8, 1-channel view of the output's size; where it is 0 the output pixel is
// set to 0 (all channels) and not computed. A view with data == nullptr means no mask.
#include <cuda_runtime_api.h>

#include <array>

#include "core/views.hpp"
#include "cuda/stitch/sample.hpp"
#include "cuda/stitch/sphere.hpp"

namespace gp::stitch {

struct SampleOptions {
  Interp interp = Interp::bilinear;
  // Area antialiasing: where one output pixel covers more than about one source pixel along an
  // output axis (the distance between the source positions of neighbouring output pixels, s),
  // average round(s) sub-samples along that axis, at most this many; 1 turns it off.
  int max_subsamples = 8;
  EquirectScale equirect_scale = EquirectScale::ffmpeg;  // for equirect sources
  // Equirect sources cover longitudes -90..90 degrees over their width (a VR180 eye, v360's
  // hequirect) rather than the whole turn; directions behind them come out black.
  bool equirect_hemisphere = false;
};

// ---- equirect -> perspective views

void equirect_to_perspective_gpu(const ImageView& src, const Camera& camera, const ImageView& dst,
                                 const ImageView& mask, const SampleOptions& options, cudaStream_t stream);
void equirect_to_perspective_cpu(const ImageView& src, const Camera& camera, const ImageView& dst,
                                 const ImageView& mask, const SampleOptions& options);

// Several views of one panorama in one launch (views may differ in size).
constexpr int max_batch_views = 16;
struct PerspectiveTarget {
  Camera camera;
  ImageView dst;
  ImageView mask;  // data == nullptr: none
};
void equirect_to_perspective_batch_gpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options, cudaStream_t stream);
void equirect_to_perspective_batch_cpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options);

// Remap tables of views (project_pixel.hpp): the source position of every output pixel of these
// targets, for sources of src's size (its pixels are not read) and these options. One table
// serves every panorama of that size; the remapped projection gives the same pixels as
// equirect_to_perspective_batch_* in a fraction of the GPU time. Layout: each target's points
// (8 bytes each, rows of dst.width) after the previous target's.
std::size_t perspective_remap_bytes(const PerspectiveTarget* targets, int count);
void build_perspective_remap_gpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                 const SampleOptions& options, void* table, cudaStream_t stream);
void build_perspective_remap_cpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                 const SampleOptions& options, void* table);
void equirect_to_perspective_remap_gpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options, const void* table, cudaStream_t stream);
void equirect_to_perspective_remap_cpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options, const void* table);

// ---- cubemaps (faces in v360's order right, left, up, down, front, back; square, one size)

using CubeFaces = std::array<ImageView, cube_face_count>;

// One face; its size is dst's (square). `rotation` turns the cube (v360's yaw/pitch/roll:
// face ray -> panorama frame), identity by default.
void equirect_to_cubemap_face_gpu(const ImageView& src, CubeFace face, const ImageView& dst,
                                  const SampleOptions& options, cudaStream_t stream,
                                  const Mat3& rotation = Mat3::identity());
void equirect_to_cubemap_face_cpu(const ImageView& src, CubeFace face, const ImageView& dst,
                                  const SampleOptions& options, const Mat3& rotation = Mat3::identity());
// All six faces in one launch.
void equirect_to_cubemap_gpu(const ImageView& src, const CubeFaces& faces, const SampleOptions& options,
                             cudaStream_t stream, const Mat3& rotation = Mat3::identity());
void equirect_to_cubemap_cpu(const ImageView& src, const CubeFaces& faces, const SampleOptions& options,
                             const Mat3& rotation = Mat3::identity());

// Cube -> equirect (dst any size, 2:1 normally). `rotation`: equirect ray -> cube frame.
void cubemap_to_equirect_gpu(const CubeFaces& faces, const ImageView& dst, const ImageView& mask,
                             const SampleOptions& options, cudaStream_t stream,
                             const Mat3& rotation = Mat3::identity());
void cubemap_to_equirect_cpu(const CubeFaces& faces, const ImageView& dst, const ImageView& mask,
                             const SampleOptions& options, const Mat3& rotation = Mat3::identity());

// Layouts as v360's c3x2 (rows "r l u" / "d f b"), c6x1 (one row) and c1x6 (one column): the
// six faces as sub-views of one layout image (writing them fills the layout, no copy).
enum class CubeLayout { c3x2, c6x1, c1x6 };
int cube_layout_width(CubeLayout layout, int face_size);
int cube_layout_height(CubeLayout layout, int face_size);
// Face size of a layout image; throws gp::Error when its size is not a whole number of faces.
int cube_layout_face_size(CubeLayout layout, const ImageView& image);
ImageView cube_layout_face(const ImageView& image, CubeLayout layout, int face);
CubeFaces cube_layout_faces(const ImageView& image, CubeLayout layout);

// ---- dual fisheye -> equirect (lens models and blending: sphere.hpp, FisheyeLens/DualFisheye)

void dual_fisheye_to_equirect_gpu(const ImageView& src, const DualFisheye& rig, const ImageView& dst,
                                  const ImageView& mask, const SampleOptions& options, cudaStream_t stream);
void dual_fisheye_to_equirect_cpu(const ImageView& src, const DualFisheye& rig, const ImageView& dst,
                                  const ImageView& mask, const SampleOptions& options);

}  // namespace gp::stitch
