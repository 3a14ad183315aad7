#include "pnm/pnm_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>

#include "core/outputs.hpp"
#include "core/parallel_for.hpp"
#include "core/scratch_space.hpp"
#include "core/text.hpp"
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

class PnmCommand final : public SettingsCommand {
 public:
  PnmCommand()
      : SettingsCommand(pnm::schema(),
                        "micro-CT volume (DICOM, TIFF, NRRD, MetaImage, raw) -> pore regions (snow2 watershed) -> pore "
                        "network files",
                        {".dcm", ".dicom", ".ima", ".tif", ".tiff", ".raw", ".vol", ".bin", ".nrrd", ".nhdr", ".mhd", ".mha"},
                        read_settings) {}

  // A folder is one volume (a DICOM series or a TIFF stack), unless all inputs together are one.
  InputSpec input_spec(const config::json& config) const override {
    InputSpec spec = SettingsCommand::input_spec(config);
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

// Host memory the CPU path holds per voxel beside the values: mask, distance, smoothed distance,
// markers and labels (the components' and watershed's working arrays come and go).
constexpr std::uint64_t cpu_bytes_per_voxel = 1 + 4 + 4 + 4 + 4 + 4;

// Host memory the out-of-core path uses beside its volume stores (measured: 1.2 GB at 1024^3;
// 2048^3 foam also has 1.7 million regions, whose network records take about 3 GB once the mask is
// freed).
constexpr std::uint64_t slab_working_bytes = std::uint64_t(3) << 30;

// Labels that cannot fit the output disk are refused before any work (least_output_bytes). A disk
// that fills while writing anyway fails that file, nothing half-written.
void check_output_room(const PnmItem& item, const Settings& s, std::uint64_t voxels) {
  const std::uint64_t needed = least_output_bytes(s, voxels);
  const auto free = free_disk_bytes(item.output_folder);
  if (free && *free < needed)
    throw ItemError(item.name, "load",
                    fmt::format("the output folder {} has {} free; this volume's labels{} need at least {} "
                                "(output.labels_encoding {}); free some room or point output.dir at another disk",
                                item.output_folder, gib_text(*free), s.write_intermediates ? " and intermediates" : "",
                                gib_text(needed), s.labels_gzip ? "gzip" : "raw"));
}

// The volume's scratch folder (made on first use): run.scratch_dir, else a hidden folder of the
// job's output folder.
ScratchSpace& scratch_of(PnmItem& item, const Settings& s, const std::string& output_dir) {
  if (!item.scratch) {
    const bool chosen = !s.scratch_dir.empty();
    item.scratch = std::make_unique<ScratchSpace>(chosen ? s.scratch_dir : (fs::path(output_dir) / ".gpuproc" / "scratch").string(),
                                                  chosen ? "run.scratch_dir" : "run.scratch_dir (default under output.dir)");
  }
  return *item.scratch;
}

// In-core on the first GPU when the volume's working set fits in the GPU memory available (and its
// labels in the host budget), else in Z-slabs spread over all of `gpus`. An in-core run that still runs out (the estimate was low)
// retries in slabs within half the memory, and slabs that do not fit run on the CPU when the
// volume is in host memory: all three give the same labels. A volume streamed from its file (over
// the host budget) goes to the slabs directly.
void segment_on_gpu(PnmItem& item, const Settings& s, const std::vector<Runtime*>& gpus, Progress& progress,
                    HostMemoryBudget& host, const std::string& output_dir) {
  const auto& volume = item.volume;
  const bool loaded = !volume.values.empty();
  Runtime& rt = *gpus.front();
  std::size_t available = rt.device_bytes_available();
  // An eighth kept back for what the per-voxel estimates leave out (CUB's temporary storage,
  // per-region tables).
  auto budget = [](std::size_t bytes) { return bytes - bytes / 8; };
  const std::uint64_t labels_bytes = std::uint64_t(volume.dims.voxels()) * 4;
  try {
    // The kernels of one piece count voxels in 32 bits; larger volumes go in slabs.
    if (loaded && volume.dims.voxels() < (std::size_t(1) << 31) && in_core_device_bytes(volume.dims) <= budget(available) &&
        host.try_reserve(labels_bytes)) {
      item.labels_reservation = HostReservation(host, labels_bytes);  // held while the labels are
      try {
        item.device = "gpu";
        item.segmentation = segment_gpu(volume, s, rt);
        return;
      } catch (const GpuOutOfMemory& e) {
        rt.note_oom_retry();
        progress.message("warning", fmt::format("{}: ran out of GPU memory in one piece ({}); retrying in slabs",
                                                item.name, e.what()));
        available = rt.device_bytes_available() / 2;
        item.labels_reservation.reset();  // the slabs keep their labels in a store of their own
      }
    }
    for (Runtime* other : gpus) available = std::min(available, other->device_bytes_available());
    item.device = gpus.size() > 1 ? fmt::format("gpu (out-of-core slabs on {} GPUs)", gpus.size())
                                  : std::string("gpu (out-of-core slabs)");
    // The slab path's own host memory beside its stores (pinned staging, the EDT's row buffers,
    // the fill's chunks, the watershed's boundary slices, the peak list, CUDA's host side) stays
    // out of the stores' share, so the process keeps within the limit.
    const std::uint64_t working_bytes = std::min({slab_working_bytes, host.limit() / 4, host.available()});
    HostReservation working;
    if (host.try_reserve(working_bytes)) working = HostReservation(host, working_bytes);
    VolumeStorage storage{host, scratch_of(item, s, output_dir)};
    const auto input = loaded ? VolumeStore<float>::borrow(volume.values.data(), volume.dims)
                              : VolumeStore<float>::from_stream(*item.stream);
    item.segmentation = segment_gpu_slabs(volume, input, s, gpus, budget(available), storage,
                                          [&](const std::string& step) { progress.step(item.name, step); });
  } catch (const GpuOutOfMemory& e) {
    if (!loaded) throw;
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
  // meanwhile, and the previous one's files are written. With several devices, volumes (items)
  // are spread over them, each a lane of its own; a job of one volume has them all, its slabs
  // spread over them when it does not fit one GPU.
  const bool one_job_volume = volumes == 1 && ctx.devices() > 1;
  const int lanes = one_job_volume ? 1 : ctx.devices();  // 1 on the CPU path
  auto gpus_of_worker = [&](int w) {
    if (one_job_volume) return ctx.runtimes;
    return std::vector<Runtime*>{&ctx.runtime_for_worker(w)};
  };
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
  const std::string output_dir = config::value_at<std::string>(ctx.config, "/output/dir");
  stages.load = [&](PnmItem& item) {
    ScopedStage span("load");
    const auto t = std::chrono::steady_clock::now();
    item.stream = io::open_volume(item.paths, s.read);  // headers read and size limits checked
    const io::Volume& header = item.stream->header();
    const std::uint64_t voxels = header.dims.voxels(), values_bytes = voxels * sizeof(float);
    check_output_room(item, s, voxels);
    const std::uint64_t cpu_bytes = voxels * (sizeof(float) + cpu_bytes_per_voxel);
    if (!rt.gpu() && cpu_bytes > ctx.host_memory.limit())
      throw ItemError(item.name, "load", fmt::format("the CPU path holds the whole volume ({} voxels, about {} with its "
                                                     "stages' volumes), over --host-memory-limit {}; run it on a GPU "
                                                     "(out of core) or raise the limit",
                                                     voxels, gib_text(cpu_bytes), gib_text(ctx.host_memory.limit())));
    // Loaded whole (read on all cores, the fastest) when the values fit the host budget beside
    // the labels (what the in-core path holds), else read a slab at a time from the file by the
    // out-of-core path, so the budget goes to the stages' volumes.
    if (!rt.gpu() || (ctx.host_memory.available() >= values_bytes + voxels * 4 &&
                      ctx.host_memory.try_reserve(values_bytes))) {
      if (rt.gpu()) item.values_reservation = HostReservation(ctx.host_memory, values_bytes);
      item.volume = item.stream->read_all();
    } else {
      item.volume = header;
      ctx.progress.message("info", fmt::format("{}: {} of values and {} of labels over --host-memory-limit {}: reading "
                                               "it slab by slab",
                                               item.name, gib_text(values_bytes), gib_text(voxels * 4),
                                               gib_text(ctx.host_memory.limit())));
    }
    item.load_seconds = seconds_since(t);
  };
  stages.compute_init = [&](int w) { ctx.runtime_for_worker(w).bind_thread(); };
  stages.compute = [&](PnmItem& item, int w) {
    const auto t = std::chrono::steady_clock::now();
    ctx.count_items(w, 1);
    if (rt.gpu()) {
      segment_on_gpu(item, s, gpus_of_worker(w), ctx.progress, ctx.host_memory, output_dir);
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
