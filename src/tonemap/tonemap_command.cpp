#include "tonemap/tonemap_command.hpp"

#include "gpuproc/build_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <thread>

#include "tonemap/exr_decode_step.hpp"
#include "tonemap/gpu_admission.hpp"
#include "tonemap/stages.hpp"

namespace gp::tonemap {
namespace {

class TonemapCommand final : public SettingsCommand {
 public:
  TonemapCommand()
      : SettingsCommand(tonemap::schema(), "OpenEXR/HDR -> tonemapped 8/16-bit images with MIP chains and thumbnails",
                        {".exr", ".hdr", ".tif", ".tiff", ".pfm"}, read_settings) {}

  std::vector<std::vector<PlannedFile>> planned_outputs(const config::json& config,
                                                        const std::vector<InputItem>& items) const override {
    const Settings s = read_settings(config);
    std::vector<std::vector<PlannedFile>> plans;
    for (const InputItem& item : items) plans.push_back(plan_outputs(s, item, std::nullopt).all());
    return plans;
  }

  BatchOutcome run(BatchContext& ctx) override;
};

unsigned hardware_threads() { return std::max(2u, std::thread::hardware_concurrency()); }

// After a failure part-way: the working memory (whatever releasing it says: the failure is the
// news) and the admission slot.
void release_after_error(ComputeBackend& backend, GpuAdmission& admission) {
  try {
    backend.release();
  } catch (...) {
  }
  admission.release();
}

// Runs compute_stage under the GPU admission limit, retrying with a smaller batch on out-of-memory.
void compute_with_retry(TonemapItem& item, const Settings& s, Runtime& rt, HostPool& memory, ComputeBackend& backend,
                        GpuAdmission& admission, Progress& progress) {
  bool retried_alone = false;
  for (;;) {
    admission.acquire();
    try {
      compute_stage(item, s, memory, backend);  // (releases what it allocated)
      admission.release();
      return;
    } catch (const GpuOutOfMemory& e) {
      backend.release();
      rt.note_oom_retry();
      if (admission.shrink()) {
        progress.message("warning", fmt::format("{}: out of GPU memory; batch reduced to {}, retrying", item.name,
                                                admission.limit()));
        admission.release();
        rt.trim();
        continue;
      }
      if (!retried_alone) {
        // Let the images admitted at the larger batch finish, then retry: at limit 1 the next
        // acquire runs alone.
        admission.release();
        admission.wait_idle();
        rt.trim();
        retried_alone = true;
        continue;
      }
      admission.release();
      throw ItemError(item.name, "compute", std::string("does not fit in GPU memory even alone: ") + e.what());
    } catch (...) {
      release_after_error(backend, admission);
      throw;
    }
  }
}

// The report's name for the block decoder that decodes an item on this runtime.
const char* block_decoder_name(const Runtime& rt) { return rt.gpu() ? "gpu" : "cpu-blocks"; }

// Items whose EXRs our block decoder takes (load_stage), decoded together (decode_exr_items: one
// launch for all of them), then computed one after another on the worker's
// stream. The batch holds one admission slot; out of memory, the items not yet computed go one at
// a time through compute_with_retry. Returns one error per item (null: done).
std::vector<std::exception_ptr> compute_batch(const std::vector<TonemapItem*>& items, const Settings& s, Runtime& rt,
                                              HostPool& memory, ComputeBackend& backend, GpuAdmission& admission,
                                              Progress& progress) {
  std::vector<std::exception_ptr> errors(items.size());
  std::vector<bool> done(items.size(), false);
  auto run_alone = [&](std::size_t k) {
    try {
      compute_with_retry(*items[k], s, rt, memory, backend, admission, progress);
    } catch (...) {
      errors[k] = std::current_exception();
    }
    done[k] = true;
  };
  std::vector<TonemapItem*> batch;
  std::vector<std::size_t> batch_index;
  for (std::size_t k = 0; k < items.size(); ++k) {
    if (items[k]->exr_blocks) {
      items[k]->details.push_back({"decoder", block_decoder_name(rt)});
      batch.push_back(items[k]);
      batch_index.push_back(k);
    } else {
      run_alone(k);
    }
  }
  if (batch.size() == 1) run_alone(batch_index[0]);
  if (batch.size() > 1) {
    admission.acquire();
    try {
      const DecodedSources decoded = decode_exr_items(batch, backend);
      for (std::size_t j = 0; j < batch.size(); ++j) {
        const std::size_t k = batch_index[j];
        if (!decoded.errors[j]) {
          try {
            compute_stage(*batch[j], s, memory, backend, decoded.pixels[j]);
          } catch (const GpuOutOfMemory&) {
            throw;
          } catch (...) {
            errors[k] = std::current_exception();
          }
        } else {
          errors[k] = decoded.errors[j];
        }
        done[k] = true;
      }
      backend.release();
      admission.release();
    } catch (const GpuOutOfMemory&) {
      backend.release();
      admission.release();
      rt.note_oom_retry();
      rt.trim();
      progress.message("warning", fmt::format("out of GPU memory decoding {} EXR files together; the rest one at a time",
                                              batch.size()));
      for (std::size_t k : batch_index)
        if (!done[k]) run_alone(k);
    } catch (...) {
      release_after_error(backend, admission);
      throw;
    }
  }
  for (TonemapItem* item : items) item->file.reset();
  return errors;
}

BatchOutcome TonemapCommand::run(BatchContext& ctx) {
  const std::vector<InputItem>& inputs = ctx.items;
  const Settings s = read_settings(ctx.config);
  Runtime& rt = ctx.runtime;  // the first device's; every device of a --device list is a GPU like it
  const unsigned hw = hardware_threads();
  PipelineOptions po;
  // Decoding is the heaviest CPU work; saving too unless the GPU already compressed the PNGs.
  // Pools are sized on the runtime's guess, so loads start before the driver has answered.
  const bool gpu_expected = rt.gpu_expected();
  const bool gpu_compresses = gpu_expected && s.format == "png" && s.write.png_compression == 1;
  // Each file decodes on several threads: a few files at a time finish sooner than many at once
  // and leave no long tail of single files.
  po.load_threads = s.load_threads ? s.load_threads : int(std::max(2u, hw / 4));
  const int threads_per_file = s.decode_threads_per_file ? s.decode_threads_per_file : std::max(1, int(hw) / po.load_threads);
  po.save_threads = s.save_threads ? s.save_threads : int(gpu_compresses ? std::max(2u, hw / 4) : hw);
  // The CPU path parallelises inside each step, so two workers are enough to overlap them. On
  // the GPU run.batch workers per device; with several devices their workers share the queue.
  po.compute_workers = gpu_expected ? s.batch * ctx.devices() : 2;
  // Our block decoder (run.exr_decode) takes a worker's loaded files together, up to
  // run.exr_decode_batch: one launch for many files.
  const bool block_batches = gpu_expected && s.exr_decode != "cpu";
  po.compute_batch = block_batches ? s.exr_decode_batch : 1;
  // Room for a second round of loads while the first is computed and saved: loads never wait for
  // a slot while the GPU and the writers work.
  po.max_in_flight = s.max_in_flight ? s.max_in_flight
                                     : po.compute_workers * po.compute_batch + 2 * po.load_threads + po.save_threads;
  po.stop_on_error = s.stop_on_error;

  // Each device's memory admits its own workers: one running out halves only its own batch.
  std::vector<std::unique_ptr<GpuAdmission>> admissions;
  for (int d = 0; d < ctx.devices(); ++d) admissions.push_back(std::make_unique<GpuAdmission>(po.compute_workers / ctx.devices()));
  HostPool host_memory;  // decoded frames and downloaded pixels, reused from item to item
  std::vector<std::unique_ptr<ComputeBackend>> backends(po.compute_workers);
  std::mutex outcome_mutex;
  BatchOutcome outcome;
  outcome.work_unit_name = "megapixels";
  double exposure_sum = 0;

  Pipeline<TonemapItem>::Stages stages;
  stages.make = [&](std::size_t i) {
    auto item = std::make_unique<TonemapItem>();
    item->name = inputs[i].path;
    item->input = inputs[i];
    return item;
  };
  stages.load = [&](TonemapItem& item) { load_stage(item, s, host_memory, threads_per_file, rt.gpu_ready()); };
  stages.compute_init = [&](int w) {
    Runtime& worker_rt = ctx.runtime_for_worker(w);
    worker_rt.bind_thread();
    backends[w] = worker_rt.gpu() ? make_gpu_backend(worker_rt, w) : make_cpu_backend();
  };
  if (block_batches) {
    stages.compute_batch = [&](const std::vector<TonemapItem*>& items, int w) {
      ctx.count_items(w, items.size());
      return compute_batch(items, s, ctx.runtime_for_worker(w), host_memory, *backends[w],
                           *admissions[std::size_t(ctx.device_of_worker(w))], ctx.progress);
    };
  } else {
    stages.compute = [&](TonemapItem& item, int w) {
      ctx.count_items(w, 1);
      if (item.exr_blocks) item.details.push_back({"decoder", block_decoder_name(ctx.runtime_for_worker(w))});
      compute_with_retry(item, s, ctx.runtime_for_worker(w), host_memory, *backends[w],
                         *admissions[std::size_t(ctx.device_of_worker(w))], ctx.progress);
      item.file.reset();
    };
  }
  stages.save = [&](TonemapItem& item) { save_stage(item, s); };
  std::size_t ok = 0;
  stages.done = [&](const TonemapItem& item) {
    if (!item.failed) {
      std::lock_guard<std::mutex> lock(outcome_mutex);
      outcome.work_units += double(item.plan.width) * item.plan.height / 1e6;
      exposure_sum += item.exposure_scale;
      ++ok;
    }
    ctx.finish_item(item, item.written);
  };

  Pipeline<TonemapItem> pipeline(po, stages);
  outcome.stopped_on_error = pipeline.run(inputs.size()).cancelled;
  int batch_final = admissions.front()->limit();  // the smallest of the devices'
  nlohmann::ordered_json batch_final_per_device = nlohmann::ordered_json::array();
  for (const auto& admission : admissions) {
    batch_final = std::min(batch_final, admission->limit());
    batch_final_per_device.push_back(admission->limit());
  }
  outcome.extra = {{"oiio_version", GPUPROC_OIIO_VERSION},  // built against (asking loads OpenImageIO)
                   {"workers", {{"load", po.load_threads}, {"decode_threads_per_file", threads_per_file}, {"compute", po.compute_workers}, {"save", po.save_threads},
                                {"max_in_flight", po.max_in_flight}}},
                   {"gpu_batch_final", batch_final},
                   {"mean_exposure_scale", ok ? exposure_sum / ok : 0.0}};
  if (admissions.size() > 1) outcome.extra["gpu_batch_final_per_device"] = batch_final_per_device;
  return outcome;
}

}  // namespace

std::unique_ptr<BatchCommand> make_command() { return std::make_unique<TonemapCommand>(); }

}  // namespace gp::tonemap
