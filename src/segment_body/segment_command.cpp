// gpuproc segment-body: person masks for images and videos with MediaPipe selfie segmentation on
// gpuproc's own inference engine. Images go through the batch pipeline (load pool -> batched
// compute -> save pool); each video through its own decode -> compute -> encode threads
// (video_job.hpp). Both share one MaskProcessor (GPU or CPU).
#include "segment_body/segment_command.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/report_numbers.hpp"
#include "core/outputs.hpp"
#include "core/pipeline.hpp"
#include "core/trace.hpp"
#include "io/image_io.hpp"
#include "segment_body/mask_processor.hpp"
#include "segment_body/output_plan.hpp"
#include "segment_body/rgb_image.hpp"
#include "segment_body/segment_settings.hpp"
#include "segment_body/video_job.hpp"

namespace gp::segbody {
namespace {

struct ImageItem : PipelineItem {
  RgbImage image;
  InputPlan plan;
  FrameResult result;
  std::vector<std::string> written;
};

void write_png(const std::string& path, std::vector<std::uint8_t>& pixels, int w, int h, int channels) {
  write_atomically(path, [&](const std::string& temp) {
    io::write_image(temp, packed_view(pixels.data(), w, h, channels, PixelType::u8), io::WriteOptions{});
  });
}


FrameWants image_wants(const Settings& s) {
  FrameWants w;
  w.rgba = s.rgba_png.coverage != Coverage::off;
  w.background_rgb = s.background;
  return w;
}

class SegmentBodyCommand final : public BatchCommand {
 public:
  const config::Schema& schema() const override { return segbody::schema(); }
  std::string summary() const override {
    return "images/video -> person masks (MediaPipe selfie segmentation), RGBA, background replacement";
  }
  void check_config(const config::json& config) const override { read_settings(config); }

  InputSpec input_spec(const config::json& config) const override {
    InputSpec spec;
    spec.patterns = config.at("inputs").get<std::vector<std::string>>();
    spec.extensions = {".mp4", ".mkv", ".avi", ".mov", ".webm", ".m4v", ".mpg", ".mpeg", ".ts",
                       ".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp"};
    spec.recursive = config.at("input").at("recursive").get<bool>();
    return spec;
  }

  std::vector<std::string> planned_outputs(const config::json& config, const std::string& input,
                                           std::size_t index) const override {
    return planned_files(plan_input(read_settings(config), input, index));
  }

  BatchOutcome run(BatchContext& ctx, const std::vector<std::string>& inputs,
                   const std::vector<std::size_t>& input_indices) override;

 private:
  // A processor at the largest batch that fits: GpuOutOfMemory halves it (reported).
  void make_processor(Runtime& rt, const Settings& s, int batch, int width, int height, const FrameWants& wants) {
    for (;;) {
      try {
        processor_.reset();
        processor_ = std::make_unique<MaskProcessor>(rt, s, batch);
        if (width > 0) processor_->reserve(width, height, wants);
        return;
      } catch (const GpuOutOfMemory& e) {
        processor_.reset();
        if (batch == 1) throw;
        rt.trim();
        rt.note_oom_retry();
        reductions_.push_back({{"from", batch}, {"to", batch / 2}, {"why", e.what()}});
        batch /= 2;
      }
    }
  }

