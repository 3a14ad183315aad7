#include "pnm/save_stage.hpp"

#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/trace.hpp"
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
  if (seg.slab_budget_bytes) {
    j["out_of_core"] = {{"slab_budget_bytes", seg.slab_budget_bytes},
                        {"gpus", seg.slab_gpus},
                        {"slab_retries", seg.slab_retries},
                        {"watershed_slab_runs", seg.watershed_slab_runs},
                        {"input_streamed", v.values.empty()}};
    nlohmann::ordered_json rss = nlohmann::ordered_json::object();
    for (const auto& [stage, bytes] : seg.stage_peak_rss_bytes) rss[stage] = bytes;
    j["out_of_core"]["peak_rss_bytes_after_stage"] = rss;
    if (item.scratch)
      j["out_of_core"]["scratch"] = {{"folder", item.scratch->folder()},
                                     {"bytes_written", item.scratch->bytes_written()},
                                     {"bytes_read", item.scratch->bytes_read()},
                                     {"peak_bytes", item.scratch->peak_bytes_allocated()}};
  }
  j["seconds_load"] = round6(item.load_seconds);
  j["seconds_after_load"] = round6(after_load);
  j["stage_seconds"] = stages;
  j["network"] = network_summary(network, seg.porosity);
  return j;
}

// Files written by one task (one span in the trace), e.g. the four Statoil files.
struct OutputTask {
  const char* span;
  std::vector<std::string> files;
  std::function<void(const std::vector<std::string>& files)> write;
};

