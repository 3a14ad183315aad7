// gpuproc track-faces: every camera's video decoded on its own thread into a small queue
// (camera_stream), compute workers each taking a frame of each of its cameras per step (one
// batched detector run, one batched landmark run for all their faces; FaceProcessor), per-camera
// tracking (CameraTracker), and per-camera save threads writing the results and encoding the
// preview, so decode, GPU work and encode overlap. Per-frame latency: from the frame leaving its
// decoder (or, with run.realtime, from when a live camera would have delivered it) to its results
// written.
#include "track_faces/track_command.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <optional>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/inputs.hpp"
#include "core/report_numbers.hpp"
#include "core/stop_signals.hpp"
#include "core/thread_priority.hpp"
#include "core/trace.hpp"
#include "io/video_reader.hpp"
#include "track_faces/camera_stream.hpp"
#include "track_faces/face_processor.hpp"
#include "track_faces/image_sequence.hpp"
#include "track_faces/track_settings.hpp"

namespace gp::track {
namespace {

constexpr int kMaxStepFrames = 64;  // the engines' largest batch: more cameras run in groups

class TrackFacesCommand final : public SettingsCommand {
 public:
  TrackFacesCommand()
      : SettingsCommand(track::schema(),
                        "multi-camera video -> face boxes, landmarks and stable track IDs (MediaPipe BlazeFace + face "
                        "mesh, ByteTrack)",
                        io::video_file_extensions(), read_settings) {}

  InputSpec input_spec(const config::json& config) const override {
    InputSpec spec = SettingsCommand::input_spec(config);
    spec.sequence_extensions = image_sequence_extensions();  // a folder of images is one camera
    spec.live_sources = true;                                 // URLs and capture devices are cameras too
    return spec;
  }

  std::vector<std::vector<PlannedFile>> planned_outputs(const config::json& config,
                                                        const std::vector<InputItem>& items) const override {
    const TrackSettings s = read_settings(config);
    std::vector<std::vector<PlannedFile>> plans;
    for (const InputItem& item : items) {
      const std::string id = camera_id(item.path);
      std::vector<PlannedFile> out;
      for (const auto& [name, field] : {std::pair{&s.jsonl_name, "/output/jsonl"}, {&s.csv_name, "/output/csv"},
                                        {&s.summary_name, "/output/summary"}, {&s.preview_name, "/output/preview/name"}})
        if (!name->empty()) out.push_back({camera_output(s, *name, id), field});
      plans.push_back(std::move(out));
    }
    return plans;
  }

