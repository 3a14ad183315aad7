// Kernels of the stitch-360 projections: one thread per output pixel (32x8 blocks, so a warp
// covers 32 neighbouring pixels of a row), one grid z-slice per job (view or cube face). The
// per-pixel code is project_pixel.hpp's, shared with the CPU references.
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/stitch/project.hpp"
#include "cuda/stitch/project_jobs.hpp"

namespace gp::stitch {
namespace {

using namespace detail;

constexpr int block_w = 32, block_h = 8;

template <int C, class Map, int N>
__global__ void __launch_bounds__(block_w* block_h)
    render_kernel(const JobList<Map, N> jobs, Interp interp, int max_subsamples) {
  const Job<Map>& job = jobs.job[blockIdx.z];
  const int x = int(blockIdx.x) * block_w + int(threadIdx.x);
  const int y = int(blockIdx.y) * block_h + int(threadIdx.y);
  if (x >= job.out.width || y >= job.out.height) return;
  render_job_pixel<C>(job, x, y, interp, max_subsamples);
}

template <class T>
__global__ void __launch_bounds__(block_w* block_h)
    build_remap_kernel(const PerspectiveJobs<T> jobs, const RemapOffsets offsets, int max_subsamples, RemapPoint* table) {
  const auto& job = jobs.job[blockIdx.z];
  const int x = int(blockIdx.x) * block_w + int(threadIdx.x);
  const int y = int(blockIdx.y) * block_h + int(threadIdx.y);
  if (x >= job.out.width || y >= job.out.height) return;
  table[offsets.first[blockIdx.z] + std::size_t(y) * std::size_t(job.out.width) + std::size_t(x)] =
      remap_point(job.map, x, y, max_subsamples);
}

template <int C, class T>
__global__ void __launch_bounds__(block_w* block_h)
    remap_kernel(const PerspectiveJobs<T> jobs, const RemapOffsets offsets, const RemapPoint* table, Interp interp,
                 int max_subsamples) {
  const auto& job = jobs.job[blockIdx.z];
  const int x = int(blockIdx.x) * block_w + int(threadIdx.x);
  const int y = int(blockIdx.y) * block_h + int(threadIdx.y);
  if (x >= job.out.width || y >= job.out.height) return;
  const RemapPoint r = table[offsets.first[blockIdx.z] + std::size_t(y) * std::size_t(job.out.width) + std::size_t(x)];
  remap_job_pixel<C>(job, r, x, y, interp, max_subsamples);
}

template <class Map, int N>
dim3 grid_of(const JobList<Map, N>& jobs, const char* function) {
  const unsigned rows_of_blocks = unsigned(jobs.max_height + block_h - 1) / block_h;
  require(rows_of_blocks <= 65535u, function, "output too tall for one launch");
  return dim3(unsigned(jobs.max_width + block_w - 1) / block_w, rows_of_blocks, unsigned(jobs.count));
}

template <class Map, int N>
std::string launch_context(const char* function, const JobList<Map, N>& jobs, int channels) {
  return std::string(function) + " (" + std::to_string(jobs.count) + " outputs up to " + std::to_string(jobs.max_width) +
         "x" + std::to_string(jobs.max_height) + ", " + std::to_string(channels) + " channels)";
}

template <class Map, int N>
void launch(const JobList<Map, N>& jobs, int channels, const SampleOptions& o, cudaStream_t stream,
            const char* function) {
  static_assert(sizeof(JobList<Map, N>) <= 4000, "kernel parameters are limited to 4 KB");
  const dim3 grid = grid_of(jobs, function);
  const dim3 block(block_w, block_h);
  switch (channels) {
    case 1: render_kernel<1><<<grid, block, 0, stream>>>(jobs, o.interp, o.max_subsamples); break;
    case 2: render_kernel<2><<<grid, block, 0, stream>>>(jobs, o.interp, o.max_subsamples); break;
    case 3: render_kernel<3><<<grid, block, 0, stream>>>(jobs, o.interp, o.max_subsamples); break;
    default: render_kernel<4><<<grid, block, 0, stream>>>(jobs, o.interp, o.max_subsamples); break;
  }
  GP_CUDA_CHECK_LAUNCH(launch_context(function, jobs, channels));
}

}  // namespace

void equirect_to_perspective_gpu(const ImageView& src, const Camera& camera, const ImageView& dst,
                                 const ImageView& mask, const SampleOptions& options, cudaStream_t stream) {
  const char* function = "equirect_to_perspective_gpu";
  const PerspectiveTarget target{camera, dst, mask};
  with_sample_type(src, function, [&](auto sample) {
    launch(perspective_jobs<decltype(sample)>(src, &target, 1, options, function), src.channels, options, stream, function);
  });
}

void equirect_to_perspective_batch_gpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options, cudaStream_t stream) {
  const char* function = "equirect_to_perspective_batch_gpu";
  with_sample_type(src, function, [&](auto sample) {
    launch(perspective_jobs<decltype(sample)>(src, targets, count, options, function), src.channels, options, stream,
           function);
  });
}

