// The GPU-in-one-piece backend of segment_pipeline.hpp: the volume is uploaded once and stays on
// the device until the labels come back; on the way only counts are read back (and the
// intermediates, when asked for).
#include <algorithm>
#include <future>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/staging_buffer.hpp"
#include "cuda/pnm/binarize.hpp"
#include "cuda/pnm/fill_enclosed.hpp"
#include "cuda/pnm/count.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/markers.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/watershed.hpp"
#include "pnm/segment_pipeline.hpp"

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

namespace {

class GpuBackend final : public SegmentBackend {
 public:
  GpuBackend(const io::Volume& volume, const Settings& s, Runtime& rt)
      : s_(s), rt_(rt), volume_(volume), d_(volume.dims), spacing_(spacing_of(volume)), stream_((rt.bind_thread(), rt.make_stream())),
        cs_(stream_.get()), ws_(rt, stream_, d_), scratch_(ws_.scratch()),
        // Pageable host memory <-> device through two pinned chunks; lives until the last synchronise.
        staging_(rt, std::size_t(64) << 20) {}

  // Kernels run asynchronously: each stage ends with a synchronise so the report's time is its own.
  void run(const char* stage, const std::function<void()>& body) override {
    body();
    ws_.release_scratch();
    stream_.synchronize(std::string("segment-pnm ") + stage);
  }
  bool moves_volumes() const override { return true; }
  void upload() override {
    values_ = ws_.volume<float>(values_buffer_, "segment-pnm volume");
    staging_.upload(stream_, values_.data, volume_.values.data(), d_.voxels() * sizeof(float));
  }
  void denoise() override {
    DeviceBuffer filtered_buffer;
    auto filtered = ws_.volume<float>(filtered_buffer, "segment-pnm denoised volume");
    if (s_.denoise == "median")
      median3_gpu(values_, filtered, cs_);
    else
      gaussian_filter_gpu(values_, filtered, {s_.denoise_sigma, s_.denoise_sigma, s_.denoise_sigma}, scratch_, cs_);
    values_buffer_ = std::move(filtered_buffer);
    values_ = volume_view(values_buffer_.as<float>(), d_);
  }
  float otsu_threshold() override { return otsu_threshold_gpu(values_, scratch_, cs_); }
  std::uint64_t binarize(float threshold) override {
    mask_ = ws_.volume<std::uint8_t>(mask_buffer_, "segment-pnm mask");
    threshold_gpu(values_, mask_, threshold, s_.pore_is_dark, cs_);
    const std::uint64_t pore = count_equal_gpu(mask_, 1, scratch_, cs_);
    values_buffer_.reset();
    return pore;
  }
  void fill_enclosed(std::uint8_t phase, std::uint64_t& changed) override {
    changed += fill_enclosed_gpu(mask_, phase, s_.connectivity, scratch_, cs_);
  }
  void distance() override {
    if (s_.write_intermediates) kept_.mask = download_volume(staging_, stream_, mask_);
    distance_ = ws_.volume<float>(distance_buffer_, "segment-pnm distance map");
    work_ = ws_.volume<float>(work_buffer_, "segment-pnm distance work");
    distance_transform_gpu(mask_, distance_, work_, spacing_, scratch_, cs_);
    if (s_.write_intermediates) kept_.distance = download_volume(staging_, stream_, distance_);
  }
  // Smoothed into the transform's work volume, free again; sigma 0 floods the map itself. Peaks,
  // their selection and the marker volume stay on the device.
  Markers markers() override {
    flooded_ = s_.sigma > 0 ? work_ : distance_;
    if (s_.sigma > 0) gaussian_filter_gpu(distance_, flooded_, smoothing_sigma(spacing_, s_.sigma), scratch_, cs_);
    markers_ = ws_.volume<std::uint32_t>(markers_buffer_, "segment-pnm markers");
    const DevicePeaks peaks = find_peaks_device(mask_, flooded_, spacing_, s_.r_max, 0, d_.nz, scratch_, cs_);
    const DeviceMarkers selected = select_markers_gpu(peaks.voxels, peaks.count, flooded_, spacing_, s_.markers, scratch_, cs_);
    place_markers_gpu(selected.voxels, selected.labels, selected.voxel_count, markers_, cs_);
    if (s_.write_intermediates) {
      if (s_.sigma > 0) kept_.smoothed = download_volume(staging_, stream_, flooded_);
      kept_.markers = download_volume(staging_, stream_, markers_);
    }
    return selected.summary;
  }
  void watershed(const Markers&) override {
    labels_ = ws_.volume<std::uint32_t>(labels_buffer_, "segment-pnm labels");
    passes_ = watershed_gpu(mask_, flooded_, markers_, labels_, scratch_, cs_);
    markers_buffer_.reset();
  }
  // The labels are final once the watershed stage has synchronised: they come home on a second
  // stream and thread while the statistics run (at 1024^3, 4 GiB that took as long as the stage).
  RegionStats network(std::uint32_t regions) override {
    labels_home_ = std::async(std::launch::async, [this] {
      rt_.bind_thread();
      const Stream stream = rt_.make_stream();
      StagingBuffer staging(rt_, std::size_t(64) << 20);
      VolumeStore<std::uint32_t> labels = download_volume(staging, stream, labels_);
      stream.synchronize("segment-pnm labels download");
      return labels;
    });
    return region_stats_gpu(labels_, distance_, regions, 0, d_.nz, Connectivity::c6, scratch_, cs_);
  }
  void finish(Segmentation& out) override {
    out.labels = labels_home_.get();
    stream_.synchronize("segment-pnm");
    out.watershed_passes = passes_;
    out.intermediates = std::move(kept_);
  }

 private:
  const Settings& s_;
  Runtime& rt_;
  const io::Volume& volume_;
  io::Dims3 d_;
  Spacing spacing_;
  Stream stream_;
  cudaStream_t cs_;
  DeviceWorkspace ws_;
  ScratchAllocator scratch_;
  StagingBuffer staging_;
  DeviceBuffer values_buffer_, mask_buffer_, distance_buffer_, work_buffer_, markers_buffer_, labels_buffer_;
  VolumeView<float> values_, distance_, work_, flooded_;
  VolumeView<std::uint8_t> mask_;
  VolumeView<std::uint32_t> markers_, labels_;
  Intermediates kept_;
  int passes_ = 0;
  // Declared after the device buffers: destroyed first, so an unfinished download is waited for
  // before the labels' buffer is freed.
  std::future<VolumeStore<std::uint32_t>> labels_home_;
};

}  // namespace

Segmentation segment_gpu(const io::Volume& volume, const Settings& s, Runtime& rt) {
  GpuBackend backend(volume, s, rt);
  return run_segmentation(s, backend, volume.dims.voxels());
}

}  // namespace gp::pnm
