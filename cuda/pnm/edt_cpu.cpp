// CPU reference of the distance transform: the same per-line code as the GPU (edt_line.hpp); the
// x lines run in place with stride 1 where the GPU transposes first, which changes no arithmetic.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/edt_line.hpp"

namespace gp::pnm {

void edt_columns_cpu(VolumeView<const std::uint8_t> mask, VolumeView<float> squared, float spacing_z) {
  const std::size_t plane = mask.slice_voxels();
  parallel_for(long(mask.ny), [&](long y0, long y1) {
    for (long y = y0; y < y1; ++y)
      for (int x = 0; x < mask.nx; ++x) {
        const std::size_t column = std::size_t(y) * mask.nx + x;
        edt_detail::column(mask.data + column, squared.data + column, plane, mask.nz, spacing_z);
      }
  });
}

void edt_planes_cpu(VolumeView<float> field, Spacing spacing, bool take_sqrt) {
  const int nx = field.nx, ny = field.ny;
  parallel_for(long(field.z_count), [&](long z0, long z1) {
    const int n = std::max(nx, ny);
    std::vector<int> apex(n);
    std::vector<float> apex_f(n), left(n);
    for (long z = z0; z < z1; ++z) {
      float* slice = field.data + std::size_t(z) * field.slice_voxels();
      for (int x = 0; x < nx; ++x)
        edt_detail::envelope(slice + x, nx, ny, spacing.y, apex.data(), apex_f.data(), left.data(), 1);
      for (int y = 0; y < ny; ++y) {
        float* row = slice + std::size_t(y) * nx;
        edt_detail::envelope(row, 1, nx, spacing.x, apex.data(), apex_f.data(), left.data(), 1);
        if (take_sqrt)
          for (int x = 0; x < nx; ++x) row[x] = std::sqrt(row[x]);
      }
    }
  }, 1);
}

void distance_transform_cpu(VolumeView<const std::uint8_t> mask, VolumeView<float> distance, Spacing spacing) {
  edt_columns_cpu(mask, distance, spacing.z);
  edt_planes_cpu(distance, spacing, true);
}

}  // namespace gp::pnm
