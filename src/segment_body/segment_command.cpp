// gpuproc segment-body: person masks for images and videos with MediaPipe selfie segmentation on
// gpuproc's own inference engine. Images go through the batch pipeline (load pool -> batched
// compute -> save pool); each video through its own decode -> compute -> encode threads
// (video_job.hpp). Both share one MaskProcessor (GPU or CPU).
#include "segment_body/segment_command.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/report_numbers.hpp"
#include "core/outputs.hpp"
#include "core/pipeline.hpp"
#include "core/stop_signals.hpp"
#include "core/trace.hpp"
#include "io/image_io.hpp"
#include "io/video_reader.hpp"
#include "segment_body/mask_processor.hpp"
#include "segment_body/output_plan.hpp"
#include "frames/rgb_image.hpp"
#include "segment_body/segment_settings.hpp"
#include "segment_body/video_job.hpp"
#include "segment_body/pose_json.hpp"
#include "segment_body/pose_preview.hpp"

namespace gp::segbody {
namespace {

struct ImageItem : PipelineItem {
  gp::frames::RgbImage image;
  InputPlan plan;
  FrameResult result;
  std::vector<std::string> written;
};

void write_png(const std::string& path, std::vector<std::uint8_t>& pixels, int w, int h, int channels) {
  write_atomically(path, [&](const std::string& temp) {
    io::write_image(temp, packed_view(pixels.data(), w, h, channels, PixelType::u8), io::WriteOptions{});
  });
}


// Videos (io::video_file_extensions) and still images that folder inputs give.
std::vector<std::string> input_extensions() {
  std::vector<std::string> extensions = io::video_file_extensions();
  for (const char* e : {".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp"}) extensions.push_back(e);
  return extensions;
}

FrameWants image_wants(const Settings& s) {
  FrameWants w;
  w.rgba = s.rgba_png.coverage != Coverage::off || s.pose_preview;
  w.background_rgb = s.background;
  return w;
}

class SegmentBodyCommand final : public SettingsCommand {
 public:
  SegmentBodyCommand()
      : SettingsCommand(segbody::schema(),
                        "images/video -> person masks (MediaPipe selfie segmentation), RGBA, background replacement",
                        input_extensions(),
                        read_settings) {}

  std::vector<std::vector<PlannedFile>> planned_outputs(const config::json& config,
                                                        const std::vector<InputItem>& items) const override {
    const Settings s = read_settings(config);
    std::vector<std::vector<PlannedFile>> plans;
    for (const InputItem& item : items) plans.push_back(planned_files(s, item, plan_input(s, item)));
    return plans;
  }

  BatchOutcome run(BatchContext& ctx) override;

 private:
  // Device d's processor at the largest batch that fits: GpuOutOfMemory halves it (reported).
  void make_processor(std::size_t d, Runtime& rt, const Settings& s, int batch, int width, int height,
                      const FrameWants& wants) {
    for (;;) {
      try {
        processors_[d].reset();
        processors_[d] = std::make_unique<MaskProcessor>(rt, s, batch);
        if (width > 0) processors_[d]->reserve(width, height, wants);
        return;
      } catch (const GpuOutOfMemory& e) {
        processors_[d].reset();
        if (batch == 1) throw;
        rt.trim();
        rt.note_oom_retry();
        nlohmann::ordered_json reduction{{"from", batch}, {"to", batch / 2}, {"why", e.what()}};
        if (processors_.size() > 1) reduction["device"] = d;
        {
          std::lock_guard<std::mutex> lock(reductions_mutex_);
          reductions_.push_back(reduction);
        }
        batch /= 2;
      }
    }
  }

