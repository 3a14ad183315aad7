// The GPU path of segmentation.hpp: the volume is uploaded once and stays on the device until the
// labels come back; on the way only counts are read back (and the intermediates, when asked for).
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "cuda/pnm/binarize.hpp"
#include "cuda/pnm/components.hpp"
#include "cuda/pnm/count.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/markers.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/watershed.hpp"
#include "pnm/segmentation.hpp"
#include "pnm/stage_clock.hpp"

namespace gp::pnm {
namespace {

// Device volumes of one run and the scratch of the stage being run.
class DeviceWorkspace {
 public:
  DeviceWorkspace(Runtime& rt, const Stream& stream, const io::Dims3& dims) : rt_(rt), stream_(stream), dims_(dims) {}

  template <class T>
  VolumeView<T> volume(DeviceBuffer& buffer, const char* what) {
    buffer = rt_.device_alloc(std::max<std::size_t>(dims_.voxels() * sizeof(T), 1), stream_, what);
    return volume_view(buffer.as<T>(), dims_);
  }
  ScratchAllocator scratch() {
    return [this](std::size_t bytes) {
      scratch_.push_back(rt_.device_alloc(std::max<std::size_t>(bytes, 1), stream_, "segment-pnm scratch"));
      return scratch_.back().get();
    };
  }
  void release_scratch() { scratch_.clear(); }

 private:
  Runtime& rt_;
  const Stream& stream_;
  io::Dims3 dims_;
  std::vector<DeviceBuffer> scratch_;
};

template <class T>
VolumeStore<T> download_volume(StagingBuffer& staging, const Stream& stream, VolumeView<T> view) {
  HostVolume<T> host(view.held_voxels());
  staging.download(stream, host.data(), view.data, host.size() * sizeof(T));
  return VolumeStore<T>(std::move(host), io::Dims3{view.nx, view.ny, view.nz});
}

float otsu_threshold_gpu(VolumeView<const float> values, const ScratchAllocator& scratch, cudaStream_t stream) {
  const ValueRange range = value_range_gpu(values, scratch, stream);
  HistogramCounts counts{};
  histogram_gpu(values, range.lo, range.hi, counts, scratch, stream);
  return otsu_threshold(counts, range.lo, range.hi);
}

}  // namespace

std::size_t in_core_device_bytes(const io::Dims3& dims) {
  // The largest stage: the network's labels, distance, smoothed distance and mask (13 bytes per
  // voxel) with the region statistics' records and their sort (up to 35 more); the denoise stage
  // (12) and the watershed (25) stay below. Plus the EDT's scratch for lines too long for shared
  // memory (at most 256 MB).
  return dims.voxels() * 48 + (std::size_t(256) << 20);
}

Segmentation segment_gpu(const io::Volume& volume, const Settings& s, Runtime& rt) {
  Segmentation out;
  StageClock clock(out.stage_seconds);
  const auto& d = volume.dims;
  const std::size_t n = d.voxels();
  const Spacing spacing = spacing_of(volume);
  const double voxels = double(n);
  rt.bind_thread();
  const Stream stream = rt.make_stream();
  const cudaStream_t cs = stream.get();
  DeviceWorkspace ws(rt, stream, d);
  auto scratch = ws.scratch();
  // Kernels run asynchronously: each stage ends with a synchronise so the report's time is its own.
  auto next_stage = [&](const char* name) {
    stream.synchronize(std::string("segment-pnm ") + name);
    clock.start(name);
  };

  clock.start("upload");
  DeviceBuffer values_buffer, filtered_buffer, mask_buffer, distance_buffer, work_buffer, markers_buffer, labels_buffer;
  auto values = ws.volume<float>(values_buffer, "segment-pnm volume");
  // Pageable host memory <-> device through two pinned chunks; lives until the final synchronise.
  StagingBuffer staging(rt, std::size_t(64) << 20);
  staging.upload(stream, values.data, volume.values.data(), n * sizeof(float));

  next_stage("denoise");
  if (s.denoise != "none") {
    auto filtered = ws.volume<float>(filtered_buffer, "segment-pnm denoised volume");
    if (s.denoise == "median")
      median3_gpu(values, filtered, cs);
    else
      gaussian_filter_gpu(values, filtered, {s.denoise_sigma, s.denoise_sigma, s.denoise_sigma}, scratch, cs);
    std::swap(values_buffer, filtered_buffer);
    values = volume_view(values_buffer.as<float>(), d);
    filtered_buffer.reset();
  }

  next_stage("binarize");
  out.threshold = s.otsu ? otsu_threshold_gpu(values, scratch, cs) : s.threshold;
  auto mask = ws.volume<std::uint8_t>(mask_buffer, "segment-pnm mask");
  threshold_gpu(values, mask, out.threshold, s.pore_is_dark, cs);
  out.porosity_binarized = double(count_equal_gpu(mask, 1, scratch, cs)) / voxels;
  values_buffer.reset();
  ws.release_scratch();

  next_stage("fill_holes");
  if (s.remove_floating_solid) out.floating_solid_voxels = fill_enclosed_gpu(mask, 0, s.connectivity, scratch, cs);
  if (s.fill_closed_pores) out.closed_pore_voxels = fill_enclosed_gpu(mask, 1, s.connectivity, scratch, cs);
  out.porosity = double(count_equal_gpu(mask, 1, scratch, cs)) / voxels;
  ws.release_scratch();
  Intermediates kept;
  if (s.write_intermediates) kept.mask = download_volume(staging, stream, mask);

  next_stage("distance");
  auto distance = ws.volume<float>(distance_buffer, "segment-pnm distance map");
  auto work = ws.volume<float>(work_buffer, "segment-pnm distance work");
  distance_transform_gpu(mask, distance, work, spacing, scratch, cs);
  ws.release_scratch();
  if (s.write_intermediates) kept.distance = download_volume(staging, stream, distance);

  next_stage("markers");
  // Smoothed into the transform's work volume, free again; sigma 0 floods the map itself. Peaks,
  // their selection and the marker volume stay on the device.
  const auto smooth = s.sigma > 0 ? work : distance;
  if (s.sigma > 0) gaussian_filter_gpu(distance, smooth, smoothing_sigma(spacing, s.sigma), scratch, cs);
  auto markers = ws.volume<std::uint32_t>(markers_buffer, "segment-pnm markers");
  {
    const DevicePeaks peaks = find_peaks_device(mask, smooth, spacing, s.r_max, 0, d.nz, scratch, cs);
    const DeviceMarkers selected = select_markers_gpu(peaks.voxels, peaks.count, smooth, spacing, s.markers, scratch, cs);
    place_markers_gpu(selected.voxels, selected.labels, selected.voxel_count, markers, cs);
    out.markers = selected.summary;
  }
  if (s.write_intermediates) {
    if (s.sigma > 0) kept.smoothed = download_volume(staging, stream, smooth);
    kept.markers = download_volume(staging, stream, markers);
  }
  ws.release_scratch();

  next_stage("watershed");
  auto labels = ws.volume<std::uint32_t>(labels_buffer, "segment-pnm labels");
  out.watershed_passes = watershed_gpu(mask, smooth, markers, labels, scratch, cs);
  out.regions = out.markers.count;
  markers_buffer.reset();
  ws.release_scratch();

  next_stage("network");
  out.stats = region_stats_gpu(labels, distance, out.regions, 0, d.nz, Connectivity::c6, scratch, cs);
  ws.release_scratch();

  next_stage("download");
  out.labels = download_volume(staging, stream, labels);
  stream.synchronize("segment-pnm");
  out.intermediates = std::move(kept);
  return out;
}

}  // namespace gp::pnm
