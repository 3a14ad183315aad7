// The EDT over slabs (slab_stages.hpp). Step 1 (columns along z) needs whole columns: slabs along
// y, each gathered from the rows it holds of every slice. Steps 2-3 (lines along y and x) need
// whole slices: Z-slabs.
#include <algorithm>
#include <atomic>

#include "cuda/pnm/edt.hpp"
#include "pnm/slab_stages.hpp"

namespace gp::pnm {

void distance_transform_slabs(SlabDevice& device, const VolumeStore<std::uint8_t>& mask, VolumeStore<float>& distance,
                              Spacing spacing) {
  const io::Dims3& d = mask.dims();
  const int nx = d.nx, ny = d.ny, nz = d.nz;

  // The whole transform on the first GPU when the mask and the map fit its budget: the mask
  // uploaded once, the columns over the whole volume, the planes in Z-slabs of it, the map
  // downloaded once. The slabs below move the map through the host twice more and gather rows.
  const std::size_t plane = d.slice_voxels();
  // (+ the lines' scratch, used only by lines too long for shared memory, at most 256 MiB)
  const double whole_bytes = 5.1 * double(d.voxels()) + std::min(double(std::size_t(256) << 20), double(d.voxels()));
  if (whole_bytes <= double(device.budget_bytes())) {
    SlabLane& lane = device.lane();
    const SlabRange all{0, nz};
    const auto whole_mask = lane.upload(mask, all, "segment-pnm mask (whole)");
    const auto field = lane.allocate<float>(all, "segment-pnm distance map (whole)");
    edt_columns_gpu(whole_mask, field, spacing.z, lane.stream());
    // The lines' kernels count a launch's voxels in 32 bits.
    const int depth = int(std::max<std::size_t>(1, std::min<std::size_t>(nz, std::size_t(0x7fffffff) / plane)));
    for (int z = 0; z < nz; z += depth) {
      const int end = std::min(nz, z + depth);
      edt_planes_gpu(VolumeView<float>{field.data + std::size_t(z) * plane, nx, ny, nz, z, end - z}, VolumeView<float>{},
                     spacing, true, lane.scratch(), lane.stream());
      device.report("distance: planes, slices " + std::to_string(end) + " of " + std::to_string(nz));
    }
    lane.download<float>(distance, field, all);
    lane.release();
    return;
  }

  // Step 1: mask in, squared distance out: 5 bytes per voxel of a slab of rows.
  const double row_bytes = 5.0 * nx * nz;
  // The rows' host copies (mask and distance) stay within 256 MiB (shared by the GPUs), or one
  // row each: outside the host budget, like the other slabs the host holds.
  const std::size_t host_rows =
      std::max<std::size_t>(1, (std::size_t(256) << 20) / std::size_t(device.gpus()) / std::size_t(row_bytes));
  const int rows = int(std::min({device.units_in_budget(row_bytes), std::size_t(ny), host_rows}));
  std::atomic<int> rows_done{0};
  // Each GPU takes a contiguous share of the rows.
  device.on_each_gpu([&](int g) {
    const int y_first = int(long(ny) * g / device.gpus()), y_last = int(long(ny) * (g + 1) / device.gpus());
    SlabLane& lane = device.lane(0, g);
    HostVolume<std::uint8_t> mask_rows(std::size_t(nx) * rows * nz);
    HostVolume<float> squared_rows(mask_rows.size());
    for (int y0 = y_first; y0 < y_last && !device.stopping(); y0 += rows) {
      const int count = std::min(rows, y_last - y0);
      const std::size_t voxels = std::size_t(nx) * count * nz;
      mask.read_rows(y0, y0 + count, mask_rows.data());
      // The slab seen as a volume nx x count x nz of its own.
      auto* d_mask = static_cast<std::uint8_t*>(lane.allocate_bytes(voxels, "segment-pnm mask rows"));
      auto* d_squared = static_cast<float*>(lane.allocate_bytes(voxels * sizeof(float), "segment-pnm distance rows"));
      lane.copy_up(d_mask, mask_rows.data(), voxels);
      edt_columns_gpu(whole_volume<const std::uint8_t>(d_mask, nx, count, nz), whole_volume(d_squared, nx, count, nz),
                      spacing.z, lane.stream());
      lane.copy_down(squared_rows.data(), d_squared, voxels * sizeof(float));
      lane.release();
      distance.write_rows(y0, y0 + count, squared_rows.data());
      device.report("distance: columns, rows " + std::to_string(rows_done += count) + " of " + std::to_string(ny));
    }
  });

  // Steps 2-3 in place in shared memory: the field only (4 bytes per voxel; `work` is unused).
  device.pipelined(
      device.plan(4, 0),
      [&](SlabLane& slab_lane, SlabRange r) {
        const auto field = slab_lane.upload(distance, r, "segment-pnm distance slab");
        edt_planes_gpu(field, VolumeView<float>{}, spacing, true, slab_lane.scratch(), slab_lane.stream());
        return field;
      },
      [&](SlabLane& slab_lane, SlabRange r, const VolumeView<float>& field) {
        slab_lane.download<float>(distance, field, r);
      });
}

}  // namespace gp::pnm
