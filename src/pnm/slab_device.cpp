#include "pnm/slab_device.hpp"

#include <algorithm>
#include <cmath>

#include "core/trace.hpp"

namespace gp::pnm {

SlabRange with_halo(SlabRange r, int halo, int nz) {
  return {std::max(0, r.begin - halo), std::min(nz, r.end + halo), r.index};
}

SlabPlan::HeldVoxels SlabPlan::held_voxels(int gpu, int halo, int nz, std::size_t plane) const {
  HeldVoxels held;
  const Indices own = slabs_of(gpu);
  for (std::size_t k = own.begin; k < own.end; ++k) {
    const double voxels = double(with_halo(slabs[k], halo, nz).depth()) * double(plane);
    held.total += voxels;
    held.deepest = std::max(held.deepest, voxels);
  }
  return held;
}

SlabLane::SlabLane(Runtime& runtime, const io::Dims3& dims, const std::string& stage)
    : runtime_(runtime), dims_(dims), stage_(stage), stream_(runtime.make_stream()),
      staging_(runtime, std::size_t(64) << 20) {}

void* SlabLane::allocate_bytes(std::size_t bytes, const char* what) {
  buffers_.push_back(
      runtime_.device_alloc(std::max<std::size_t>(bytes, 1), stream_, std::string(what) + " (" + stage_ + ")"));
  return buffers_.back().get();
}

ScratchAllocator SlabLane::scratch() {
  return [this](std::size_t bytes) { return allocate_bytes(bytes, "segment-pnm scratch"); };
}

void SlabLane::synchronize() { stream_.synchronize("segment-pnm " + stage_ + " slab"); }

void SlabLane::release() {
  stream_.synchronize("segment-pnm " + stage_ + " slab");
  buffers_.clear();
}

SlabDevice::SlabDevice(const std::vector<Runtime*>& runtimes, const io::Dims3& dims, std::size_t budget_bytes)
    : dims_(dims), budget_(budget_bytes), full_budget_(budget_bytes) {
  if (runtimes.empty()) throw Error("segment-pnm: slabs on no GPU");
  for (Runtime* rt : runtimes) {
    rt->bind_thread();  // the lanes' streams and pinned staging belong to its GPU
    gpus_.push_back(std::unique_ptr<Gpu>(new Gpu{*rt, {SlabLane(*rt, dims, stage_), SlabLane(*rt, dims, stage_)}}));
  }
  bind(0);
}

SlabDevice::~SlabDevice() {
  // The first GPU last: it stays current on this thread, as before the slabs.
  for (auto it = gpus_.rbegin(); it != gpus_.rend(); ++it) {
    auto& gpu = *it;
    try {
      gpu->runtime.bind_thread();
    } catch (...) {  // its GPU failed: the lanes' teardown reports nothing either
    }
    gpu.reset();
  }
}

void SlabDevice::name_gpu_thread(int gpu) const {
  Trace::name_thread("segment-pnm slabs gpu " + std::to_string(gpu));
  bind(gpu);
}

void SlabDevice::release_all() {
  for (auto& gpu : gpus_) {
    gpu->runtime.bind_thread();
    for (SlabLane& l : gpu->lanes) l.release();
  }
  bind(0);
}

std::size_t SlabDevice::units_in_budget(double unit_bytes) const {
  const double units = std::floor(double(budget_) / std::max(unit_bytes, 1.0));
  if (units < 1)
    throw GpuOutOfMemory("segment-pnm " + stage_ + ": not even one slab of " + std::to_string(std::size_t(unit_bytes)) +
                             " bytes fits the " + std::to_string(budget_) + " bytes of GPU memory available",
                         std::size_t(unit_bytes));
  return std::size_t(units);
}

SlabPlan SlabDevice::plan(double bytes_per_voxel, int halo, bool pipelining, std::size_t set_aside) const {
  const std::size_t plane = std::size_t(dims_.nx) * dims_.ny;
  const std::size_t budget = budget_ > set_aside ? budget_ - set_aside : 0;
  // CUB and the kernels index a slab with 32-bit counts.
  const std::size_t max_held = std::size_t(0x7fffffff) / plane;
  for (int in_flight = pipelining ? 2 : 1; in_flight >= 1; --in_flight) {
    const double slice_bytes = bytes_per_voxel * double(plane) * in_flight;
    const std::size_t held = std::size_t(std::floor(double(budget) / slice_bytes));
    const bool whole = held >= std::size_t(dims_.nz) && std::size_t(dims_.nz) <= max_held;
    const long depth = whole ? long(dims_.nz) : long(std::min(held, max_held)) - 2l * halo;
    if (depth < 1) continue;
    // Several GPUs: no slab deeper than each GPU's share of the slices.
    const long share = (long(dims_.nz) + gpus() - 1) / gpus();
    const int step = int(std::min({depth, share, long(dims_.nz)}));
    SlabPlan p;
    p.in_flight = whole && gpus() == 1 ? 1 : in_flight;
    for (int z = 0; z < dims_.nz; z += step) p.slabs.push_back({z, std::min(dims_.nz, z + step), int(p.slabs.size())});
    // Contiguous runs of slabs, as even as the count allows.
    for (int g = 0; g <= gpus(); ++g) p.first_of_gpu.push_back(p.slabs.size() * std::size_t(g) / std::size_t(gpus()));
    return p;
  }
  const std::size_t needed = std::size_t(bytes_per_voxel * double(plane) * (1 + 2 * halo));
  throw GpuOutOfMemory("segment-pnm " + stage_ + ": a slab of one slice with its " + std::to_string(2 * halo) +
                           " halo slices needs " + std::to_string(needed) + " bytes of GPU memory; " +
                           std::to_string(budget) + " available",
                       needed);
}

}  // namespace gp::pnm
