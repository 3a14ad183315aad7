// The out-of-core GPU path of segmentation.hpp: the host keeps whole volumes (values, mask,
// distance, smoothed distance, markers, labels) and every stage streams Z-slabs with the halo
// slices it reads through the GPU, within a device-memory budget. Each stage gives exactly what
// the in-core stage gives, so the labels and statistics equal those of segment_gpu and
// segment_cpu.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "cuda/pnm/binarize.hpp"
#include "cuda/pnm/count.hpp"
#include "cuda/pnm/denoise.hpp"
#include "cuda/pnm/peaks.hpp"
#include "cuda/pnm/region_stats.hpp"
#include "cuda/pnm/watershed.hpp"
#include "pnm/segmentation.hpp"
#include "pnm/slab_stages.hpp"
#include "pnm/stage_clock.hpp"

namespace gp::pnm {
namespace {

// The denoised volume, slab by slab (input with the filter's halo in, filtered slices out).
HostVolume<float> denoise_slabs(SlabDevice& device, const float* values, const io::Dims3& d, const Settings& s) {
  const bool median = s.denoise == "median";
  const GaussianSigma sigma{s.denoise_sigma, s.denoise_sigma, s.denoise_sigma};
  const int halo = median ? median3_halo : gaussian_halo(sigma.z);
  HostVolume<float> filtered(d.voxels());
  device.pipelined(
      device.plan(median ? 8 : 12, halo),
      [&](SlabLane& lane, SlabRange r) {
        const auto in = lane.upload<float>(values, with_halo(r, halo, d.nz), "segment-pnm volume slab");
        const auto out = lane.allocate<float>(r, "segment-pnm denoised slab");
        if (median)
          median3_gpu(in, out, lane.stream());
        else
          gaussian_filter_gpu(in, out, sigma, lane.scratch(), lane.stream());
        return out;
      },
      [&](SlabLane& lane, SlabRange r, const VolumeView<float>& out) { lane.download<float>(filtered.data(), out, r); });
  return filtered;
}

// Otsu's threshold from the range and histogram summed over slabs (binarize.hpp).
float otsu_threshold_slabs(SlabDevice& device, const float* values, const SlabPlan& slabs) {
  ValueRange range;
  device.pipelined(
      slabs,
      [&](SlabLane& lane, SlabRange r) {
        return value_range_gpu(lane.upload<float>(values, r, "segment-pnm volume slab"), lane.scratch(), lane.stream());
      },
      [&](SlabLane&, SlabRange, const ValueRange& part) { range.include(part); });
  HistogramCounts counts{};
  device.pipelined(
      slabs,
      [&](SlabLane& lane, SlabRange r) {
        HistogramCounts part{};
        histogram_gpu(lane.upload<float>(values, r, "segment-pnm volume slab"), range.lo, range.hi, part,
                      lane.scratch(), lane.stream());
        return part;
      },
      [&](SlabLane&, SlabRange, const HistogramCounts& part) {
        for (int b = 0; b < histogram_bins; ++b) counts[b] += part[b];
      });
  return otsu_threshold(counts, range.lo, range.hi);
}

}  // namespace

Segmentation segment_gpu_slabs(const io::Volume& volume, const Settings& s, Runtime& rt, std::size_t budget_bytes) {
  Segmentation out;
  StageClock clock(out.stage_seconds);
  const auto& d = volume.dims;
  const std::size_t n = d.voxels();
  if (n > std::size_t(0xffffffffu))
    throw Error("segment-pnm: volumes over 2^32 voxels are not supported out of core yet (not every stage of it "
                "addresses voxels with 64-bit indices)");
  const Spacing spacing = spacing_of(volume);
  rt.bind_thread();
  SlabDevice device(rt, d, budget_bytes);

  clock.start("denoise");
  HostVolume<float> filtered;
  if (s.denoise != "none")
    device.run_stage("denoise", [&] { filtered = denoise_slabs(device, volume.values.data(), d, s); });
  const float* values = filtered.empty() ? volume.values.data() : filtered.data();

  clock.start("binarize");
  HostVolume<std::uint8_t> mask(n);
  const auto mask_view = volume_view(mask.data(), d);
  device.run_stage("binarize", [&] {
    const SlabPlan value_slabs = device.plan(4 + 1, 0);
    out.threshold = s.otsu ? otsu_threshold_slabs(device, values, value_slabs) : s.threshold;
    device.pipelined(
        value_slabs,
        [&](SlabLane& lane, SlabRange r) {
          const auto v = lane.upload<float>(values, r, "segment-pnm volume slab");
          const auto m = lane.allocate<std::uint8_t>(r, "segment-pnm mask slab");
          threshold_gpu(v, m, out.threshold, s.pore_is_dark, lane.stream());
          return m;
        },
        [&](SlabLane& lane, SlabRange r, const VolumeView<std::uint8_t>& m) {
          lane.download<std::uint8_t>(mask.data(), m, r);
        });
  });
  filtered = HostVolume<float>();
  out.porosity_binarized = double(count_equal_cpu(mask_view, 1)) / double(n);

  clock.start("fill_holes");
  // The mask changes only once a fill's GPU work is done, so a retry starts from the right mask.
  if (s.remove_floating_solid)
    device.run_stage("fill_holes",
                     [&] { out.floating_solid_voxels = fill_enclosed_slabs(device, mask_view, 0, s.connectivity); });
  if (s.fill_closed_pores)
    device.run_stage("fill_holes",
                     [&] { out.closed_pore_voxels = fill_enclosed_slabs(device, mask_view, 1, s.connectivity); });
  out.porosity = double(count_equal_cpu(mask_view, 1)) / double(n);

  clock.start("distance");
  HostVolume<float> distance(n);
  device.run_stage("distance",
                   [&] { distance_transform_slabs(device, mask_view, volume_view(distance.data(), d), spacing); });

  clock.start("markers");
  // Smoothed with the Gaussian's halo around the slices the peak test reads (sigma 0: the map).
  HostVolume<float> smoothed;
  if (s.sigma > 0) smoothed = HostVolume<float>(n);
  const float* flooded = s.sigma > 0 ? smoothed.data() : distance.data();
  const GaussianSigma sigma = smoothing_sigma(spacing, s.sigma);
  const int peak_reach = peak_halo(spacing, s.r_max), blur_reach = s.sigma > 0 ? gaussian_halo(sigma.z) : 0;
  std::vector<std::uint64_t> peaks;
  struct SlabPeaks {
    VolumeView<float> smoothed;  // holds the slab
    std::vector<std::uint64_t> peaks;
  };
  device.run_stage("markers", [&] {
    peaks.clear();
    device.pipelined(
        device.plan(4 + 4 + 4 + 1 + 1 + 4, peak_reach + blur_reach),
        [&](SlabLane& lane, SlabRange r) {
          const SlabRange tested = with_halo(r, peak_reach, d.nz);
          const auto m = lane.upload<std::uint8_t>(mask.data(), tested, "segment-pnm mask slab");
          auto smooth = lane.upload<float>(distance.data(), s.sigma > 0 ? with_halo(tested, blur_reach, d.nz) : tested,
                                           "segment-pnm distance slab");
          if (s.sigma > 0) {
            const auto blurred = lane.allocate<float>(tested, "segment-pnm smoothed distance slab");
            gaussian_filter_gpu(smooth, blurred, sigma, lane.scratch(), lane.stream());
            smooth = blurred;
          }
          return SlabPeaks{smooth, find_peaks_gpu(m, smooth, spacing, s.r_max, r.begin, r.end, lane.scratch(), lane.stream())};
        },
        [&](SlabLane& lane, SlabRange r, const SlabPeaks& slab) {
          if (s.sigma > 0) lane.download<float>(smoothed.data(), slab.smoothed, r);
          peaks.insert(peaks.end(), slab.peaks.begin(), slab.peaks.end());
        });
  });
  const auto flooded_view = volume_view(flooded, d);
  out.markers = select_markers(peaks, flooded_view, spacing, s.markers);

  clock.start("watershed");
  HostVolume<std::uint32_t> markers(n);
  place_markers_cpu(out.markers.voxels, out.markers.labels, volume_view(markers.data(), d));
  out.labels = HostVolume<std::uint32_t>(n);
  device.run_stage("watershed", [&] {
    out.watershed_slab_runs = watershed_slabs(device, mask_view, flooded_view,
                                              volume_view<const std::uint32_t>(markers.data(), d),
                                              volume_view(out.labels.data(), d));
  });
  out.regions = out.markers.count;
  out.markers.voxels = {};
  out.markers.labels = {};

  clock.start("network");
  // Labels and distance with one halo slice, region and throat records and their sort.
  device.run_stage("network", [&] {
    bool first = true;
    device.pipelined(
        device.plan(4 + 4 + 48, 1),
        [&](SlabLane& lane, SlabRange r) {
          const SlabRange held = with_halo(r, 1, d.nz);
          const auto l = lane.upload<std::uint32_t>(out.labels.data(), held, "segment-pnm labels slab");
          const auto dist = lane.upload<float>(distance.data(), held, "segment-pnm distance slab");
          return region_stats_gpu(l, dist, out.regions, r.begin, r.end, Connectivity::c6, lane.scratch(), lane.stream());
        },
        [&](SlabLane&, SlabRange, RegionStats& part) {
          if (first)
            out.stats = std::move(part);
          else
            merge_region_stats(out.stats, part);
          first = false;
        });
  });
  out.slab_budget_bytes = budget_bytes;
  out.slab_retries = device.retries();

  if (s.write_intermediates) {
    if (smoothed.empty()) smoothed = copy_of(distance);
    out.intermediates = {std::move(mask), std::move(distance), std::move(smoothed), std::move(markers)};
  }
  return out;
}

}  // namespace gp::pnm
