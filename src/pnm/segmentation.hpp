#pragma once
// The segment-pnm pipeline from a loaded volume to pore regions and their statistics:
//   denoise -> binarize -> fill_holes -> distance -> markers -> watershed -> network (stats)
// on the GPU (segment_gpu.cpp, data stays on the device from upload to statistics) or the CPU
// (segment_cpu.cpp). Both call the same kernels' twins and the same host marker code, so they
// give identical labels and statistics.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/region_stats.hpp"
#include "io/volume.hpp"
#include "pnm/markers.hpp"
#include "pnm/pnm_settings.hpp"

namespace gp::pnm {

// Host memory for a whole volume, not zero-filled: what fills it (a parallel copy from the GPU)
// first-touches the pages on all its threads, where zero-filling would take one core a second
// per 4 GB.
template <class T>
class HostVolume {
 public:
  HostVolume() = default;
  explicit HostVolume(std::size_t n) : data_(new T[n]), size_(n) {}
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  bool empty() const { return size_ == 0; }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
};

template <class T>
HostVolume<T> copy_of(const HostVolume<T>& v) {
  HostVolume<T> copy(v.size());
  std::copy(v.data(), v.data() + v.size(), copy.data());
  return copy;
}

// The stages' volumes, kept only when the settings ask for them (output.intermediates).
struct Intermediates {
  HostVolume<std::uint8_t> mask;     // 1 = pore after filling
  HostVolume<float> distance;        // exact EDT
  HostVolume<float> smoothed;        // what the watershed floods (the distance itself for sigma 0)
  HostVolume<std::uint32_t> markers;
};

struct Segmentation {
  HostVolume<std::uint32_t> labels;  // pore regions 1..regions, 0 = solid or unassigned
  std::uint32_t regions = 0;
  RegionStats stats;                  // from labels and the unsmoothed distance map
  float threshold = 0;                // used, in rescaled units
  double porosity_binarized = 0;      // pore fraction after thresholding
  double porosity = 0;                // after filling (the network's pore space)
  std::uint64_t closed_pore_voxels = 0, floating_solid_voxels = 0;  // changed by filling
  Markers markers;                    // counts only (voxels cleared to save memory)
  int watershed_passes = 0;           // GPU relaxation passes (0 on the CPU)
  std::size_t slab_budget_bytes = 0;    // out-of-core: the GPU memory the slabs were sized for
  std::vector<std::string> slab_retries;  // out-of-core: stages that ran out anyway and ran again in thinner slabs
  int watershed_slab_runs = 0;        // out-of-core: slab relaxations until none changed
  Intermediates intermediates;        // empty unless asked for
  std::vector<std::pair<std::string, double>> stage_seconds;  // in pipeline order
};

Spacing spacing_of(const io::Volume& volume);

// Sigma per axis for smoothing the distance map: `sigma` voxels of the finest axis.
GaussianSigma smoothing_sigma(const Spacing& spacing, float sigma);

template <class T>
VolumeView<T> volume_view(T* data, const io::Dims3& d) {
  return whole_volume(data, d.nx, d.ny, d.nz);
}

Segmentation segment_gpu(const io::Volume& volume, const Settings& settings, Runtime& runtime);
Segmentation segment_cpu(const io::Volume& volume, const Settings& settings);

// Out-of-core (segment_slabs.cpp): Z-slabs sized so a stage's device memory stays within
// `budget_bytes`; same results as segment_gpu. Needs up to about 25 bytes of host memory per voxel beside the input.
Segmentation segment_gpu_slabs(const io::Volume& volume, const Settings& settings, Runtime& runtime,
                               std::size_t budget_bytes);

// Peak device memory of segment_gpu for a volume (the largest stage's volumes and scratch).
std::size_t in_core_device_bytes(const io::Dims3& dims);

}  // namespace gp::pnm
