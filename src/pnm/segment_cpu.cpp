// The CPU backend of segment_pipeline.hpp: every stage through the kernels' CPU references.
#include <utility>
#include <vector>

#include "cuda/pnm/binarize.hpp"
#include "cuda/pnm/fill_enclosed.hpp"
#include "cuda/pnm/count.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/watershed.hpp"
#include "pnm/segment_pipeline.hpp"

namespace gp::pnm {

Spacing spacing_of(const io::Volume& v) { return {float(v.spacing.x), float(v.spacing.y), float(v.spacing.z)}; }

GaussianSigma smoothing_sigma(const Spacing& s, float sigma) {
  // sigma is in voxels of the finest axis; coarser axes get proportionally fewer voxels.
  const float finest = std::min(s.x, std::min(s.y, s.z));
  return {double(sigma * finest / s.x), double(sigma * finest / s.y), double(sigma * finest / s.z)};
}

namespace {

class CpuBackend final : public SegmentBackend {
 public:
  CpuBackend(const io::Volume& volume, const Settings& s)
      : s_(s), d_(volume.dims), spacing_(spacing_of(volume)), values_(volume.values.data()) {}

  void denoise() override {
    filtered_ = HostVolume<float>(d_.voxels());
    if (s_.denoise == "median")
      median3_cpu(view(values_), view(filtered_.data()));
    else
      gaussian_filter_cpu(view(values_), view(filtered_.data()), {s_.denoise_sigma, s_.denoise_sigma, s_.denoise_sigma});
    values_ = filtered_.data();
  }
  float otsu_threshold() override {
    const ValueRange range = value_range_cpu(view(values_));
    HistogramCounts counts{};
    histogram_cpu(view(values_), range.lo, range.hi, counts);
    return gp::pnm::otsu_threshold(counts, range.lo, range.hi);
  }
  std::uint64_t binarize(float threshold) override {
    mask_ = HostVolume<std::uint8_t>(d_.voxels());
    threshold_cpu(view(values_), view(mask_.data()), threshold, s_.pore_is_dark);
    filtered_ = HostVolume<float>();
    return count_equal_cpu(view<const std::uint8_t>(mask_.data()), 1);
  }
  void fill_enclosed(std::uint8_t phase, std::uint64_t& changed) override {
    changed += fill_enclosed_cpu(view(mask_.data()), phase, s_.connectivity);
  }
  void distance() override {
    distance_ = HostVolume<float>(d_.voxels());
    distance_transform_cpu(view<const std::uint8_t>(mask_.data()), view(distance_.data()), spacing_);
  }
  Markers markers() override {
    if (s_.sigma > 0) {  // sigma 0 floods the distance map itself
      smoothed_ = HostVolume<float>(d_.voxels());
      gaussian_filter_cpu(view<const float>(distance_.data()), view(smoothed_.data()), smoothing_sigma(spacing_, s_.sigma));
    }
    const auto peaks = find_peaks_cpu(view<const std::uint8_t>(mask_.data()), flooded(), spacing_, s_.r_max);
    return select_markers(peaks, flooded(), spacing_, s_.markers);
  }
  void watershed(const Markers& m) override {
    markers_ = HostVolume<std::uint32_t>(d_.voxels());
    place_markers_cpu(m.voxels, m.labels, view(markers_.data()));
    labels_ = HostVolume<std::uint32_t>(d_.voxels());
    watershed_cpu(view<const std::uint8_t>(mask_.data()), flooded(), view<const std::uint32_t>(markers_.data()),
                  view(labels_.data()));
  }
  RegionStats network(std::uint32_t regions) override {
    return region_stats_cpu(view<const std::uint32_t>(labels_.data()), view<const float>(distance_.data()), regions, 0,
                            d_.nz, Connectivity::c6);
  }
  void finish(Segmentation& out) override {
    out.labels = VolumeStore<std::uint32_t>(std::move(labels_), d_);
    if (!s_.write_intermediates) return;
    out.intermediates.mask = VolumeStore<std::uint8_t>(std::move(mask_), d_);
    out.intermediates.distance = VolumeStore<float>(std::move(distance_), d_);
    if (!smoothed_.empty()) out.intermediates.smoothed = VolumeStore<float>(std::move(smoothed_), d_);
    out.intermediates.markers = VolumeStore<std::uint32_t>(std::move(markers_), d_);
  }

 private:
  template <class T>
  VolumeView<T> view(T* data) const {
    return volume_view(data, d_);
  }
  VolumeView<const float> flooded() const { return view<const float>(s_.sigma > 0 ? smoothed_.data() : distance_.data()); }

  const Settings& s_;
  io::Dims3 d_;
  Spacing spacing_;
  const float* values_;
  HostVolume<float> filtered_, distance_, smoothed_;
  HostVolume<std::uint8_t> mask_;
  HostVolume<std::uint32_t> markers_, labels_;
};

}  // namespace

Segmentation segment_cpu(const io::Volume& volume, const Settings& s) {
  CpuBackend backend(volume, s);
  return run_segmentation(s, backend, volume.dims.voxels());
}

}  // namespace gp::pnm
