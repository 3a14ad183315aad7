#pragma once
// The segment-pnm pipeline from a volume to pore regions and their statistics:
//   denoise -> binarize -> fill_holes -> distance -> markers -> watershed -> network (stats)
// written once (segment_pipeline.hpp) over three backends: the CPU, the GPU in one piece (data
// stays on the device from upload to statistics) and the GPU in Z-slabs (out of core). They call
// the same kernels' twins and the same marker rules, so they give identical labels and statistics.
#include <algorithm>
#include <cstdint>
#include <functional>
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
#include "pnm/volume_store.hpp"

namespace gp::pnm {

// The stages' volumes, kept only when the settings ask for them (output.intermediates).
struct Intermediates {
  VolumeStore<std::uint8_t> mask;     // 1 = pore after filling
  VolumeStore<float> distance;        // exact EDT
  VolumeStore<float> smoothed;        // what the watershed floods; empty for sigma 0 (the distance itself)
  VolumeStore<std::uint32_t> markers;
};

struct Segmentation {
  VolumeStore<std::uint32_t> labels;  // pore regions 1..regions, 0 = solid or unassigned
  std::uint32_t regions = 0;
  RegionStats stats;                  // from labels and the unsmoothed distance map
  float threshold = 0;                // used, in rescaled units
  double porosity_binarized = 0;      // pore fraction after thresholding
  double porosity = 0;                // after filling (the network's pore space)
  std::uint64_t closed_pore_voxels = 0, floating_solid_voxels = 0;  // changed by filling
  Markers markers;                    // counts only (voxels cleared to save memory)
  int watershed_passes = 0;           // GPU relaxation passes (0 on the CPU)
  std::size_t slab_budget_bytes = 0;    // out-of-core: the GPU memory the slabs were sized for (each GPU's)
  int slab_gpus = 0;                    // out-of-core: the GPUs the slabs were spread over
  std::vector<std::string> slab_retries;  // out-of-core: stages that ran out anyway and ran again in thinner slabs
  int watershed_slab_runs = 0;        // out-of-core: slab relaxations until none changed
  Intermediates intermediates;        // empty unless asked for
  std::vector<std::pair<std::string, double>> stage_seconds;  // in pipeline order
  // Out-of-core: the process's peak resident memory when each stage ended (shows which raised it).
  std::vector<std::pair<std::string, std::uint64_t>> stage_peak_rss_bytes;
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
// `budget_bytes`; same results as segment_gpu. `header` gives the dims and geometry, `input` the
// values (host memory, or the input file read slab by slab). The intermediate volumes (about 10
// bytes a voxel, 14 with denoising) and the labels are VolumeStores drawing on `storage`: host
// memory within its budget, else scratch files; the host holds slabs of a few slices beside them.
// `report` hears where the run is (each slab and watershed run), for the progress. With several
// GPUs (one runtime each) every stage spreads its slabs over them, each within `budget_bytes`;
// the results are the same.
Segmentation segment_gpu_slabs(const io::Volume& header, const VolumeStore<float>& input, const Settings& settings,
                               const std::vector<Runtime*>& gpus, std::size_t budget_bytes, VolumeStorage& storage,
                               const std::function<void(const std::string&)>& report = {});
// The same for a loaded volume, every store in host memory (tests).
Segmentation segment_gpu_slabs(const io::Volume& volume, const Settings& settings, const std::vector<Runtime*>& gpus,
                               std::size_t budget_bytes);

// Peak device memory of segment_gpu for a volume (the largest stage's volumes and scratch).
std::size_t in_core_device_bytes(const io::Dims3& dims);

}  // namespace gp::pnm