  std::unique_ptr<MaskProcessor> processor_;
  nlohmann::ordered_json reductions_ = nlohmann::ordered_json::array();
};

BatchOutcome SegmentBodyCommand::run(BatchContext& ctx, const std::vector<std::string>& inputs,
                                     const std::vector<std::size_t>& input_indices) {
  const Settings s = read_settings(ctx.config);
  Runtime& rt = ctx.runtime;
  BatchOutcome outcome;
  outcome.work_unit_name = "frames";
  std::mutex outcome_mutex;
  std::vector<std::size_t> images, videos;
  for (std::size_t i = 0; i < inputs.size(); ++i) (is_image_file(inputs[i]) ? images : videos).push_back(i);
  if (rt.gpu()) rt.bind_thread();
  make_processor(rt, s, s.batch, 0, 0, {});
  std::int64_t frames = 0;
  std::vector<double> latency_ms, compute_latency_ms;
  double compute_wall = 0;

  // Images: load pool -> batches on one compute worker -> save pool.
  if (!images.empty()) {
    const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
    PipelineOptions po;
    po.load_threads = int(std::max(1u, cores / 2));
    po.save_threads = int(std::max(1u, cores / 2));
    po.compute_workers = 1;
    po.compute_batch = processor_->batch();
    po.max_in_flight = processor_->batch() * 3;
    po.stop_on_error = s.stop_on_error;
    const FrameWants wants = image_wants(s);
    Pipeline<ImageItem>::Stages stages;
    stages.make = [&](std::size_t k) {
      auto item = std::make_unique<ImageItem>();
      item->name = inputs[images[k]];
      return item;
    };
    stages.load = [&](ImageItem& item) {
      ScopedStage span("read+decode");
      item.plan = plan_input(s, item.name, input_indices[images[item.index]]);
      item.image = load_rgb_image(item.name);
    };
    stages.compute_init = [&](int) {
      if (rt.gpu()) rt.bind_thread();
    };
    stages.compute_batch = [&](const std::vector<ImageItem*>& items, int) {
      std::vector<FrameSource> sources;
      for (ImageItem* item : items)
        sources.push_back(packed_frame(FrameFormat::rgb, item->image.pixels.data(), std::size_t(item->image.width) * 3,
                                       item->image.width, item->image.height));
      std::vector<FrameResult> results;
      const std::int64_t start = Trace::now_us();
      processor_->run(sources, nullptr, wants, results);
      compute_wall += double(Trace::now_us() - start) / 1e6;
      for (std::size_t i = 0; i < items.size(); ++i) {
        items[i]->result = std::move(results[i]);
        items[i]->image.pixels = {};
      }
      return std::vector<std::exception_ptr>(items.size());
    };
    stages.save = [&](ImageItem& item) {
      ScopedStage span("encode+write");
      FrameResult& r = item.result;
      if (!item.plan.mask_png.empty()) write_png(item.plan.mask_png, r.mask, r.width, r.height, 1), item.written.push_back(item.plan.mask_png);
      if (!item.plan.rgba_png.empty()) write_png(item.plan.rgba_png, r.rgba, r.width, r.height, 4), item.written.push_back(item.plan.rgba_png);
      if (!item.plan.background_png.empty())
        write_png(item.plan.background_png, r.background, r.width, r.height, 3), item.written.push_back(item.plan.background_png);
    };
    stages.done = [&](const ImageItem& item) {
      {
        std::lock_guard<std::mutex> lock(outcome_mutex);
        outcome.outputs.insert(outcome.outputs.end(), item.written.begin(), item.written.end());
        if (!item.failed) outcome.work_units += 1, frames += 1;
      }
      ctx.progress.item_done(item.name, !item.failed, item.failure.message);
    };
    Pipeline<ImageItem> pipeline(po, stages);
    auto result = pipeline.run(images.size());
    outcome.processed += result.processed;
    for (ItemFailure& f : result.failures) {
      f.index = images[f.index];
      outcome.failures.push_back(f);
    }
    outcome.cancelled = result.cancelled;
  }

  // Videos, one after another, each with its own decode and encode threads.
  for (std::size_t k = 0; k < videos.size() && !outcome.cancelled; ++k) {
    const std::size_t i = videos[k];
    const std::string& path = inputs[i];
    std::string error, stage = "compute";
    try {
      const InputPlan plan = plan_input(s, path, input_indices[i]);
      io::VideoReader reader(path, reader_options(s));
      const FrameWants wants = video_wants(plan);
      try {
        processor_->reserve(reader.info().width, reader.info().height, wants);
      } catch (const GpuOutOfMemory&) {  // before any frame: retry at a smaller batch
        make_processor(rt, s, std::max(1, processor_->batch() / 2), reader.info().width, reader.info().height, wants);
      }
      const std::int64_t start = Trace::now_us();
      VideoJobResult r = run_video(s, *processor_, reader, plan, input_indices[i]);
      compute_wall += double(Trace::now_us() - start) / 1e6;
      frames += r.frames;
      outcome.work_units += double(r.frames);
      latency_ms.insert(latency_ms.end(), r.latency_ms.begin(), r.latency_ms.end());
      compute_latency_ms.insert(compute_latency_ms.end(), r.compute_latency_ms.begin(), r.compute_latency_ms.end());
      outcome.outputs.insert(outcome.outputs.end(), r.written.begin(), r.written.end());
    } catch (const GpuOutOfMemory& e) {
      error = e.what();
    } catch (const GpuError&) {
      throw;  // the device is unusable: fatal for the job
    } catch (const std::exception& e) {
      error = e.what();
      const auto* ie = dynamic_cast<const ItemError*>(&e);
      if (ie) stage = ie->stage();
      if (!ie || ie->file() != path) error = path + ": " + error;
    }
    outcome.processed++;
    if (!error.empty()) {
      outcome.failures.push_back({i, stage, error});
      if (s.stop_on_error) outcome.cancelled = true;
    }
    ctx.progress.item_done(path, error.empty(), error);
  }

  std::sort(outcome.outputs.begin(), outcome.outputs.end());
  nlohmann::ordered_json& x = outcome.extra;
  x["path"] = rt.gpu() ? "gpu" : "cpu";
  x["model"] = {{"file", s.model_path},
                {"input", std::to_string(processor_->model_width()) + "x" + std::to_string(processor_->model_height())},
                {"precision", rt.gpu() ? (s.fp16 ? "fp16" : "fp32") : "fp32"}};
  x["mode"] = s.streaming ? "streaming" : "throughput";
  x["batch"] = processor_->batch();
  x["batch_reductions"] = reductions_;
  x["frames"] = frames;
  x["images"] = images.size();
  x["videos"] = videos.size();
  x["compute_wall_s"] = round3(compute_wall);
  x["frames_per_s"] = compute_wall > 0 ? round3(double(frames) / compute_wall) : 0.0;
  if (!latency_ms.empty())
    x["latency_ms"] = {{"what", "video frame decoded -> its mask on the host"},
                       {"frames", latency_ms.size()},
                       {"p50", round3(percentile(latency_ms, 0.5))},
                       {"p99", round3(percentile(latency_ms, 0.99))},
                       {"max", round3(percentile(latency_ms, 1.0))}};
  // Without the queue waits (a decoder running ahead of real time, an encoder holding back): what
  // the compute stage (upload, model, postprocess, download) adds per frame, the GPU latency of
  // streaming mode.
  if (!compute_latency_ms.empty())
    x["compute_latency_ms"] = {{"what", "frame taken by the compute stage -> its mask on the host"},
                               {"frames", compute_latency_ms.size()},
                               {"p50", round3(percentile(compute_latency_ms, 0.5))},
                               {"p99", round3(percentile(compute_latency_ms, 0.99))},
                               {"max", round3(percentile(compute_latency_ms, 1.0))}};
  processor_.reset();
  return outcome;
}

}  // namespace

std::unique_ptr<BatchCommand> make_command() { return std::make_unique<SegmentBodyCommand>(); }

}  // namespace gp::segbody
