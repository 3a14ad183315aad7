// The out-of-core GPU backend of segment_pipeline.hpp: every whole volume (input, denoised values,
// mask, distance map, labels) stays in a VolumeStore (host memory within --host-memory-limit, else
// a scratch file; the input may stay in its own file) and every stage streams Z-slabs with the
// halo slices it reads through the GPU, within a device-memory budget. Voxels are addressed with
// 64-bit indices on the host; a slab's own kernels see fewer than 2^31 voxels. Each stage gives
// exactly what the in-core stage gives, so the labels and statistics equal those of segment_gpu
// and segment_cpu.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/trace.hpp"
#include "cuda/pnm/binarize.hpp"
#include "cuda/pnm/count.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/markers.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/region_stats.hpp"
#include "pnm/segment_pipeline.hpp"
#include "pnm/slab_stages.hpp"

namespace gp::pnm {
namespace {

// The denoised volume, slab by slab (input with the filter's halo in, filtered slices out).
VolumeStore<float> denoise_slabs(SlabDevice& device, const VolumeStore<float>& values, const Settings& s,
                                 VolumeStorage& storage) {
  const io::Dims3& d = values.dims();
  const bool median = s.denoise == "median";
  const GaussianSigma sigma{s.denoise_sigma, s.denoise_sigma, s.denoise_sigma};
  const int halo = median ? median3_halo : gaussian_halo(sigma.z);
  VolumeStore<float> filtered(storage, d, "denoised");
  device.pipelined(
      device.plan(median ? 8 : 12, halo),
      [&](SlabLane& lane, SlabRange r) {
        const auto in = lane.upload(values, with_halo(r, halo, d.nz), "segment-pnm volume slab");
        const auto out = lane.allocate<float>(r, "segment-pnm denoised slab");
        if (median)
          median3_gpu(in, out, lane.stream());
        else
          gaussian_filter_gpu(in, out, sigma, lane.scratch(), lane.stream());
        return out;
      },
      [&](SlabLane& lane, SlabRange r, const VolumeView<float>& out) { lane.download<float>(filtered, out, r); });
  return filtered;
}

// The values' slabs as the binarize stage reads them, up to three times (range and histogram for
// Otsu, then the threshold): uploaded each time, or, when the values are not in host memory
// (streamed from their file, or in scratch) and each GPU's share fits its budget beside a
// thresholding slab, uploaded once and kept on the GPUs (held by each one's second lane, so one
// slab is in flight at a time) until the mask is made: one read of the file instead of three.
class ValueSlabs {
 public:
  ValueSlabs(SlabDevice& device, const VolumeStore<float>& values, bool reread)
      : device_(device), values_(values), plan_(device.plan(4 + 1, 0)) {
    if (!reread || values.resident()) return;
    SlabPlan single = device.plan(4 + 1, 0, false);
    const std::size_t plane = values.dims().slice_voxels();
    for (int g = 0; g < device.gpus(); ++g) {
      const SlabPlan::HeldVoxels held = single.held_voxels(g, 0, values.dims().nz, plane);
      // Beside the kept values: a mask slab and the count's scratch.
      if (4.0 * held.total * 1.02 + 2 * held.deepest > double(device.budget_bytes())) return;
    }
    plan_ = std::move(single);
    kept_.resize(plan_.slabs.size());
    filled_.assign(plan_.slabs.size(), 0);
    device.on_each_gpu([&](int g) {
      SlabLane& holder = device.lane(1, g);
      const SlabPlan::Indices own = plan_.slabs_of(g);
      for (std::size_t k = own.begin; k < own.end; ++k)
        kept_[k] = holder.allocate<float>(plan_.slabs[k], "segment-pnm volume slab (kept)");
      holder.synchronize();  // allocated in the holder's stream order; filled on the first lane's
    });
  }
  ValueSlabs(const ValueSlabs&) = delete;
  ValueSlabs& operator=(const ValueSlabs&) = delete;
  ~ValueSlabs() {
    if (kept_.empty()) return;
    try {
      device_.on_each_gpu([&](int g) { device_.lane(1, g).release(); });
    } catch (...) {  // a failed GPU: its stage's error is the one reported
    }
  }

  const SlabPlan& plan() const { return plan_; }
  // Slab r on the lane's GPU: the kept one (uploaded the first time), else a new upload.
  VolumeView<float> get(SlabLane& lane, SlabRange r) {
    if (kept_.empty()) return lane.upload(values_, r, "segment-pnm volume slab");
    const auto k = std::size_t(r.index);
    if (!filled_[k]) lane.upload_into(values_, kept_[k]);
    filled_[k] = 1;
    return kept_[k];
  }