  // Image worker d and video lane d use processors_[d], on device d % devices (ctx.runtime_for_worker):
  // one per device, and more for the video lanes when several videos are in flight on a device.
  std::vector<std::unique_ptr<MaskProcessor>> processors_;
  std::mutex reductions_mutex_;
  nlohmann::ordered_json reductions_ = nlohmann::ordered_json::array();
};

BatchOutcome SegmentBodyCommand::run(BatchContext& ctx) {
  const std::vector<InputItem>& inputs = ctx.items;
  const Settings s = read_settings(ctx.config);
  Runtime& rt = ctx.runtime;  // the first device's; every device of a --device list is a GPU like it
  BatchOutcome outcome;
  outcome.work_unit_name = "frames";
  std::mutex outcome_mutex;
  std::vector<std::size_t> images, videos;
  for (std::size_t i = 0; i < inputs.size(); ++i) (gp::frames::is_image_file(inputs[i].path) ? images : videos).push_back(i);
  // Several devices: images go to one compute worker per device through the pipeline's shared
  // queue, videos (one video is one stream of frames) to one lane per device, each taking the
  // next video.
  const std::size_t devices = std::size_t(ctx.devices());
  processors_.clear();
  processors_.resize(devices);
  for (std::size_t d = 0; d < devices; ++d) make_processor(d, ctx.runtime_for_worker(int(d)), s, s.batch, 0, 0, {});
  auto smallest_batch = [&] {
    int batch = processors_[0]->batch();
    for (const auto& p : processors_) batch = std::min(batch, p->batch());
    return batch;
  };
  std::int64_t frames = 0;
  std::vector<double> latency_ms, compute_latency_ms;
  std::vector<double> busy_s(devices, 0.0);  // each worker's or lane's compute time, written by it alone

  // Videos: each with its own decode and encode threads, run.videos_in_flight at a time per device
  // (lane d on device d % devices, its own processor and stream), each lane taking the next video.
  // Images and videos move at once: the images' compute workers have processors 0..devices-1, the
  // video lanes the ones after those.
  const std::size_t lanes =
      videos.empty() ? 0 : devices * std::size_t(videos_in_flight_for(s, rt.gpu(), std::thread::hardware_concurrency(), videos.size()));
  const std::size_t lanes_used = std::min(lanes, videos.size());
  const std::size_t first_lane_processor = images.empty() ? 0 : devices;
  if (first_lane_processor + lanes_used > processors_.size()) {
    const std::size_t first_new = processors_.size();
    processors_.resize(first_lane_processor + lanes_used);
    for (std::size_t d = first_new; d < processors_.size(); ++d)
      make_processor(d, ctx.runtime_for_worker(int(d)), s, s.batch, 0, 0, {});
  }
  busy_s.resize(processors_.size(), 0.0);
  std::atomic<bool> cancelled{false};
  std::exception_ptr fatal;  // a GPU error: the device is unusable, fatal for the job

  // Images: load pool -> batches on one compute worker per device -> save pool, on their own thread.
  std::thread image_thread;
  if (!images.empty()) image_thread = std::thread([&] {
    Trace::name_thread("images");
    try {
      const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
      PipelineOptions po;
      po.load_threads = int(std::max(1u, cores / 2));
      po.save_threads = int(std::max(1u, cores / 2));
      po.compute_workers = int(devices);
      po.compute_batch = smallest_batch();
      po.max_in_flight = po.compute_batch * 3 * int(devices);
      po.stop_on_error = s.stop_on_error;
      const FrameWants wants = image_wants(s);
      Pipeline<ImageItem>::Stages stages;
      stages.make = [&](std::size_t k) {
        auto item = std::make_unique<ImageItem>();
        item->name = inputs[images[k]].path;
        return item;
      };
      stages.load = [&](ImageItem& item) {
        ScopedStage span("read+decode");
        item.plan = plan_input(s, inputs[images[item.index]]);
        item.image = gp::frames::load_rgb_image(item.name);
      };
      stages.compute_init = [&](int w) { ctx.runtime_for_worker(w).bind_thread(); };
      stages.compute_batch = [&](const std::vector<ImageItem*>& items, int w) {
        ctx.count_items(w, items.size());
        std::vector<FrameSource> sources;
        for (ImageItem* item : items)
          sources.push_back(packed_frame(FrameFormat::rgb, item->image.pixels.data(), std::size_t(item->image.width) * 3,
                                         item->image.width, item->image.height));
        std::vector<FrameResult> results;
        const std::int64_t start = Trace::now_us();
        processors_[std::size_t(w)]->run(sources, nullptr, wants, results);
        busy_s[std::size_t(w)] += double(Trace::now_us() - start) / 1e6;
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
        if (!item.plan.pose.empty()) {
          write_text_file(item.plan.pose, pose_frame_json(0, -1.0, r.people) + "\n", item.name);
          item.written.push_back(item.plan.pose);
        }
        if (!item.plan.pose_preview.empty()) {
          std::vector<std::uint8_t> rgb(std::size_t(r.width) * r.height * 3);
          pose_preview(packed_view(r.rgba.data(), r.width, r.height, 4, PixelType::u8), r.people,
                       packed_view(rgb.data(), r.width, r.height, 3, PixelType::u8));
          write_png(item.plan.pose_preview, rgb, r.width, r.height, 3);
          item.written.push_back(item.plan.pose_preview);
        }
        if (!item.plan.pose_csv.empty()) {
          write_text_file(item.plan.pose_csv, pose_csv_header() + pose_csv_rows(0, -1.0, r.people), item.name);
          item.written.push_back(item.plan.pose_csv);
        }
      };
      stages.done = [&](const ImageItem& item) {
        if (!item.failed) {
          std::lock_guard<std::mutex> lock(outcome_mutex);
          outcome.work_units += 1, frames += 1;
        }
        ctx.finish_item(images[item.index], pipeline_result(item, item.written));
      };
      Pipeline<ImageItem> pipeline(po, stages);
      if (pipeline.run(images.size()).cancelled) cancelled = true;
    } catch (...) {
      std::lock_guard<std::mutex> lock(outcome_mutex);
      if (!fatal) fatal = std::current_exception();
      cancelled = true;
    }
  });

  std::atomic<std::size_t> next_video{0};
  auto video_lane = [&](std::size_t d) {
    const std::size_t p = first_lane_processor + d;  // its processor
    try {
      Runtime& lane_rt = ctx.runtime_for_worker(int(d));
      lane_rt.bind_thread();
      for (;;) {
        if (cancelled || stop_requested()) break;
        const std::size_t k = next_video++;
        if (k >= videos.size()) break;
        ctx.count_items(int(d), 1);
        const std::size_t i = videos[k];
        const std::string& path = inputs[i].path;
        ItemResult item;
        ItemStageScope stage_times(&item.stage_s);
        std::string error, stage = "compute";
        try {
          const InputPlan plan = plan_input(s, inputs[i]);
          io::VideoReader reader(path, reader_options(s));
          const FrameWants wants = video_wants(plan);
          try {
            processors_[p]->reserve(reader.info().width, reader.info().height, wants);
          } catch (const GpuOutOfMemory&) {  // before any frame: retry at a smaller batch
            make_processor(p, lane_rt, s, std::max(1, processors_[p]->batch() / 2), reader.info().width,
                           reader.info().height, wants);
          }
          const std::int64_t start = Trace::now_us();
          VideoJobResult r = run_video(s, *processors_[p], reader, plan, inputs[i]);
          item.outputs = r.written;
          busy_s[p] += double(Trace::now_us() - start) / 1e6;
          std::lock_guard<std::mutex> lock(outcome_mutex);
          frames += r.frames;
          outcome.work_units += double(r.frames);
          latency_ms.insert(latency_ms.end(), r.latency_ms.begin(), r.latency_ms.end());
          compute_latency_ms.insert(compute_latency_ms.end(), r.compute_latency_ms.begin(), r.compute_latency_ms.end());
        } catch (const ItemCancelled& e) {
          item.cancelled = true;
          error = e.what();
        } catch (const GpuOutOfMemory& e) {
          error = e.what();
        } catch (const GpuError&) {
          throw;
        } catch (const std::exception& e) {
          error = describe(e);
          const auto* ie = dynamic_cast<const ItemError*>(&e);
          if (ie) stage = ie->stage();
          if (!ie || ie->file() != path) error = path + ": " + error;
        }
        if (!error.empty() && s.stop_on_error) cancelled = true;
        item.ok = error.empty();
        item.error_stage = stage;
        item.error = error;
        ctx.finish_item(i, std::move(item));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(outcome_mutex);
      if (!fatal) fatal = std::current_exception();
      cancelled = true;
    }
  };
  if (lanes_used == 1) {
    video_lane(0);  // on this thread, as with one device
  } else if (lanes_used > 1) {
    std::vector<std::thread> threads;
    for (std::size_t d = 0; d < lanes_used; ++d)
      threads.emplace_back([&, d] {
        Trace::name_thread("video-lane-" + std::to_string(d));
        video_lane(d);
      });
    for (std::thread& t : threads) t.join();
  }
  if (image_thread.joinable()) image_thread.join();
  if (fatal) std::rethrow_exception(fatal);
  outcome.stopped_on_error = cancelled && !stop_requested();
  // Devices and lanes work at once: the job's compute time is the busiest one's (one of each: all of it).
  const double compute_wall = *std::max_element(busy_s.begin(), busy_s.end());
  nlohmann::ordered_json& x = outcome.extra;
  x["path"] = rt.gpu() ? "gpu" : "cpu";
  x["model"] = {{"file", s.model_path},
                {"input", std::to_string(processors_[0]->model_width()) + "x" + std::to_string(processors_[0]->model_height())},
                {"precision", rt.gpu() ? (s.fp16 ? "fp16" : "fp32") : "fp32"}};
  x["mode"] = s.streaming ? "streaming" : "throughput";
  x["batch"] = smallest_batch();
  x["batch_reductions"] = reductions_;
  x["frames"] = frames;
  x["images"] = images.size();
  x["videos"] = videos.size();
  x["videos_in_flight"] = videos.empty() ? 0 : int(lanes_used);
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
  processors_.clear();
  return outcome;
}

}  // namespace

std::unique_ptr<BatchCommand> make_command() { return std::make_unique<SegmentBodyCommand>(); }

}  // namespace gp::segbody
