// CPU references of the stitch-360 projections: the kernels' per-pixel code (project_pixel.hpp)
// over all rows of all jobs on the CPU threads.
#include "core/parallel_for.hpp"
#include "cuda/stitch/project.hpp"
#include "cuda/stitch/project_jobs.hpp"

namespace gp::stitch {
namespace {

using namespace detail;

template <int C, class Map, int N>
void run_rows(const JobList<Map, N>& jobs, const SampleOptions& o) {
  long rows = 0;
  for (int j = 0; j < jobs.count; ++j) rows += jobs.job[j].out.height;
  parallel_for(
      rows,
      [&](long begin, long end) {
        int j = 0;
        long first_row = 0;  // global index of job j's row 0
        for (long r = begin; r < end; ++r) {
          while (r - first_row >= jobs.job[j].out.height) first_row += jobs.job[j++].out.height;
          const Job<Map>& job = jobs.job[j];
          const int y = int(r - first_row);
          for (int x = 0; x < job.out.width; ++x) render_job_pixel<C>(job, x, y, o.interp, o.max_subsamples);
        }
      },
      4);
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
  const PerspectiveTarget target{camera, dst, mask};
  run_cpu(perspective_jobs(src, &target, 1, options, "equirect_to_perspective_cpu"), src.channels, options);
}

void equirect_to_perspective_batch_cpu(const ImageView& src, const PerspectiveTarget* targets, int count,
                                       const SampleOptions& options) {
  run_cpu(perspective_jobs(src, targets, count, options, "equirect_to_perspective_batch_cpu"), src.channels, options);
}

void equirect_to_cubemap_face_cpu(const ImageView& src, CubeFace face, const ImageView& dst,
                                  const SampleOptions& options, const Mat3& rotation) {
  const int id = int(face);
  run_cpu(cube_face_jobs(src, &dst, &id, 1, rotation, options, "equirect_to_cubemap_face_cpu"), src.channels, options);
}

void equirect_to_cubemap_cpu(const ImageView& src, const CubeFaces& faces, const SampleOptions& options,
                             const Mat3& rotation) {
  const int ids[cube_face_count] = {0, 1, 2, 3, 4, 5};
  run_cpu(cube_face_jobs(src, faces.data(), ids, cube_face_count, rotation, options, "equirect_to_cubemap_cpu"),
          src.channels, options);
}

void cubemap_to_equirect_cpu(const CubeFaces& faces, const ImageView& dst, const ImageView& mask,
                             const SampleOptions& options, const Mat3& rotation) {
  run_cpu(cube_source_jobs(faces, dst, mask, rotation, options, "cubemap_to_equirect_cpu"), faces[0].channels, options);
}

void dual_fisheye_to_equirect_cpu(const ImageView& src, const DualFisheye& rig, const ImageView& dst,
                                  const ImageView& mask, const SampleOptions& options) {
  run_cpu(dual_fisheye_jobs(src, rig, dst, mask, options, "dual_fisheye_to_equirect_cpu"), src.channels, options);
}

}  // namespace gp::stitch
