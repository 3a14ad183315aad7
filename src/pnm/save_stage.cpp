#include "pnm/save_stage.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "pnm/network.hpp"
#include "pnm/network_writers.hpp"

namespace gp::pnm {
namespace {

namespace fs = std::filesystem;

// Lengths are in mm when the config gave the voxel size, else in the unit the file states (mm for
// DICOM and MetaImage, NRRD's space units), else in voxels.
std::string length_unit(const io::Volume& v, const Settings& s) {
  return s.read.spacing_given ? "mm" : !v.length_unit.empty() ? v.length_unit : "voxel";
}

double round6(double v) { return std::round(v * 1e6) / 1e6; }

nlohmann::ordered_json run_summary(const PnmItem& item, const PoreNetwork& network) {
  const Segmentation& seg = item.segmentation;
  const auto& v = item.volume;
  nlohmann::ordered_json stages = nlohmann::ordered_json::object();
  double after_load = 0;
  for (const auto& [name, seconds] : seg.stage_seconds) {
    stages[name] = round6(seconds);
    after_load += seconds;
  }
  nlohmann::ordered_json j;
  j["input"] = item.name;
  j["source"] = v.description;
  j["dims"] = {v.dims.nx, v.dims.ny, v.dims.nz};
  j["spacing"] = {v.spacing.x, v.spacing.y, v.spacing.z};
  j["origin"] = v.origin;
  j["device"] = item.device;
  j["threshold"] = seg.threshold;
  j["porosity_binarized"] = round6(seg.porosity_binarized);
  j["porosity"] = round6(seg.porosity);
  j["closed_pore_voxels_filled"] = seg.closed_pore_voxels;
  j["floating_solid_voxels_removed"] = seg.floating_solid_voxels;
  j["markers"] = {{"peak_clusters", seg.markers.peaks},
                  {"saddles_removed", seg.markers.saddles_removed},
                  {"nearby_removed", seg.markers.nearby_removed},
                  {"markers", seg.markers.count}};
  j["regions"] = seg.regions;
  j["throats"] = network.throat_count;
  if (seg.watershed_passes) j["watershed_gpu_passes"] = seg.watershed_passes;
  if (seg.slab_budget_bytes)
    j["out_of_core"] = {{"slab_budget_bytes", seg.slab_budget_bytes},
                        {"slab_retries", seg.slab_retries},
                        {"watershed_slab_runs", seg.watershed_slab_runs}};
  j["seconds_load"] = round6(item.load_seconds);
  j["seconds_after_load"] = round6(after_load);
  j["stage_seconds"] = stages;
  j["network"] = network_summary(network, seg.porosity);
  return j;
}

}  // namespace

void save_stage(PnmItem& item, const Settings& s) {
  const io::Volume& v = item.volume;
  const Segmentation& seg = item.segmentation;
  NetworkGeometry geometry;
  geometry.nx = v.dims.nx, geometry.ny = v.dims.ny, geometry.nz = v.dims.nz;
  geometry.spacing = spacing_of(v);
  geometry.origin = v.origin;
  geometry.length_unit = length_unit(v, s);
  const PoreNetwork network = build_network(seg.stats, geometry);

  const fs::path dir(item.output_folder);
  auto path = [&](const char* name) {
    const std::string p = (dir / name).string();
    item.written.push_back(p);
    return p;
  };
  if (s.write_csv) {
    write_pores_csv(path("pores.csv"), network);
    write_throats_csv(path("throats.csv"), network);
  }
  if (s.write_json) write_network_json(path("network.json"), network);
  if (s.write_vtp) write_network_vtp(path("network.vtp"), network);
  if (s.write_statoil) {
    const auto files = write_statoil(dir.string(), s.statoil_prefix, network,
                                     metres_per_unit(geometry.length_unit).value_or(1.0));
    item.written.insert(item.written.end(), files.begin(), files.end());
  }
  if (s.write_labels)
    write_labels_nrrd(path("labels.nrrd"), seg.labels.data(), {v.dims, v.spacing, v.origin, v.lps, v.direction});
  if (s.write_quicklook) write_quicklook_png(path("quicklook.png"), v, seg.labels.data());
  if (s.write_intermediates) {
    const Intermediates& kept = seg.intermediates;
    const LabelVolumeInfo info{v.dims, v.spacing, v.origin, v.lps, v.direction};
    write_volume_nrrd(path("mask.nrrd"), kept.mask.data(), nrrd_type<std::uint8_t>(), info,
                      "gpuproc segment-pnm mask after filling: 1 = pore, 0 = solid");
    write_volume_nrrd(path("distance.nrrd"), kept.distance.data(), nrrd_type<float>(), info,
                      "gpuproc segment-pnm distance from each pore voxel to the solid, " + geometry.length_unit);
    write_volume_nrrd(path("distance_smoothed.nrrd"), kept.smoothed.data(), nrrd_type<float>(), info,
                      "gpuproc segment-pnm smoothed distance map (its negation is flooded), " + geometry.length_unit);
    write_volume_nrrd(path("markers.nrrd"), kept.markers.data(), nrrd_type<std::uint32_t>(), info,
                      "gpuproc segment-pnm watershed markers: 1..N, 0 elsewhere");
  }

  item.summary = run_summary(item, network);
  const std::string summary_path = path("summary.json");
  write_atomically(summary_path, [&](const std::string& temp) {
    std::ofstream out(temp);
    out << item.summary.dump(2) << "\n";
    if (!out) throw ItemError(summary_path, "write", "cannot write the summary");
  });
}

}  // namespace gp::pnm