void build_perspective_remap_gpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                 const SampleOptions& options, void* table, cudaStream_t stream) {
  const char* function = "build_perspective_remap_gpu";
  with_sample_type(src, function, [&](auto sample) {
    using T = decltype(sample);
    const PerspectiveJobs<T> jobs = perspective_jobs<T>(src, targets, count, options, function);
    static_assert(sizeof(PerspectiveJobs<T>) + sizeof(RemapOffsets) <= 4000, "kernel parameters are limited to 4 KB");
    build_remap_kernel<T><<<grid_of(jobs, function), dim3(block_w, block_h), 0, stream>>>(
        jobs, remap_offsets(jobs), options.max_subsamples, static_cast<RemapPoint*>(table));
    GP_CUDA_CHECK_LAUNCH(launch_context(function, jobs, src.channels));
  });
}

void equirect_to_perspective_remap_gpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options, const void* table, cudaStream_t stream) {
  const char* function = "equirect_to_perspective_remap_gpu";
  with_sample_type(src, function, [&](auto sample) {
    using T = decltype(sample);
    const PerspectiveJobs<T> jobs = perspective_jobs<T>(src, targets, count, options, function);
    const RemapOffsets offsets = remap_offsets(jobs);
    const auto* points = static_cast<const RemapPoint*>(table);
    const dim3 grid = grid_of(jobs, function), block(block_w, block_h);
    const Interp m = options.interp;
    const int subsamples = options.max_subsamples;
    switch (src.channels) {
      case 1: remap_kernel<1, T><<<grid, block, 0, stream>>>(jobs, offsets, points, m, subsamples); break;
      case 2: remap_kernel<2, T><<<grid, block, 0, stream>>>(jobs, offsets, points, m, subsamples); break;
      case 3: remap_kernel<3, T><<<grid, block, 0, stream>>>(jobs, offsets, points, m, subsamples); break;
      default: remap_kernel<4, T><<<grid, block, 0, stream>>>(jobs, offsets, points, m, subsamples); break;
    }
    GP_CUDA_CHECK_LAUNCH(launch_context(function, jobs, src.channels));
  });
}

void equirect_to_cubemap_face_gpu(const ImageView& src, CubeFace face, const ImageView& dst,
                                  const SampleOptions& options, cudaStream_t stream, const Mat3& rotation) {
  const char* function = "equirect_to_cubemap_face_gpu";
  const int id = int(face);
  with_sample_type(src, function, [&](auto sample) {
    launch(cube_face_jobs<decltype(sample)>(src, &dst, &id, 1, rotation, options, function), src.channels, options,
           stream, function);
  });
}

void equirect_to_cubemap_gpu(const ImageView& src, const CubeFaces& faces, const SampleOptions& options,
                             cudaStream_t stream, const Mat3& rotation) {
  const char* function = "equirect_to_cubemap_gpu";
  const int ids[cube_face_count] = {0, 1, 2, 3, 4, 5};
  with_sample_type(src, function, [&](auto sample) {
    launch(cube_face_jobs<decltype(sample)>(src, faces.data(), ids, cube_face_count, rotation, options, function),
           src.channels, options, stream, function);
  });
}

void cubemap_to_equirect_gpu(const CubeFaces& faces, const ImageView& dst, const ImageView& mask,
                             const SampleOptions& options, cudaStream_t stream, const Mat3& rotation) {
  const char* function = "cubemap_to_equirect_gpu";
  with_sample_type(faces[0], function, [&](auto sample) {
    launch(cube_source_jobs<decltype(sample)>(faces, dst, mask, rotation, options, function), faces[0].channels,
           options, stream, function);
  });
}

void dual_fisheye_to_equirect_gpu(const ImageView& src, const DualFisheye& rig, const ImageView& dst,
                                  const ImageView& mask, const SampleOptions& options, cudaStream_t stream) {
  const char* function = "dual_fisheye_to_equirect_gpu";
  with_sample_type(src, function, [&](auto sample) {
    launch(dual_fisheye_jobs<decltype(sample)>(src, rig, dst, mask, options, function), src.channels, options, stream,
           function);
  });
}

}  // namespace gp::stitch