 private:
  SlabDevice& device_;
  const VolumeStore<float>& values_;
  SlabPlan plan_;
  std::vector<VolumeView<float>> kept_;
  std::vector<char> filled_;  // per slab: written by its GPU's thread only
};

// Otsu's threshold from the range and histogram summed over slabs (binarize.hpp).
float otsu_threshold_slabs(SlabDevice& device, ValueSlabs& values) {
  const SlabPlan& slabs = values.plan();
  std::vector<ValueRange> ranges(slabs.slabs.size());
  device.pipelined(
      slabs,
      [&](SlabLane& lane, SlabRange r) {
        return value_range_gpu(values.get(lane, r), lane.scratch(), lane.stream());
      },
      [&](SlabLane&, SlabRange r, const ValueRange& part) { ranges[std::size_t(r.index)] = part; });
  ValueRange range;
  for (const ValueRange& part : ranges) range.include(part);
  std::vector<HistogramCounts> parts(slabs.slabs.size());
  device.pipelined(
      slabs,
      [&](SlabLane& lane, SlabRange r) {
        HistogramCounts part{};
        histogram_gpu(values.get(lane, r), range.lo, range.hi, part, lane.scratch(), lane.stream());
        return part;
      },
      [&](SlabLane&, SlabRange r, const HistogramCounts& part) { parts[std::size_t(r.index)] = part; });
  HistogramCounts counts{};
  for (const HistogramCounts& part : parts)
    for (int b = 0; b < histogram_bins; ++b) counts[b] += part[b];
  return otsu_threshold(counts, range.lo, range.hi);
}

// The marker volume (output.intermediates), a few slices at a time.
VolumeStore<std::uint32_t> marker_volume(const Markers& markers, const io::Dims3& d, VolumeStorage& storage) {
  VolumeStore<std::uint32_t> volume(storage, d, "markers", ScratchForm::compressed);
  const std::size_t plane = d.slice_voxels();
  const int chunk = int(std::max<std::size_t>(1, (std::size_t(64) << 20) / (plane * 4)));
  std::vector<std::uint32_t> slices;
  std::size_t k = 0;
  for (int z = 0; z < d.nz; z += chunk) {
    const int end = std::min(d.nz, z + chunk);
    const std::size_t first = std::size_t(z) * plane, last = std::size_t(end) * plane;
    slices.assign(last - first, 0);
    for (; k < markers.voxels.size() && markers.voxels[k] < last; ++k) slices[markers.voxels[k] - first] = markers.labels[k];
    volume.write(first, last - first, slices.data());
  }
  return volume;
}

// The markers from the slabs' peaks: on the GPU (select_markers_gpu) when the flooded map fits
// the device budget with room for the selection's working arrays, so the map never has to be
// in host memory (it is built there slab by slab); else on the host through a mapping of the map
// (only the pages around the peak clusters are read), kept for that in a store of its own unless
// the distance store is the map and can be mapped. Both select the same markers.
Markers select_slab_markers(SlabDevice& device, const std::vector<std::uint64_t>& peaks, const FloodedMap& flooded,
                            const VolumeStore<float>& distance, bool smoothed, Spacing spacing, const MarkerParams& params,
                            VolumeStorage& storage) {
  const io::Dims3& d = flooded.dims();
  const std::size_t plane = d.slice_voxels();
  const double map_bytes = double(d.voxels()) * sizeof(float);
  if (double(device.budget_bytes()) >= map_bytes * 1.5 + double(peaks.size()) * 64) {
    SlabLane& lane = device.lane(0);
    SlabLane& builder = device.lane(1);  // its slabs are freed as the map grows on lane 0
    try {
      const auto map = lane.allocate<float>(SlabRange{0, d.nz}, "segment-pnm smoothed distance map");
      lane.synchronize();  // the map's allocation is ordered on lane 0's stream; the builder fills it
      // The half map left for the selection's arrays holds the smoothing slabs meanwhile.
      const double per_slice = (4.0 + flooded.working_bytes_per_voxel()) * double(plane);
      const int depth = int(std::max(1.0, std::min(double(d.nz), map_bytes * 0.5 / per_slice - 2.0 * flooded.halo())));
      for (int z = 0; z < d.nz; z += depth) {
        const int end = std::min(d.nz, z + depth);
        flooded.fill(builder, VolumeView<float>{map.data + std::size_t(z) * plane, d.nx, d.ny, d.nz, z, end - z});
        builder.release();
      }
      auto* device_peaks = static_cast<std::uint64_t*>(
          lane.allocate_bytes(std::max<std::size_t>(peaks.size(), 1) * sizeof(std::uint64_t), "segment-pnm peaks"));
      if (!peaks.empty()) lane.copy_up(device_peaks, peaks.data(), peaks.size() * sizeof(std::uint64_t));
      const DeviceMarkers selected =
          select_markers_gpu(device_peaks, peaks.size(), map, spacing, params, lane.scratch(), lane.stream());
      Markers markers = download_markers(selected, lane.stream());
      lane.release();
      return markers;
    } catch (const GpuOutOfMemory&) {
      builder.release();
      lane.release();  // the estimate was low: the host selection below
    }
  }
  if (!smoothed && distance.random_access()) return select_markers(peaks, distance.whole().view, spacing, params);
  // The map in host memory when the budget has room for all of it, else in a plain scratch file.
  HostMemoryBudget none(0);
  VolumeStorage disk{none, storage.scratch};
  VolumeStore<float> copy(storage.budget.available() >= std::uint64_t(map_bytes) ? storage : disk, d, "flooded");
  device.pipelined(
      device.plan(4 + flooded.working_bytes_per_voxel(), flooded.halo()),
      [&](SlabLane& l, SlabRange r) { return flooded.upload(l, r, "segment-pnm smoothed distance slab"); },
      [&](SlabLane& l, SlabRange r, const VolumeView<float>& slab) { l.download<float>(copy, slab, r); });
  return select_markers(peaks, copy.whole().view, spacing, params);
}

}  // namespace

namespace {

class SlabBackend final : public SegmentBackend {
 public:
  SlabBackend(const io::Volume& header, const VolumeStore<float>& input, const Settings& s,
              const std::vector<Runtime*>& gpus, std::size_t budget_bytes, VolumeStorage& storage,
              const StepReporter& report)
      : s_(s), d_(header.dims), spacing_(spacing_of(header)), input_(input), storage_(storage),
        device_(gpus, d_, budget_bytes), budget_bytes_(budget_bytes) {
    device_.set_step_reporter(report);
  }

