// CPU references of the stitch-360 projections: the kernels' per-pixel code (project_pixel.hpp)
// over all rows of all jobs on the CPU threads.
#include "core/parallel_for.hpp"
#include "cuda/stitch/project.hpp"
#include "cuda/stitch/project_jobs.hpp"

namespace gp::stitch {
namespace {

using namespace detail;

// Calls pixel(job index, x, y) for every output pixel of every job, rows spread over the threads.
template <class Map, int N, class Pixel>
void for_each_pixel(const JobList<Map, N>& jobs, const Pixel& pixel) {
  long rows = 0;
  for (int j = 0; j < jobs.count; ++j) rows += jobs.job[j].out.height;
  parallel_for(
      rows,
      [&](long begin, long end) {
        int j = 0;
        long first_row = 0;  // global index of job j's row 0
        for (long r = begin; r < end; ++r) {
          while (r - first_row >= jobs.job[j].out.height) first_row += jobs.job[j++].out.height;
          const int y = int(r - first_row);
          for (int x = 0; x < jobs.job[j].out.width; ++x) pixel(j, x, y);
        }
      },
      4);
}

template <int C, class Map, int N>
void run_rows(const JobList<Map, N>& jobs, const SampleOptions& o) {
  for_each_pixel(jobs, [&](int j, int x, int y) { render_job_pixel<C>(jobs.job[j], x, y, o.interp, o.max_subsamples); });
}

template <int C, class T>
void remap_rows(const PerspectiveJobs<T>& jobs, const SampleOptions& o, const RemapPoint* table) {
  const RemapOffsets offsets = remap_offsets(jobs);
  for_each_pixel(jobs, [&](int j, int x, int y) {
    const Job<EquirectSourceMap<CameraRays, T>>& job = jobs.job[j];
    const RemapPoint& r = table[offsets.first[j] + std::size_t(y) * std::size_t(job.out.width) + std::size_t(x)];
    remap_job_pixel<C>(job, r, x, y, o.interp, o.max_subsamples);
  });
}

template <class Map, int N>
void run_cpu(const JobList<Map, N>& jobs, int channels, const SampleOptions& o) {
  switch (channels) {
    case 1: run_rows<1>(jobs, o); break;
    case 2: run_rows<2>(jobs, o); break;
    case 3: run_rows<3>(jobs, o); break;
    default: run_rows<4>(jobs, o); break;
  }
}

}  // namespace

void equirect_to_perspective_cpu(const ImageView& src, const Camera& camera, const ImageView& dst,
                                 const ImageView& mask, const SampleOptions& options) {
  const char* function = "equirect_to_perspective_cpu";
  const PerspectiveTarget target{camera, dst, mask};
  with_sample_type(src, function, [&](auto sample) {
    run_cpu(perspective_jobs<decltype(sample)>(src, &target, 1, options, function), src.channels, options);
  });
}

void equirect_to_perspective_batch_cpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options) {
  const char* function = "equirect_to_perspective_batch_cpu";
  with_sample_type(src, function, [&](auto sample) {
    run_cpu(perspective_jobs<decltype(sample)>(src, targets, count, options, function), src.channels, options);
  });
}

std::size_t perspective_remap_bytes(const PerspectiveTarget* targets, int count) {
  std::size_t points = 0;
  for (int i = 0; i < count; ++i) points += std::size_t(targets[i].dst.width) * std::size_t(targets[i].dst.height);
  return points * sizeof(RemapPoint);
}

void build_perspective_remap_cpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                 const SampleOptions& options, void* table) {
  const char* function = "build_perspective_remap_cpu";
  with_sample_type(src, function, [&](auto sample) {
    const auto jobs = perspective_jobs<decltype(sample)>(src, targets, count, options, function);
    const RemapOffsets offsets = remap_offsets(jobs);
    auto* points = static_cast<RemapPoint*>(table);
    for_each_pixel(jobs, [&](int j, int x, int y) {
      points[offsets.first[j] + std::size_t(y) * std::size_t(jobs.job[j].out.width) + std::size_t(x)] =
          remap_point(jobs.job[j].map, x, y, options.max_subsamples);
    });
  });
}

void equirect_to_perspective_remap_cpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options, const void* table) {
  const char* function = "equirect_to_perspective_remap_cpu";
  with_sample_type(src, function, [&](auto sample) {
    const auto jobs = perspective_jobs<decltype(sample)>(src, targets, count, options, function);
    const auto* points = static_cast<const RemapPoint*>(table);
    switch (src.channels) {
      case 1: remap_rows<1>(jobs, options, points); break;
      case 2: remap_rows<2>(jobs, options, points); break;
      case 3: remap_rows<3>(jobs, options, points); break;
      default: remap_rows<4>(jobs, options, points); break;
    }
  });
}

void equirect_to_cubemap_face_cpu(const ImageView& src, CubeFace face, const ImageView& dst,
                                  const SampleOptions& options, const Mat3& rotation) {
  const char* function = "equirect_to_cubemap_face_cpu";
  const int id = int(face);
  with_sample_type(src, function, [&](auto sample) {
    run_cpu(cube_face_jobs<decltype(sample)>(src, &dst, &id, 1, rotation, options, function), src.channels, options);
  });
}

void equirect_to_cubemap_cpu(const ImageView& src, const CubeFaces& faces, const SampleOptions& options,
                             const Mat3& rotation) {
  const char* function = "equirect_to_cubemap_cpu";
  const int ids[cube_face_count] = {0, 1, 2, 3, 4, 5};
  with_sample_type(src, function, [&](auto sample) {
    run_cpu(cube_face_jobs<decltype(sample)>(src, faces.data(), ids, cube_face_count, rotation, options, function),
            src.channels, options);
  });
}

void cubemap_to_equirect_cpu(const CubeFaces& faces, const ImageView& dst, const ImageView& mask,
                             const SampleOptions& options, const Mat3& rotation) {
  const char* function = "cubemap_to_equirect_cpu";
  with_sample_type(faces[0], function, [&](auto sample) {
    run_cpu(cube_source_jobs<decltype(sample)>(faces, dst, mask, rotation, options, function), faces[0].channels,
            options);
  });
}

void dual_fisheye_to_equirect_cpu(const ImageView& src, const DualFisheye& rig, const ImageView& dst,
                                  const ImageView& mask, const SampleOptions& options) {
  const char* function = "dual_fisheye_to_equirect_cpu";
  with_sample_type(src, function, [&](auto sample) {
    run_cpu(dual_fisheye_jobs<decltype(sample)>(src, rig, dst, mask, options, function), src.channels, options);
  });
}

}  // namespace gp::stitch