// Runs the tasks at once, each on a thread of its own (the first on this one), and rethrows the
// first failure in task order once all have ended (each file is written atomically: the others
// stay complete).
void run_output_tasks(const std::vector<OutputTask>& tasks) {
  std::vector<std::exception_ptr> errors(tasks.size());
  auto run = [&](std::size_t i) {
    try {
      ScopedStage span(tasks[i].span);
      tasks[i].write(tasks[i].files);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < tasks.size(); ++i)
    threads.emplace_back([&, i] {
      Trace::name_thread("save writer");
      run(i);
    });
  if (!tasks.empty()) run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
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
  const PoreNetwork network = [&] {
    ScopedStage span("save.build_network");
    return build_network(seg.stats, geometry);
  }();

  // The files are independent: each is written by a task of its own, all at once (the large ones
  // spread their own work over the cores as well). Each task's files, in the documented order.
  const fs::path dir(item.output_folder);
  auto in_dir = [&](const char* name) { return (dir / name).string(); };
  const LabelVolumeInfo info{v.dims, v.spacing, v.origin, v.lps, v.direction};
  VolumeEncoding encoding;
  encoding.gzip = s.labels_gzip;
  encoding.gzip_level = s.labels_gzip_level;
  std::vector<OutputTask> tasks;
  auto add = [&](const char* span, std::vector<std::string> files, std::function<void(const std::vector<std::string>&)> write) {
    tasks.push_back({span, std::move(files), std::move(write)});
  };
  if (s.write_csv) {
    add("save.pores.csv", {in_dir("pores.csv")}, [&](const auto& f) { write_pores_csv(f[0], network); });
    add("save.throats.csv", {in_dir("throats.csv")}, [&](const auto& f) { write_throats_csv(f[0], network); });
  }
  if (s.write_json) add("save.network.json", {in_dir("network.json")}, [&](const auto& f) { write_network_json(f[0], network); });
  if (s.write_vtp) add("save.network.vtp", {in_dir("network.vtp")}, [&](const auto& f) { write_network_vtp(f[0], network); });
  if (s.write_statoil) {
    std::vector<std::string> files;
    for (const char* part : {"_node1.dat", "_node2.dat", "_link1.dat", "_link2.dat"})
      files.push_back(output_path(dir.string(), s.statoil_prefix + part, "statoil prefix"));  // as write_statoil names them
    add("save.statoil", files, [&](const auto&) {
      write_statoil(dir.string(), s.statoil_prefix, network, metres_per_unit(geometry.length_unit).value_or(1.0));
    });
  }
  // With both, the labels' mid slices for the quick look come from labels.nrrd's pass over the
  // labels (a scan's labels are gigabytes, often in compressed scratch): one pass instead of two.
  const bool labels_for_quicklook = s.write_labels && s.write_quicklook;
  MidSlices<std::uint32_t> label_planes;
  std::promise<void> label_planes_promise;
  std::future<void> label_planes_ready = label_planes_promise.get_future();  // the quick look waits on it
  if (s.write_labels)
    add("save.labels.nrrd", {in_dir("labels.nrrd")}, [&](const auto& f) {
      try {
        write_labels_nrrd(f[0], seg.labels, info, seg.regions, encoding,
                          s.labels_uint32 ? LabelsType::uint32 : LabelsType::smallest,
                          labels_for_quicklook ? &label_planes : nullptr);
        label_planes_promise.set_value();
      } catch (...) {
        label_planes_promise.set_exception(std::current_exception());
        throw;
      }
    });
  if (s.write_quicklook)
    add("save.quicklook.png", {in_dir("quicklook.png")}, [&](const auto& f) {
      const auto grey = v.values.empty() ? VolumeStore<float>::from_stream(*item.stream)
                                         : VolumeStore<float>::borrow(v.values.data(), v.dims);
      if (!labels_for_quicklook) return write_quicklook_png(f[0], grey, seg.labels, v.spacing);
      const MidSlices<float> grey_planes = [&] {  // while labels.nrrd reads the labels
        ScopedStage span("save.quicklook.read");
        return MidSlices<float>::gather(grey);
      }();
      try {
        label_planes_ready.get();
      } catch (...) {  // labels.nrrd failed (its error is reported): the quick look reads the labels itself
        return write_quicklook_png(f[0], grey_planes, MidSlices<std::uint32_t>::gather(seg.labels), v.spacing);
      }
      write_quicklook_png(f[0], grey_planes, label_planes, v.spacing);
    });
  if (s.write_intermediates) {
    const Intermediates& kept = seg.intermediates;
    add("save.mask.nrrd", {in_dir("mask.nrrd")}, [&](const auto& f) {
      write_volume_nrrd(f[0], kept.mask, info, "gpuproc segment-pnm mask after filling: 1 = pore, 0 = solid", encoding);
    });
    add("save.distance.nrrd", {in_dir("distance.nrrd")}, [&](const auto& f) {
      write_volume_nrrd(f[0], kept.distance, info,
                        "gpuproc segment-pnm distance from each pore voxel to the solid, " + geometry.length_unit, encoding);
    });
    add("save.distance_smoothed.nrrd", {in_dir("distance_smoothed.nrrd")}, [&](const auto& f) {
      write_volume_nrrd(f[0], kept.smoothed.empty() ? kept.distance : kept.smoothed, info,
                        "gpuproc segment-pnm smoothed distance map (its negation is flooded), " + geometry.length_unit,
                        encoding);
    });
    add("save.markers.nrrd", {in_dir("markers.nrrd")}, [&](const auto& f) {
      write_volume_nrrd(f[0], kept.markers, info, "gpuproc segment-pnm watershed markers: 1..N, 0 elsewhere", encoding);
    });
  }
  add("save.summary", {}, [&](const auto&) { item.summary = run_summary(item, network); });
  for (const OutputTask& task : tasks) item.written.insert(item.written.end(), task.files.begin(), task.files.end());
  run_output_tasks(tasks);

  ScopedStage span("save.summary.json");
  const std::string summary_path = in_dir("summary.json");
  item.written.push_back(summary_path);
  write_atomically(summary_path, [&](const std::string& temp) {
    std::ofstream out(temp);
    out << item.summary.dump(2) << "\n";
    if (!out) throw ItemError(summary_path, "write", "cannot write the summary");
  });
}

std::uint64_t least_output_bytes(const Settings& s, std::uint64_t voxels) {
  double per_voxel = s.labels_gzip ? 0.1 : (s.labels_uint32 ? 4 : 1);
  if (s.write_intermediates) per_voxel += s.labels_gzip ? 0.3 : 1 + 4 + (s.sigma > 0 ? 4 : 0) + 1;
  return std::uint64_t(per_voxel * double(voxels));
}

}  // namespace gp::pnm
