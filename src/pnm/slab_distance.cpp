// The EDT over slabs (slab_stages.hpp). Step 1 (columns along z) needs whole columns: slabs along
// y, each gathered on the host from the rows it holds of every slice. Steps 2-3 (lines along y and
// x) need whole slices: Z-slabs.
#include <algorithm>
#include <cstring>

#include "core/parallel_for.hpp"
#include "cuda/pnm/edt.hpp"
#include "pnm/slab_stages.hpp"

namespace gp::pnm {

void distance_transform_slabs(SlabDevice& device, VolumeView<const std::uint8_t> mask, VolumeView<float> distance,
                              Spacing spacing) {
  const int nx = mask.nx, ny = mask.ny, nz = mask.nz;
  const std::size_t plane = mask.slice_voxels();

  // Step 1: mask in, squared distance out: 5 bytes per voxel of a slab of rows.
  const double row_bytes = 5.0 * nx * nz;
  const int rows = int(std::min<std::size_t>(device.units_in_budget(row_bytes), std::size_t(ny)));
  SlabLane& lane = device.lane();
  HostVolume<std::uint8_t> mask_rows(std::size_t(nx) * rows * nz);
  HostVolume<float> squared_rows(mask_rows.size());
  for (int y0 = 0; y0 < ny; y0 += rows) {
    const int count = std::min(rows, ny - y0);
    const std::size_t run = std::size_t(nx) * count;  // the slab's part of one slice
    parallel_for(long(nz), [&](long z0, long z1) {
      for (long z = z0; z < z1; ++z)
        std::memcpy(mask_rows.data() + std::size_t(z) * run, mask.data + std::size_t(z) * plane + std::size_t(y0) * nx, run);
    }, 8);
    // The slab seen as a volume nx x count x nz of its own.
    auto* d_mask = static_cast<std::uint8_t*>(lane.allocate_bytes(run * nz, "segment-pnm mask rows"));
    auto* d_squared = static_cast<float*>(lane.allocate_bytes(run * nz * sizeof(float), "segment-pnm distance rows"));
    lane.copy_up(d_mask, mask_rows.data(), run * nz);
    edt_columns_gpu(whole_volume<const std::uint8_t>(d_mask, nx, count, nz), whole_volume(d_squared, nx, count, nz),
                    spacing.z, lane.stream());
    lane.copy_down(squared_rows.data(), d_squared, run * nz * sizeof(float));
    lane.release();
    parallel_for(long(nz), [&](long z0, long z1) {
      for (long z = z0; z < z1; ++z)
        std::memcpy(distance.data + std::size_t(z) * plane + std::size_t(y0) * nx,
                    squared_rows.data() + std::size_t(z) * run, run * sizeof(float));
    }, 8);
  }

  // Steps 2-3 in place in shared memory: the field only (4 bytes per voxel; `work` is unused).
  device.pipelined(
      device.plan(4, 0),
      [&](SlabLane& slab_lane, SlabRange r) {
        const auto field = slab_lane.upload<float>(distance.data, r, "segment-pnm distance slab");
        edt_planes_gpu(field, VolumeView<float>{}, spacing, true, slab_lane.scratch(), slab_lane.stream());
        return field;
      },
      [&](SlabLane& slab_lane, SlabRange r, const VolumeView<float>& field) {
        slab_lane.download<float>(distance.data, field, r);
      });
}

}  // namespace gp::pnm
