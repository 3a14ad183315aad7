#include "pnm/slab_device.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace gp::pnm {

SlabRange with_halo(SlabRange r, int halo, int nz) { return {std::max(0, r.begin - halo), std::min(nz, r.end + halo)}; }

SlabDevice::SlabDevice(Runtime& runtime, const io::Dims3& dims, std::size_t budget_bytes)
    : runtime_(runtime), dims_(dims), budget_(budget_bytes),
      full_budget_(budget_bytes), stream_(runtime.make_stream()),
      staging_(runtime, std::size_t(16) << 20) {}

std::size_t SlabDevice::units_in_budget(double unit_bytes, const char* stage) const {
  const double units = std::floor(double(budget_) / std::max(unit_bytes, 1.0));
  if (units < 1)
    throw GpuOutOfMemory(std::string("segment-pnm ") + stage + ": not even one slab of " +
                             std::to_string(std::size_t(unit_bytes)) + " bytes fits the " + std::to_string(budget_) +
                             " bytes of GPU memory available",
                         std::size_t(unit_bytes));
  return std::size_t(units);
}

std::vector<SlabRange> SlabDevice::plan(double bytes_per_voxel, int halo, const char* stage) const {
  const double slice_bytes = bytes_per_voxel * double(dims_.nx) * double(dims_.ny);
  const std::size_t held = units_in_budget(slice_bytes, stage);
  // CUB and the kernels index a slab with 32-bit counts.
  const std::size_t max_held = std::size_t(0x7fffffff) / (std::size_t(dims_.nx) * dims_.ny);
  if (held >= std::size_t(dims_.nz) && std::size_t(dims_.nz) <= max_held) return {{0, dims_.nz}};
  const long depth = long(std::min(held, max_held)) - 2l * halo;
  if (depth < 1)
    throw GpuOutOfMemory(std::string("segment-pnm ") + stage + ": a slab with its " + std::to_string(2 * halo) +
                             " halo slices needs " + std::to_string(std::size_t(slice_bytes * (1 + 2 * halo))) +
                             " bytes; " + std::to_string(budget_) + " available",
                         std::size_t(slice_bytes * (1 + 2 * halo)));
  const int step = int(std::min<long>(depth, dims_.nz));
  std::vector<SlabRange> slabs;
  for (int z = 0; z < dims_.nz; z += step) slabs.push_back({z, std::min(dims_.nz, z + step)});
  return slabs;
}

void* SlabDevice::allocate_bytes(std::size_t bytes, const char* what) {
  buffers_.push_back(runtime_.device_alloc(std::max<std::size_t>(bytes, 1), stream_, std::string(what) + " (" + stage_ + ")"));
  return buffers_.back().get();
}

ScratchAllocator SlabDevice::scratch() {
  return [this](std::size_t bytes) { return allocate_bytes(bytes, "segment-pnm scratch"); };
}

void SlabDevice::release() {
  stream_.synchronize("segment-pnm slab");
  buffers_.clear();
}

}  // namespace gp::pnm