  void run(const char* stage, const std::function<void()>& body) override { device_.run_stage(stage, body); }
  bool tracks_rss() const override { return true; }

  void denoise() override { filtered_ = denoise_slabs(device_, input_, s_, storage_); }
  float otsu_threshold() override {
    value_slabs_.reset();  // a stage run again starts from the store
    value_slabs_.emplace(device_, values(), true);
    return otsu_threshold_slabs(device_, *value_slabs_);
  }
  std::uint64_t binarize(float threshold) override {
    if (mask_.empty()) mask_ = VolumeStore<std::uint8_t>(storage_, d_, "mask");
    if (!value_slabs_) value_slabs_.emplace(device_, values(), false);
    ValueSlabs& values = *value_slabs_;
    const SlabPlan& plan = values.plan();
    std::vector<std::uint64_t> pore_voxels(plan.slabs.size(), 0);
    device_.pipelined(
        plan,
        [&](SlabLane& lane, SlabRange r) {
          const auto v = values.get(lane, r);
          const auto m = lane.allocate<std::uint8_t>(r, "segment-pnm mask slab");
          threshold_gpu(v, m, threshold, s_.pore_is_dark, lane.stream());
          pore_voxels[std::size_t(r.index)] = count_equal_gpu(m, 1, lane.scratch(), lane.stream());
          return m;
        },
        [&](SlabLane& lane, SlabRange r, const VolumeView<std::uint8_t>& m) { lane.download<std::uint8_t>(mask_, m, r); });
    value_slabs_.reset();
    filtered_ = VolumeStore<float>();
    return std::accumulate(pore_voxels.begin(), pore_voxels.end(), std::uint64_t(0));
  }
  void fill_enclosed(std::uint8_t phase, std::uint64_t& changed) override {
    fill_enclosed_slabs(device_, mask_, phase, s_.connectivity, changed);
  }
  void distance() override {
    if (distance_.empty()) distance_ = VolumeStore<float>(storage_, d_, "distance");
    distance_transform_slabs(device_, mask_, distance_, spacing_);
    flooded_.emplace(distance_, smoothing_sigma(spacing_, s_.sigma), s_.sigma > 0);
  }
  // Smoothed with the Gaussian's halo around the slices the peak test reads (sigma 0: the map);
  // the smoothed volume is kept only when asked for (output.intermediates).
  Markers markers() override {
    if (s_.sigma > 0 && s_.write_intermediates && smoothed_.empty()) smoothed_ = VolumeStore<float>(storage_, d_, "smoothed");
    const int peak_reach = peak_halo(spacing_, s_.r_max);
    struct SlabPeaks {
      VolumeView<float> smoothed;  // holds the slab
      std::vector<std::uint64_t> peaks;
    };
    const SlabPlan plan = device_.plan(4 + flooded_->working_bytes_per_voxel() + 1 + 1 + 4, peak_reach + flooded_->halo());
    std::vector<std::vector<std::uint64_t>> slab_peaks(plan.slabs.size());
    device_.pipelined(
        plan,
        [&](SlabLane& lane, SlabRange r) {
          const SlabRange tested = with_halo(r, peak_reach, d_.nz);
          const auto m = lane.upload(mask_, tested, "segment-pnm mask slab");
          const auto smooth = flooded_->upload(lane, tested, "segment-pnm smoothed distance slab");
          return SlabPeaks{smooth,
                           find_peaks_gpu(m, smooth, spacing_, s_.r_max, r.begin, r.end, lane.scratch(), lane.stream())};
        },
        [&](SlabLane& lane, SlabRange r, SlabPeaks& slab) {
          if (!smoothed_.empty()) lane.download<float>(smoothed_, slab.smoothed, r);
          slab_peaks[std::size_t(r.index)] = std::move(slab.peaks);
        });
    std::vector<std::uint64_t> peaks;  // in voxel order, as the slabs are
    for (const auto& part : slab_peaks) peaks.insert(peaks.end(), part.begin(), part.end());
    slab_peaks = {};
    return select_slab_markers(device_, peaks, *flooded_, distance_, s_.sigma > 0, spacing_, s_.markers, storage_);
  }
  void watershed(const Markers& markers) override {
    if (labels_.empty()) labels_ = VolumeStore<std::uint32_t>(storage_, d_, "labels", ScratchForm::compressed);
    runs_ = watershed_slabs(device_, mask_, *flooded_, markers, labels_);
    if (s_.write_intermediates) markers_ = marker_volume(markers, d_, storage_);
    // The region and throat records of the network stage take the mask's host memory.
    if (!s_.write_intermediates) mask_ = VolumeStore<std::uint8_t>();
  }
  // Labels and distance with one halo slice, region and throat records and their sort.
  RegionStats network(std::uint32_t regions) override {
    const SlabPlan plan = device_.plan(4 + 4 + 48, 1);
    std::vector<RegionStats> parts(plan.slabs.size());
    device_.pipelined(
        plan,
        [&](SlabLane& lane, SlabRange r) {
          const SlabRange held = with_halo(r, 1, d_.nz);
          std::optional<ScopedStage> span(std::in_place, "network.upload");  // where the stage's time goes
          const auto l = lane.upload(labels_, held, "segment-pnm labels slab");
          const auto dist = lane.upload(distance_, held, "segment-pnm distance slab");
          span.emplace("network.stats");
          return region_stats_gpu(l, dist, regions, r.begin, r.end, Connectivity::c6, lane.scratch(), lane.stream());
        },
        [&](SlabLane&, SlabRange r, RegionStats& part) { parts[std::size_t(r.index)] = std::move(part); });
    ScopedStage span("network.merge");
    return merge_region_stats(std::move(parts));
  }
  void finish(Segmentation& out) override {
    out.labels = std::move(labels_);
    out.watershed_slab_runs = runs_;
    out.slab_budget_bytes = budget_bytes_;
    out.slab_gpus = device_.gpus();
    out.slab_retries = device_.retries();
    if (!s_.write_intermediates) return;
    out.intermediates.mask = std::move(mask_);
    out.intermediates.smoothed = std::move(smoothed_);  // empty for sigma 0
    out.intermediates.markers = std::move(markers_);
    flooded_.reset();
    out.intermediates.distance = std::move(distance_);
  }

