#pragma once
// What the segment-pnm GPU tests share: a runtime and stream, device copies of host volumes, and a
// ScratchAllocator whose blocks live as long as the fixture (or until release_scratch()).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/pnm/volume_view.hpp"

namespace gp::test {

class PnmGpu {
 public:
  PnmGpu() : rt_(RuntimeOptions{}), stream_(rt_.make_stream()) {}
  cudaStream_t stream() const { return stream_.get(); }
  void sync() { stream_.synchronize("test"); }
  Runtime& runtime() { return rt_; }

  DeviceBuffer alloc(std::size_t bytes) { return rt_.device_alloc(std::max<std::size_t>(bytes, 1), stream_, "test"); }

  // A device copy of `host` (kept alive by the fixture), seen as a view of an nx x ny x nz volume.
  template <class T>
  gp::VolumeView<T> upload(const std::vector<T>& host, int nx, int ny, int nz) {
    keep_.push_back(alloc(host.size() * sizeof(T)));
    stream_.copy_to_device(keep_.back().get(), host.data(), host.size() * sizeof(T));
    return gp::whole_volume(keep_.back().as<T>(), nx, ny, nz);
  }
  template <class T>
  gp::VolumeView<T> zeros(int nx, int ny, int nz) {
    const std::size_t bytes = std::size_t(nx) * ny * nz * sizeof(T);
    keep_.push_back(alloc(bytes));
    stream_.memset(keep_.back().get(), 0, bytes);
    return gp::whole_volume(keep_.back().as<T>(), nx, ny, nz);
  }
  template <class T>
  std::vector<T> download(const gp::VolumeView<T>& view) {
    std::vector<T> host(view.held_voxels());
    stream_.copy_to_host(host.data(), view.data, host.size() * sizeof(T));
    sync();
    return host;
  }

  void stream_copy_to_host(void* host, const void* device, std::size_t bytes) {
    stream_.copy_to_host(host, device, bytes);
    sync();
  }

  gp::ScratchAllocator scratch() {
    return [this](std::size_t bytes) {
      scratch_.push_back(alloc(bytes));
      return scratch_.back().get();
    };
  }
  void release_scratch() { scratch_.clear(); }

  // Best wall time in ms of 4 runs of `run` (work queued on this stream), after a warm-up run.
  template <class Run>
  double best_ms(Run&& run) {
    run();
    double best = 1e30;
    for (int i = 0; i < 4; ++i) {
      sync();
      release_scratch();
      const auto t0 = std::chrono::steady_clock::now();
      run();
      sync();
      best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    release_scratch();
    return best;
  }

 private:
  Runtime rt_;
  Stream stream_;
  std::vector<DeviceBuffer> keep_, scratch_;
};

}  // namespace gp::test