  BatchOutcome run(BatchContext& ctx) override;
  GpuWait gpu_wait(const config::json& config) const override { return read_settings(config).gpu_wait; }
};

// What one compute worker did.
struct GroupRun {
  std::int64_t steps = 0;
  double compute_s = 0;
  double cpu_s = 0;  // the worker thread's CPU time
  bool gpu = false;
  std::exception_ptr error;
};

// One compute worker: a processor on `rt` for its cameras, which advance together, a frame of each
// per step. Stops early when `stop` is set (a failure elsewhere, or run.on_error fail); on an
// exception sets it and closes every queue of its cameras so their threads end.
void run_group(Runtime& rt, const std::vector<Camera*>& cameras, const TrackSettings& s, std::atomic<bool>& stop,
               StartGate& gate, GroupRun& run) {
  try {
    FaceProcessorOptions po = s.processor;
    po.max_frames = std::min<int>(kMaxStepFrames, int(cameras.size()));
    std::optional<FaceProcessor> processor;
    try {
      processor.emplace(rt, po);  // binds this thread to the runtime's device
      run.gpu = processor->gpu();
      processor->warm_up();
    } catch (...) {
      gate.arrive();  // the others must not wait for this one
      throw;
    }
    gate.arrive();
    const std::int64_t start_us = gate.wait();  // the first frames' due times count from it
    std::vector<Camera*> step;
    std::vector<DecodedFrame> frames;
    // With live cameras a step takes the frames that are there, and with run.realtime the frames
    // that are due (a stalled camera, or a decoder that fell behind, must not hold the others: its
    // frame joins a later step); unpaced, a step waits for a frame of every camera. With live
    // cameras a stop request ends the cameras rather than the worker: it drains what their
    // decoders still hand over.
    const bool live = std::any_of(cameras.begin(), cameras.end(), [](const Camera* c) { return c->live; });
    const bool take_what_is_due = live || s.realtime;
    while (!stop && (live || !stop_requested())) {
      step.clear();
      frames.clear();
      bool any_active = false;
      std::int64_t next_due = std::numeric_limits<std::int64_t>::max();  // of the frames left queued
      bool queue_empty = false;  // some camera had no frame queued (its next due time unknown)
      const std::int64_t now = Trace::now_us();
      for (Camera* cam : cameras) {
        if (!cam->active) continue;
        std::optional<DecodedFrame> d;
        if (take_what_is_due) {
          bool closed = false, queued = false;  // queued: the queue had a frame (asked about it)
          d = cam->decoded.try_pop_if(
              [&](DecodedFrame& f) {
                queued = true;
                if (f.due_us == DecodedFrame::kDueUnset) f.due_us = cam->due_time(f, start_us, s.realtime);
                if (f.due_us <= now) return true;
                next_due = std::min(next_due, f.due_us);
                return false;
              },
              closed);
          if (!d && !closed) {
            any_active = true;
            queue_empty = queue_empty || !queued;
            continue;
          }
        } else {
          d = cam->decoded.pop();
        }
        if (!d) {
          cam->active = false;
          cam->stream_ended = !cam->failed();
          cam->to_save.close();
          continue;
        }
        any_active = true;
        if (d->due_us == DecodedFrame::kDueUnset) d->due_us = cam->due_time(*d, start_us, s.realtime);
        step.push_back(cam);
        frames.push_back(std::move(*d));
      }
      if (step.empty()) {
        if (!any_active) break;
        // Nothing due yet: until the next queued frame is due, at most 0.5 ms when a queue was
        // empty (a live camera's next frame, a decoder behind). Waiting here, in the worker,
        // rather than in each decoder, costs no wake-up of a busy decoder thread.
        const std::int64_t wait_us = std::min(next_due - Trace::now_us(), queue_empty ? std::int64_t{500} : next_due);
        std::this_thread::sleep_for(std::chrono::microseconds(std::max<std::int64_t>(0, wait_us)));
        continue;
      }
      const auto t0 = std::chrono::steady_clock::now();
      for (std::size_t first = 0; first < step.size(); first += kMaxStepFrames) {
        const std::size_t last = std::min(step.size(), first + kMaxStepFrames);
        std::vector<frames::FrameSource> sources;
        std::vector<bool> detect;
        for (std::size_t k = first; k < last; ++k) {
          sources.push_back(frames[k].source);
          detect.push_back(step[k]->tracker->wants_detection());
        }
        processor->set_frames(sources, frames[first].slot >= 0);
        const std::vector<std::vector<FrameFace>> detections = processor->detect(detect);
        std::vector<std::vector<Roi>> rois;
        for (std::size_t k = first; k < last; ++k) rois.push_back(step[k]->tracker->rois(detections[k - first]));
        const std::vector<std::vector<FaceLandmarks>> landmarks = processor->landmarks(rois);
        processor->wait_uploads();
        for (std::size_t k = first; k < last; ++k) {
          step[k]->release_slot(frames[k].slot);
          frames[k].slot = -1;
        }
        ScopedStage span("track");
        for (std::size_t k = first; k < last; ++k) {
          Camera& cam = *step[k];
          DecodedFrame& d = frames[k];
          SaveItem item;
          item.result.camera = cam.id;
          item.result.frame = d.index;
          item.result.time_s = d.time_s;
          item.result.width = d.source.width;
          item.result.height = d.source.height;
          item.result.stream_time_s = d.stream_time_s;
          item.result.faces = cam.tracker->update(detections[k - first], landmarks[k - first], detect[k - first]);
          item.due_us = d.due_us;
          cam.frames++;
          cam.detection_frames += detect[k - first] ? 1 : 0;
          if (!s.preview_name.empty()) {
            item.frame = std::move(d.frame);
            item.image = std::move(d.image);
          }
          cam.to_save.push(std::move(item));
        }
      }
      run.compute_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ++run.steps;
      if (s.stop_on_error && std::any_of(cameras.begin(), cameras.end(), [](Camera* c) { return c->failed(); }))
        stop = true;  // on_error fail: the first failed camera stops the job
    }
  } catch (...) {
    run.error = std::current_exception();
    stop = true;
  }
  if (stop || stop_requested())
    for (Camera* cam : cameras) {
      cam->decoded.close();
      cam->to_save.close();
    }
  run.cpu_s = thread_cpu_seconds();
}

BatchOutcome TrackFacesCommand::run(BatchContext& ctx) {
  const TrackSettings s = read_settings(ctx.config);
  std::vector<std::string> inputs;
  for (const InputItem& item : ctx.items) inputs.push_back(item.path);
  BatchOutcome outcome;
  outcome.work_unit_name = "frames";
  std::vector<std::unique_ptr<Camera>> cameras;
  bool any_live = false;  // URLs or capture devices among the cameras
  std::set<std::string> ids;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto cam = std::make_unique<Camera>();
    cam->item = i;
    cam->path = inputs[i];
    cam->id = camera_id(inputs[i]);
    cam->live = is_live_source(inputs[i]);
    if (!ids.insert(cam->id).second)
      throw UsageError("/inputs: two cameras are called \"" + cam->id + "\" (file stems or folder names): rename one");
    const auto offset = s.time_offsets.find(cam->id);
    cam->offset_s = offset == s.time_offsets.end() ? 0.0 : offset->second;
    CameraTrackerOptions tracking = s.tracking;
    tracking.detect_phase = int(i % std::size_t(std::max(1, tracking.detect_every)));
    cam->tracker = std::make_unique<CameraTracker>(tracking);
    any_live = any_live || cam->live;
    cameras.push_back(std::move(cam));
  }
  for (const auto& [id, seconds] : s.time_offsets)
    if (!ids.count(id)) throw UsageError("/cameras/time_offsets: no camera is called \"" + id + "\"");
  if (cameras.empty()) return outcome;

