#include "pnm/segment_pipeline.hpp"

#include "pnm/stage_clock.hpp"

namespace gp::pnm {

//   denoise -> binarize -> fill_holes -> distance -> markers -> watershed -> network
Segmentation run_segmentation(const Settings& s, SegmentBackend& b, std::uint64_t voxels) {
  Segmentation out;
  StageClock clock(out.stage_seconds, b.tracks_rss() ? &out.stage_peak_rss_bytes : nullptr);
  const double n = double(voxels);
  auto stage = [&](const char* name, const std::function<void()>& body) {
    clock.start(name);
    b.run(name, body);
  };

  if (b.moves_volumes()) stage("upload", [&] { b.upload(); });
  stage("denoise", [&] {
    if (s.denoise != "none") b.denoise();
  });
  std::uint64_t pore_voxels = 0;
  stage("binarize", [&] {
    out.threshold = s.otsu ? b.otsu_threshold() : s.threshold;
    pore_voxels = b.binarize(out.threshold);
  });
  out.porosity_binarized = double(pore_voxels) / n;
  stage("fill_holes", [&] {
    if (s.remove_floating_solid) b.fill_enclosed(0, out.floating_solid_voxels);
  });
  if (s.fill_closed_pores) b.run("fill_holes", [&] { b.fill_enclosed(1, out.closed_pore_voxels); });
  // Filling enclosed solid adds pore voxels; filling closed pores takes them away.
  out.porosity = double(pore_voxels + out.floating_solid_voxels - out.closed_pore_voxels) / n;
  stage("distance", [&] { b.distance(); });
  stage("markers", [&] { out.markers = b.markers(); });
  stage("watershed", [&] { b.watershed(out.markers); });
  out.regions = out.markers.count;
  out.markers.voxels = {};  // counts only from here
  out.markers.labels = {};
  stage("network", [&] { out.stats = b.network(out.regions); });
  if (b.moves_volumes()) clock.start("download");
  b.finish(out);
  return out;
}

}  // namespace gp::pnm
