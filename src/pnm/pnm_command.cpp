#include "pnm/pnm_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <mutex>

#include "core/outputs.hpp"
#include "core/parallel_for.hpp"
#include "io/volume_reader.hpp"
#include "pnm/pnm_item.hpp"
#include "pnm/pnm_settings.hpp"
#include "pnm/save_stage.hpp"

namespace gp::pnm {
namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The volume's output folder: output.dir / output.name expanded for this input.
std::string output_folder(const Settings& s, const InputItem& item) {
  auto vars = naming_variables(item);
  const fs::path in = fs::path(item.path).lexically_normal();
  if (fs::is_directory(in)) vars["stem"] = in.filename().string();  // a series folder: "scan.v2", not "scan"
  return s.naming.path(item, expand_template(s.name_template, vars), "/output/name");
}

class PnmCommand final : public BatchCommand {
 public:
  const config::Schema& schema() const override { return pnm::schema(); }
  std::string summary() const override {
    return "micro-CT volume (DICOM, TIFF, NRRD, MetaImage, raw) -> pore regions (snow2 watershed) -> pore network files";
  }
  void check_config(const config::json& config) const override { read_settings(config); }

  InputSpec input_spec(const config::json& config) const override {
    InputSpec spec;
    spec.patterns = config.at("inputs").get<std::vector<std::string>>();
    spec.extensions = {".dcm", ".dicom", ".ima", ".tif", ".tiff", ".raw", ".vol", ".bin", ".nrrd", ".nhdr", ".mhd", ".mha"};
    spec.folders_are_items = !config.at("input").at("one_volume").get<bool>();
    return spec;
  }

  std::vector<std::vector<PlannedFile>> planned_outputs(const config::json& config,
                                                        const std::vector<InputItem>& items) const override {
    const Settings s = read_settings(config);
    std::vector<std::vector<PlannedFile>> plans(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      // one_volume: the files after the first are slices of its volume, which it names.
      if (s.one_volume && i > 0) continue;
      const std::string folder = output_folder(s, items[i]);
      for (const auto& f : output_files(s)) plans[i].push_back({(fs::path(folder) / f).string(), "/output/name"});
    }
    return plans;
  }

