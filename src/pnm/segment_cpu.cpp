// The CPU path of segmentation.hpp: every stage through the kernels' CPU references.
#include <utility>
#include <vector>

#include "cuda/pnm/binarize.hpp"
#include "cuda/pnm/components.hpp"
#include "cuda/pnm/count.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/edt.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/watershed.hpp"
#include "pnm/segmentation.hpp"
#include "pnm/stage_clock.hpp"

namespace gp::pnm {

Spacing spacing_of(const io::Volume& v) { return {float(v.spacing.x), float(v.spacing.y), float(v.spacing.z)}; }

GaussianSigma smoothing_sigma(const Spacing& s, float sigma) {
  // sigma is in voxels of the finest axis; coarser axes get proportionally fewer voxels.
  const float finest = std::min(s.x, std::min(s.y, s.z));
  return {double(sigma * finest / s.x), double(sigma * finest / s.y), double(sigma * finest / s.z)};
}

namespace {

float otsu_threshold_cpu(VolumeView<const float> values) {
  const ValueRange range = value_range_cpu(values);
  HistogramCounts counts{};
  histogram_cpu(values, range.lo, range.hi, counts);
  return otsu_threshold(counts, range.lo, range.hi);
}

}  // namespace

Segmentation segment_cpu(const io::Volume& volume, const Settings& s) {
  Segmentation out;
  StageClock clock(out.stage_seconds);
  const auto& d = volume.dims;
  const Spacing spacing = spacing_of(volume);
  const double voxels = double(d.voxels());

  clock.start("denoise");
  std::vector<float> filtered;
  const float* values = volume.values.data();
  if (s.denoise != "none") {
    filtered.resize(d.voxels());
    if (s.denoise == "median")
      median3_cpu(volume_view(values, d), volume_view(filtered.data(), d));
    else
      gaussian_filter_cpu(volume_view(values, d), volume_view(filtered.data(), d), {s.denoise_sigma, s.denoise_sigma, s.denoise_sigma});
    values = filtered.data();
  }

  clock.start("binarize");
  out.threshold = s.otsu ? otsu_threshold_cpu(volume_view(values, d)) : s.threshold;
  HostVolume<std::uint8_t> mask(d.voxels());
  threshold_cpu(volume_view(values, d), volume_view(mask.data(), d), out.threshold, s.pore_is_dark);
  filtered = {};
  out.porosity_binarized = double(count_equal_cpu(volume_view<const std::uint8_t>(mask.data(), d), 1)) / voxels;

  clock.start("fill_holes");
  if (s.remove_floating_solid) out.floating_solid_voxels = fill_enclosed_cpu(volume_view(mask.data(), d), 0, s.connectivity);
  if (s.fill_closed_pores) out.closed_pore_voxels = fill_enclosed_cpu(volume_view(mask.data(), d), 1, s.connectivity);
  out.porosity = double(count_equal_cpu(volume_view<const std::uint8_t>(mask.data(), d), 1)) / voxels;

  clock.start("distance");
  HostVolume<float> distance(d.voxels());
  distance_transform_cpu(volume_view<const std::uint8_t>(mask.data(), d), volume_view(distance.data(), d), spacing);

  clock.start("markers");
  HostVolume<float> smoothed;  // sigma 0 floods the distance map itself
  if (s.sigma > 0) {
    smoothed = HostVolume<float>(d.voxels());
    gaussian_filter_cpu(volume_view<const float>(distance.data(), d), volume_view(smoothed.data(), d),
                        smoothing_sigma(spacing, s.sigma));
  }
  const auto smooth = volume_view<const float>(s.sigma > 0 ? smoothed.data() : distance.data(), d);
  const auto peaks = find_peaks_cpu(volume_view<const std::uint8_t>(mask.data(), d), smooth, spacing,
                                    s.r_max);
  out.markers = select_markers(peaks, smooth, spacing, s.markers);

  clock.start("watershed");
  HostVolume<std::uint32_t> markers(d.voxels());
  place_markers_cpu(out.markers.voxels, out.markers.labels, volume_view(markers.data(), d));
  HostVolume<std::uint32_t> labels(d.voxels());
  watershed_cpu(volume_view<const std::uint8_t>(mask.data(), d), smooth,
                volume_view<const std::uint32_t>(markers.data(), d), volume_view(labels.data(), d));
  out.regions = out.markers.count;
  out.markers.voxels = {};
  out.markers.labels = {};

  clock.start("network");
  out.stats = region_stats_cpu(volume_view<const std::uint32_t>(labels.data(), d), volume_view<const float>(distance.data(), d),
                               out.regions, 0, d.nz, Connectivity::c6);
  out.labels = VolumeStore<std::uint32_t>(std::move(labels), d);
  if (s.write_intermediates) {
    out.intermediates.mask = VolumeStore<std::uint8_t>(std::move(mask), d);
    out.intermediates.distance = VolumeStore<float>(std::move(distance), d);
    if (!smoothed.empty()) out.intermediates.smoothed = VolumeStore<float>(std::move(smoothed), d);
    out.intermediates.markers = VolumeStore<std::uint32_t>(std::move(markers), d);
  }
  return out;
}

}  // namespace gp::pnm
