#pragma once
// Out-of-core building blocks: a volume's slices moved to the GPU one Z-slab at a time, each with
// the halo slices its stage reads, within a device-memory budget. The host keeps whole volumes;
// copies go through pinned staging chunks on one stream.
#include <cstddef>
#include <string>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/pnm/volume_view.hpp"
#include "io/volume.hpp"

namespace gp::pnm {

struct SlabRange {
  int begin = 0, end = 0;  // slices [begin, end)
  int depth() const { return end - begin; }
};

// [begin - halo, end + halo) clipped to the volume's nz slices.
SlabRange with_halo(SlabRange r, int halo, int nz);

class SlabDevice {
 public:
  SlabDevice(Runtime& runtime, const io::Dims3& dims, std::size_t budget_bytes);

  // [0, nz) in slabs as deep as fit in the budget with `bytes_per_voxel` of device memory for
  // every held voxel, halo slices included. Throws GpuOutOfMemory naming `stage` when not even
  // one slice fits.
  std::vector<SlabRange> plan(double bytes_per_voxel, int halo, const char* stage) const;
  // The budget in whole units of `unit_bytes` (for slabs along y: columns of nz voxels).
  std::size_t units_in_budget(double unit_bytes, const char* stage) const;

  // Device copies of slices `held` of a host volume (the whole volume's base pointer), and
  // uninitialised slabs; both live until release().
  template <class T>
  VolumeView<T> upload(const T* host_volume, SlabRange held, const char* what) {
    VolumeView<T> view = allocate<T>(held, what);
    copy_up(view.data, host_volume + offset_of(held.begin), view.held_voxels() * sizeof(T));
    return view;
  }
  template <class T>
  VolumeView<T> allocate(SlabRange held, const char* what) {
    buffers_.push_back(runtime_.device_alloc(std::max<std::size_t>(voxels_of(held) * sizeof(T), 1), stream_,
                                             std::string(what) + " (" + stage_ + ")"));
    return {buffers_.back().as<T>(), dims_.nx, dims_.ny, dims_.nz, held.begin, held.depth()};
  }
  // Slices `range` of a device view into the host volume.
  template <class T>
  void download(T* host_volume, VolumeView<const T> view, SlabRange range) {
    copy_down(host_volume + offset_of(range.begin), view.data + view.offset(0, 0, range.begin),
              voxels_of(range) * sizeof(T));
  }
  // Plain byte copies for buffers of another shape (slabs along y).
  void copy_up(void* device, const void* host, std::size_t bytes) { staging_.upload(stream_, device, host, bytes); }
  void copy_down(void* host, const void* device, std::size_t bytes) { staging_.download(stream_, host, device, bytes); }
  void* allocate_bytes(std::size_t bytes, const char* what);

  // Runs a stage's slab loop; when the GPU runs out of memory anyway (the per-voxel figures are
  // estimates), frees the stage's buffers and runs it again in slabs half as deep, down to one
  // slice. `body` must start from its inputs each time.
  template <class Body>
  void run_stage(const char* stage, Body&& body) {
    stage_ = stage;
    budget_ = full_budget_;
    for (int halvings = 0;; ++halvings) {
      try {
        body();
        return;
      } catch (const GpuOutOfMemory& e) {
        release();
        if (halvings == max_halvings) throw;
        retries_.push_back(std::string(stage) + ": " + e.what());
        budget_ /= 2;
      }
    }
  }
  // What the stages that ran out anyway ran out on.
  const std::vector<std::string>& retries() const { return retries_; }

  ScratchAllocator scratch();
  // Waits for the stream, then frees every slab and scratch buffer.
  void release();
  cudaStream_t stream() const { return stream_.get(); }

 private:
  std::size_t offset_of(int z) const { return std::size_t(z) * dims_.nx * dims_.ny; }
  std::size_t voxels_of(SlabRange r) const { return std::size_t(r.depth()) * dims_.nx * dims_.ny; }

  Runtime& runtime_;
  io::Dims3 dims_;
  std::size_t budget_;  // of the running stage
  std::size_t full_budget_;
  Stream stream_;
  StagingBuffer staging_;
  std::vector<DeviceBuffer> buffers_;
  const char* stage_ = "";
  std::vector<std::string> retries_;
  static constexpr int max_halvings = 6;
};

}  // namespace gp::pnm
