// CPU reference of the distance transform: the same per-line code as the GPU (edt_line.hpp), each
// line scanned in one go where the GPU splits it among the lanes of a warp.
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
    std::vector<float> line(n);  // a copy: the walk reads the input while the output is written
    std::vector<std::uint32_t> slots(std::size_t(n) + 1);
    const edt_detail::PlainLine in{line.data()};
    edt_detail::Slots32 stacks{slots.data()};
    for (long z = z0; z < z1; ++z) {
      float* slice = field.data + std::size_t(z) * field.slice_voxels();
      for (int x = 0; x < nx; ++x) {  // along y
        for (int y = 0; y < ny; ++y) line[y] = slice[std::size_t(y) * nx + x];
        edt_detail::envelope_line(in, stacks, ny, spacing.y,
                                  [&](int y, float v) { slice[std::size_t(y) * nx + x] = v; });
      }
      for (int y = 0; y < ny; ++y) {  // along x
        float* row = slice + std::size_t(y) * nx;
        std::copy(row, row + nx, line.begin());
        edt_detail::envelope_line(in, stacks, nx, spacing.x,
                                  [&](int x, float v) { row[x] = take_sqrt ? std::sqrt(v) : v; });
      }
    }
  }, 1);
}

void distance_transform_cpu(VolumeView<const std::uint8_t> mask, VolumeView<float> distance, Spacing spacing) {
  edt_columns_cpu(mask, distance, spacing.z);
  edt_planes_cpu(distance, spacing, true);
}

}  // namespace gp::pnm