  BatchOutcome run(BatchContext& ctx) override;
};

// In-core when the volume's working set fits in the GPU memory available, else in Z-slabs. An
// in-core run that still runs out (the estimate was low) retries in slabs within half the memory,
// and slabs that do not fit run on the CPU: all three give the same labels.
void segment_on_gpu(PnmItem& item, const Settings& s, Runtime& rt, Progress& progress) {
  const auto& volume = item.volume;
  std::size_t available = rt.device_bytes_available();
  // An eighth kept back for what the per-voxel estimates leave out (CUB's temporary storage,
  // per-region tables).
  auto budget = [](std::size_t bytes) { return bytes - bytes / 8; };
  try {
    if (in_core_device_bytes(volume.dims) <= budget(available)) {
      try {
        item.device = "gpu";
        item.segmentation = segment_gpu(volume, s, rt);
        return;
      } catch (const GpuOutOfMemory& e) {
        rt.note_oom_retry();
        progress.message("warning", fmt::format("{}: ran out of GPU memory in one piece ({}); retrying in slabs",
                                                item.name, e.what()));
        available = rt.device_bytes_available() / 2;
      }
    }
    item.device = "gpu (out-of-core slabs)";
    item.segmentation = segment_gpu_slabs(volume, s, rt, budget(available));
  } catch (const GpuOutOfMemory& e) {
    rt.note_oom_retry();
    rt.trim();
    progress.message("warning", fmt::format("{}: does not fit in GPU memory even in slabs ({}); running on the CPU",
                                            item.name, e.what()));
    item.device = "cpu (GPU out of memory)";
    item.segmentation = segment_cpu(volume, s);
  }
}

BatchOutcome PnmCommand::run(BatchContext& ctx) {
  const std::vector<InputItem>& inputs = ctx.items;
  const Settings s = read_settings(ctx.config);
  Runtime& rt = ctx.runtime;  // the first device's; every device of a --device list is a GPU like it
  // one_volume: the whole (shard's) input list is a single volume, named after its first file.
  const std::size_t volumes = s.one_volume ? (inputs.empty() ? 0 : 1) : inputs.size();

  PipelineOptions po;
  // One volume on each GPU at a time (it may need most of its memory); the next one loads
  // meanwhile, and the previous one's files are written. A volume is not split over GPUs: with
  // several devices, volumes (items) are spread over them, each a lane of its own.
  const int lanes = ctx.devices();  // 1 on the CPU path
  po.load_threads = lanes;
  po.compute_workers = lanes;
  po.save_threads = lanes;
  po.max_in_flight = 3 * lanes;
  po.stop_on_error = s.stop_on_error;

  std::mutex outcome_mutex;
  BatchOutcome outcome;
  outcome.work_unit_name = "megavoxels";
  nlohmann::ordered_json per_volume = nlohmann::ordered_json::array();

  Pipeline<PnmItem>::Stages stages;
  stages.make = [&](std::size_t i) {
    auto item = std::make_unique<PnmItem>();
    item->name = inputs[i].path;
    item->paths.clear();
    if (s.one_volume)
      for (const InputItem& slice : inputs) item->paths.push_back(slice.path);
    else
      item->paths.push_back(inputs[i].path);
    item->output_folder = output_folder(s, inputs[i]);
    return item;
  };
  stages.load = [&](PnmItem& item) {
    ScopedStage span("load");
    const auto t = std::chrono::steady_clock::now();
    item.volume = io::read_volume(item.paths, s.read);
    item.load_seconds = seconds_since(t);
  };
  stages.compute_init = [&](int w) { ctx.runtime_for_worker(w).bind_thread(); };
  stages.compute = [&](PnmItem& item, int w) {
    const auto t = std::chrono::steady_clock::now();
    ctx.count_items(w, 1);
    if (rt.gpu()) {
      segment_on_gpu(item, s, ctx.runtime_for_worker(w), ctx.progress);
    } else {
      item.device = "cpu";
      item.segmentation = segment_cpu(item.volume, s);
    }
    item.compute_seconds = seconds_since(t);
  };
  stages.save = [&](PnmItem& item) {
    ScopedStage span("save");
    const auto t = std::chrono::steady_clock::now();
    save_stage(item, s);
    item.save_seconds = seconds_since(t);
  };
  stages.done = [&](const PnmItem& item) {
    if (!item.failed) {
      std::lock_guard<std::mutex> lock(outcome_mutex);
      outcome.work_units += double(item.volume.dims.voxels()) / 1e6;
      per_volume.push_back(item.summary);
    }
    ctx.finish_item(item, item.written);
    // one_volume: the other files were slices of this volume; they end as it did.
    if (s.one_volume)
      for (std::size_t k = 1; k < inputs.size(); ++k)
        ctx.finish_item(k, ItemResult{!item.failed, item.failure.cancelled, {}, {}, item.failure.stage, item.failure.message});
  };

  Pipeline<PnmItem> pipeline(po, stages);
  outcome.stopped_on_error = pipeline.run(volumes).cancelled;
  outcome.extra = nlohmann::ordered_json::object();
  if (per_volume.size() == 1) {
    // One volume (the usual case): its figures at the top, for scripts and benchmarks.
    for (const char* key : {"seconds_after_load", "stage_seconds", "regions", "throats", "porosity", "device"})
      if (per_volume[0].contains(key)) outcome.extra[key] = per_volume[0][key];
  }
  outcome.extra["volumes"] = per_volume;
  return outcome;
}

}  // namespace

std::unique_ptr<BatchCommand> make_command() { return std::make_unique<PnmCommand>(); }

}  // namespace gp::pnm