 private:
  const VolumeStore<float>& values() const { return filtered_.empty() ? input_ : filtered_; }

  const Settings& s_;
  io::Dims3 d_;
  Spacing spacing_;
  const VolumeStore<float>& input_;
  VolumeStorage& storage_;
  SlabDevice device_;
  std::size_t budget_bytes_;
  VolumeStore<float> filtered_, distance_, smoothed_;
  VolumeStore<std::uint8_t> mask_;
  VolumeStore<std::uint32_t> markers_, labels_;
  std::optional<FloodedMap> flooded_;  // over distance_
  std::optional<ValueSlabs> value_slabs_;  // from the Otsu passes to the threshold
  int runs_ = 0;
};

}  // namespace

Segmentation segment_gpu_slabs(const io::Volume& header, const VolumeStore<float>& input, const Settings& s,
                               const std::vector<Runtime*>& gpus, std::size_t budget_bytes, VolumeStorage& storage,
                               const std::function<void(const std::string&)>& report) {
  SlabBackend backend(header, input, s, gpus, budget_bytes, storage, report);
  return run_segmentation(s, backend, header.dims.voxels());
}

Segmentation segment_gpu_slabs(const io::Volume& volume, const Settings& settings, const std::vector<Runtime*>& gpus,
                               std::size_t budget_bytes) {
  // Everything in host memory: the budget outlives the result's reservations.
  static HostMemoryBudget unlimited(~std::uint64_t(0));
  static ScratchSpace unused(".", "run.scratch_dir");
  VolumeStorage storage{unlimited, unused};
  const auto input = VolumeStore<float>::borrow(volume.values.data(), volume.dims);
  return segment_gpu_slabs(volume, input, settings, gpus, budget_bytes, storage);
}

}  // namespace gp::pnm