  // Compute workers: on the GPU run.workers per device of --device (worker w on the job's
  // runtime_for_worker(w), so a list of GPUs shares the cameras out), on the CPU one; cameras
  // dealt out to the workers in turn.
  const std::size_t worker_count = ctx.runtime.gpu() ? std::size_t(s.workers_per_device * ctx.devices()) : 1;
  const std::size_t workers = std::min(worker_count, cameras.size());
  std::vector<std::vector<Camera*>> groups(workers);
  for (std::size_t i = 0; i < cameras.size(); ++i) groups[i % workers].push_back(cameras[i].get());
  for (std::size_t w = 0; w < workers; ++w) ctx.count_items(int(w), groups[w].size());

  // Results streamed out as they are written (bound, and its listeners waited for, before any camera starts).
  std::unique_ptr<io::ResultStream> stream;
  if (!s.stream.zmq_endpoint.empty() || s.stream.stdout_lines) stream = std::make_unique<io::ResultStream>(s.stream);

  // Decoders start at once and stage their first frames, compute workers build and warm up their
  // engines meanwhile; the last of them to be ready opens the gate.
  StartGate gate(workers + cameras.size());
  for (std::size_t w = 0; w < workers; ++w)
    for (Camera* cam : groups[w]) {
      Runtime& worker_rt = ctx.runtime_for_worker(int(w));
      Runtime* pinned = worker_rt.gpu() ? &worker_rt : nullptr;
      cam->decoder = std::thread([cam, &s, pinned, &gate, &ctx] {
        decode_camera(*cam, s, pinned, gate, ctx.progress);
        cam->decode_cpu_s = thread_cpu_seconds();
      });
      cam->saver = std::thread([cam, &s, &stream] {
        save_camera(*cam, s, stream.get());
        cam->save_cpu_s = thread_cpu_seconds();
      });
    }
  std::atomic<bool> stop{false};
  std::vector<GroupRun> runs(workers);
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] { run_group(ctx.runtime_for_worker(int(w)), groups[w], s, stop, gate, runs[w]); });
  for (std::thread& t : threads) t.join();
  const std::int64_t start_us = gate.wait();
  for (auto& cam : cameras) {
    if (stop && !cam->failed()) cam->fail("cancelled", cam->id + ": stopped by a failure (see the other errors)");
    if (stop_requested() && !cam->failed() && !cam->stream_ended)
      cam->fail("cancelled", cam->path + ": cancelled: the run is stopping (" + signal_name(stop_signal()) + ")");
    cam->free_slots.close();  // a decoder waiting for a slot after its worker stopped
    cam->decoder.join();
    cam->to_save.close();
    cam->saver.join();
  }
  if (stream) stream->close();
  const double process_cpu_s = process_cpu_seconds() - gate.start_cpu_s();
  std::int64_t steps = 0;
  double compute_s = 0, compute_cpu_s = 0;
  for (const GroupRun& r : runs) {
    if (r.error) std::rethrow_exception(r.error);
    steps += r.steps;
    compute_s += r.compute_s;
    compute_cpu_s += r.cpu_s;
  }
  outcome.stopped_on_error = stop;
  // Live cameras end on SIGINT/SIGTERM: when every camera ended so, that was the run's end.
  outcome.stop_was_the_end = stop_requested() && any_live &&
                             std::all_of(cameras.begin(), cameras.end(), [](const auto& c) { return c->stream_ended && !c->failed(); });
  const bool gpu = runs.front().gpu;

  // Report: per camera, and the latency over all frames and per second of the run (frames by the
  // second they were due in), which tells start-up transients from a steady backlog.
  std::vector<double> latency;
  std::vector<std::vector<double>> latency_by_second;
  double decode_cpu_s = 0, save_cpu_s = 0;
  nlohmann::ordered_json per_camera = nlohmann::ordered_json::array();
  const double wall_s = double(Trace::now_us() - start_us) / 1e6;
  for (auto& cam : cameras) {
    const std::optional<ItemFailure> failure = cam->failure_copy();
    ItemResult result;
    result.outputs = cam->written;
    if (failure) {
      result.ok = false;
      result.cancelled = failure->stage == "cancelled";
      result.error_stage = failure->stage;
      result.error = failure->message;
    }
    ctx.finish_item(cam->item, std::move(result));
    outcome.work_units += double(cam->frames);
    decode_cpu_s += cam->decode_cpu_s;
    save_cpu_s += cam->save_cpu_s;
    latency.insert(latency.end(), cam->latency_ms.begin(), cam->latency_ms.end());
    for (std::size_t i = 0; i < cam->latency_ms.size(); ++i) {
      const std::size_t second = std::size_t(std::max<std::int64_t>(0, cam->due_us[i] - start_us) / 1000000);
      if (second >= latency_by_second.size()) latency_by_second.resize(second + 1);
      latency_by_second[second].push_back(cam->latency_ms[i]);
    }
    nlohmann::ordered_json c = {{"camera", cam->id}, {"input", cam->path}, {"frames", cam->frames},
                                {"detection_frames", cam->detection_frames},
                                {"latency_ms", {{"p50", round3(percentile(cam->latency_ms, 0.5))},
                                                {"p99", round3(percentile(cam->latency_ms, 0.99))}}}};
    if (cam->live) {
      c["live"] = true;
      c["reconnects"] = cam->reconnects.load();
      c["dropped_behind"] = cam->dropped_behind.load();
    }
    if (!cam->summary.is_null()) c["summary"] = cam->summary;
    per_camera.push_back(std::move(c));
  }
  nlohmann::ordered_json& x = outcome.extra;
  x["device"] = gpu ? "gpu" : "cpu";
  x["cameras"] = cameras.size();
  x["compute_workers"] = workers;
  x["steps"] = steps;
  x["realtime"] = s.realtime;
  x["frames"] = outcome.work_units;
  x["frames_per_s"] = wall_s > 0 ? round3(outcome.work_units / wall_s) : 0.0;
  x["compute_s"] = round3(compute_s);
  // Summed over the workers: each worker's busy time, so per frame it is the compute cost of a frame.
  x["compute_ms_per_frame"] = outcome.work_units > 0 ? round3(compute_s * 1000.0 / outcome.work_units) : 0.0;
  // Where the host's cores went: the process from the start (engines built) to the end, and the
  // threads of each kind over their whole lives (decoders' first frames before the start included).
  const double frames_done = std::max(1.0, outcome.work_units);
  x["cpu"] = {{"process_s", round3(process_cpu_s)},
              {"cores_used", wall_s > 0 ? round3(process_cpu_s / wall_s) : 0.0},
              {"decoders_s", round3(decode_cpu_s)},
              {"compute_workers_s", round3(compute_cpu_s)},
              {"writers_s", round3(save_cpu_s)},
              {"ms_per_frame", {{"process", round3(process_cpu_s * 1000 / frames_done)},
                                {"decode", round3(decode_cpu_s * 1000 / frames_done)},
                                {"compute_worker", round3(compute_cpu_s * 1000 / frames_done)},
                                {"writer", round3(save_cpu_s * 1000 / frames_done)}}}};
  x["latency_ms"] = {{"p50", round3(percentile(latency, 0.5))}, {"p99", round3(percentile(latency, 0.99))},
                     {"max", round3(latency.empty() ? 0.0 : *std::max_element(latency.begin(), latency.end()))},
                     {"from", any_live ? "the frame's arrival from its live camera"
                             : s.realtime ? "when a live camera would deliver the frame"
                                          : "the frame leaving its decoder"}};
  nlohmann::ordered_json per_second = nlohmann::ordered_json::array();
  for (const std::vector<double>& v : latency_by_second)
    per_second.push_back({{"frames", v.size()}, {"p50", round3(percentile(v, 0.5))}, {"p99", round3(percentile(v, 0.99))}});
  x["latency_ms_per_second"] = std::move(per_second);
  x["per_camera"] = std::move(per_camera);
  if (stream) x["stream"] = stream->report();
  return outcome;
}

}  // namespace

std::unique_ptr<BatchCommand> make_command() { return std::make_unique<TrackFacesCommand>(); }

}  // namespace gp::track
