#include "track_faces/camera_stream.hpp"

#include <chrono>
#include <limits>
#include <thread>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/stop_signals.hpp"
#include "core/thread_priority.hpp"
#include "core/trace.hpp"
#include "io/video_reader.hpp"
#include "io/video_writer.hpp"
#include "frames/frame_packing.hpp"
#include "frames/video_frame_source.hpp"
#include "track_faces/face_preview.hpp"
#include "track_faces/image_sequence.hpp"
#include "track_faces/result_writers.hpp"

namespace gp::track {

void StartGate::arrive() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (left_ > 0 && --left_ == 0) {
    start_us_ = Trace::now_us();
    start_cpu_s_ = process_cpu_seconds();
    open_ = true;
    opened_.notify_all();
  }
}

std::int64_t StartGate::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  opened_.wait(lock, [&] { return open_.load(); });
  return start_us_;
}

bool StartGate::started() const { return open_.load(); }

double StartGate::start_cpu_s() {
  std::lock_guard<std::mutex> lock(mutex_);
  return start_cpu_s_;
}

void Camera::fail(const std::string& stage, const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(failure_mutex_);
    if (!failure_) failure_ = ItemFailure{item, stage, message};
  }
  decoded.close();
  to_save.close();
  free_slots.close();
}

bool Camera::failed() {
  std::lock_guard<std::mutex> lock(failure_mutex_);
  return failure_.has_value();
}

std::optional<ItemFailure> Camera::failure_copy() {
  std::lock_guard<std::mutex> lock(failure_mutex_);
  return failure_;
}

namespace {

// Packs the decoded frame into a free pinned slot (waiting for one); false when the camera stopped.
bool stage_in_slot(Camera& cam, Runtime& rt, const frames::FrameSource& src, DecodedFrame& d) {
  const std::size_t bytes = frames::frame_bytes(src);
  if (!cam.slab.get()) {
    cam.slot_bytes = (bytes + 4095) / 4096 * 4096;
    cam.slab = rt.pinned_alloc(cam.slot_bytes * Camera::kSlots);
    cam.larger.resize(Camera::kSlots);
    for (int i = 0; i < Camera::kSlots; ++i) cam.free_slots.push(i);
  }
  const std::optional<int> slot = cam.free_slots.pop();
  if (!slot) return false;
  std::uint8_t* data = cam.slab.as<std::uint8_t>() + std::size_t(*slot) * cam.slot_bytes;
  if (bytes > cam.slot_bytes) {
    PinnedBuffer& buffer = cam.larger[std::size_t(*slot)];
    if (buffer.size() < bytes) {
      buffer.reset();
      buffer = rt.pinned_alloc(bytes);
    }
    data = buffer.as<std::uint8_t>();
  }
  ScopedStage span("stage frame");
  frames::pack_frame(src, data);
  d.source = frames::frame_at(src, data);
  d.slot = *slot;
  return true;
}

}  // namespace

namespace {

// A live camera: it does not hold the start (arrives at once); frames are stamped with their
// arrival; a frame that arrives while the camera's queue is full (the pipeline is behind) is
// dropped and counted; a stream that fails to open, stalls (cameras.live.stall_timeout_s), breaks
// or ends is reopened after 0.5 s, then 1, 2... up to cameras.live.reconnect_max_s, until the run
// stops (SIGINT/SIGTERM, run.duration_s), which ends the camera normally.
void decode_live_camera(Camera& cam, const TrackSettings& s, Runtime* pinned, StartGate& gate, Progress& progress) {
  gate.arrive();
  const std::int64_t start_us = gate.wait();
  const std::int64_t end_us =
      s.duration_s > 0 ? start_us + std::int64_t(s.duration_s * 1e6) : std::numeric_limits<std::int64_t>::max();
  const auto stopping = [&] { return stop_requested() || Trace::now_us() >= end_us || cam.failed(); };
  io::VideoReaderOptions ro;
  ro.threads = s.decode_threads;
  ro.frame_threads = false;  // no frames held back
  ro.check_truncation = false;
  ro.max_decode_errors = std::numeric_limits<int>::max();  // lost packets: concealed frames go on
  ro.stall_timeout_s = s.live.stall_timeout_s;
  ro.interrupted = stopping;
  if (cam.path.rfind("/dev/video", 0) == 0) {
    ro.input_format = "video4linux2";
    if (!s.live.v4l2_size.empty()) ro.demuxer_options.push_back({"video_size", s.live.v4l2_size});
    if (s.live.v4l2_fps > 0) ro.demuxer_options.push_back({"framerate", std::to_string(s.live.v4l2_fps)});
    if (!s.live.v4l2_pixel_format.empty()) ro.demuxer_options.push_back({"input_format", s.live.v4l2_pixel_format});
  } else {
    if (cam.path.rfind("rtsp://", 0) == 0) ro.demuxer_options.push_back({"rtsp_transport", s.live.rtsp_transport});
    if (cam.path.rfind("udp://", 0) == 0) ro.demuxer_options.push_back({"overrun_nonfatal", "1"});
    // Frames as they arrive: the packets read while the stream is probed (at most 0.5 s of it)
    // are not held back and handed over in a burst once it is open, which would fill the queue.
    ro.demuxer_options.push_back({"fflags", "nobuffer"});
    ro.demuxer_options.push_back({"analyzeduration", "500000"});
  }
  const bool keep_frame = !pinned || !s.preview_name.empty();
  double backoff_s = 0.5;
  std::int64_t index = 0;
  // Waits `seconds` unless the run stops first.
  const auto pause = [&](double seconds) {
    const std::int64_t until = Trace::now_us() + std::int64_t(seconds * 1e6);
    while (!stopping() && Trace::now_us() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  };
  while (!stopping()) {
    std::string lost;
    try {
      io::VideoReader video(cam.path, ro);
      if (video.info().frame_rate.valid()) cam.frame_rate = video.info().frame_rate;
      if (cam.reconnects > 0) progress.message("info", fmt::format("camera {}: reconnected", cam.id));
      backoff_s = 0.5;
      for (;;) {
        DecodedFrame d;
        {
          ScopedStage span("decode");
          if (!video.read(d.frame)) break;
        }
        d.due_us = Trace::now_us();
        d.index = index++;
        d.time_s = double(d.due_us - start_us) / 1e6 + cam.offset_s;
        d.stream_time_s = d.frame.seconds();
        if (cam.decoded.size() >= std::size_t(Camera::kQueuedFrames)) {
          ++cam.dropped_behind;
          continue;
        }
        const frames::FrameSource source = frames::video_frame_source(d.frame);
        if (pinned) {
          if (!stage_in_slot(cam, *pinned, source, d)) return;  // the camera stopped elsewhere
          if (!keep_frame) d.frame = io::VideoFrame{};
        } else {
          d.source = source;
        }
        const int slot = d.slot;
        if (!cam.decoded.try_push(std::move(d))) {
          cam.release_slot(slot);
          if (cam.failed()) return;
          ++cam.dropped_behind;
        }
        if (stopping()) break;
      }
      lost = "the stream ended";
    } catch (const ItemError& e) {
      lost = e.what();
    }
    if (stopping()) break;
    ++cam.reconnects;
    progress.message("warning", fmt::format("camera {}: lost ({}); reconnecting in {} s", cam.id, lost, backoff_s));
    pause(backoff_s);
    backoff_s = std::min(2 * backoff_s, s.live.reconnect_max_s);
  }
}

}  // namespace

void decode_camera(Camera& cam, const TrackSettings& s, Runtime* pinned, StartGate& gate, Progress& progress) {
  if (cam.live) {
    try {
      decode_live_camera(cam, s, pinned, gate, progress);
    } catch (const std::exception& e) {
      cam.fail("decode", cam.path + ": " + describe(e));
    }
    cam.decoded.close();
    return;
  }
  // Decoders run a few frames ahead of their cameras; with many cameras they fill every core, and the
  // compute workers and writers, whose delays are the frames' latency, must not queue behind them.
  lower_thread_priority(10);
  bool arrived = false;  // at the gate, exactly once, whatever happens
  const auto arrive = [&] {
    if (!arrived) gate.arrive();
    arrived = true;
  };
  try {
    // A video, or a folder of images (one per frame).
    std::optional<io::VideoReader> video;
    std::optional<ImageSequence> images;
    if (std::filesystem::is_directory(cam.path)) {
      images.emplace(cam.path, s.sequence_fps);
      cam.frame_rate = io::Rational{int(std::lround(s.sequence_fps * 1000)), 1000};
    } else {
      io::VideoReaderOptions ro;
      ro.threads = s.decode_threads;
      ro.frame_threads = !s.realtime;  // live: no frame-threading delay
      video.emplace(cam.path, ro);
      if (video->info().frame_rate.valid()) cam.frame_rate = video->info().frame_rate;
    }
    const bool keep_frame = !pinned || !s.preview_name.empty();
    double first_s = -1;
    // With run.realtime a frame is due when a live camera would deliver it, whether or not we are
    // keeping up: latency counts from there, any backlog included. The decoder runs up to the
    // queue's few frames ahead of that time, as a capture card hands over frames already decoded;
    // the compute worker sets each frame's due time from the start and takes it once it is due
    // (run_group). The first frames, as many as the queue holds, are decoded and queued before
    // the clock starts: the run starts as it goes on, a few decoded frames ahead, every camera's
    // first frames already there when the gate opens. The decoder itself never waits at the gate
    // (a hundred low-priority threads waking on one lock would hold up the workers).
    int queued = 0;
    for (std::int64_t index = 0;; ++index) {
      if (s.duration_s > 0 && gate.started() && Trace::now_us() - gate.start_us() >= std::int64_t(s.duration_s * 1e6))
        break;
      DecodedFrame d;
      frames::FrameSource source;
      double seconds = 0;
      {
        ScopedStage span("decode");
        if (images) {
          std::shared_ptr<frames::RgbImage> image = images->read();
          if (!image) break;
          source = frames::packed_frame(frames::FrameFormat::rgb, image->pixels.data(), std::size_t(image->width) * 3,
                                         image->width, image->height);
          seconds = images->seconds_of(index);
          d.image = std::move(image);
        } else {
          if (!video->read(d.frame)) break;
          source = frames::video_frame_source(d.frame);
          seconds = d.frame.seconds();
        }
      }
      if (first_s < 0) first_s = seconds;
      d.index = index;
      d.time_s = seconds - first_s + cam.offset_s;
      if (pinned) {
        if (!stage_in_slot(cam, *pinned, source, d)) break;
        if (!keep_frame) {
          d.frame = io::VideoFrame{};  // back to the decoder's pool now
          d.image.reset();
        }
      } else {
        d.source = source;
      }
      // Unpaced, a frame is due when it leaves the decoder (those queued before the start: then).
      d.due_us = s.realtime || !arrived ? DecodedFrame::kDueUnset : Trace::now_us();
      if (!cam.decoded.push(std::move(d))) break;  // closed: the camera failed elsewhere
      if (++queued == Camera::kQueuedFrames) arrive();
    }
  } catch (const ItemError& e) {
    cam.fail(e.stage(), e.what());
  } catch (const std::exception& e) {
    cam.fail("decode", cam.path + ": " + describe(e));
  }
  arrive();
  cam.decoded.close();
}

void save_camera(Camera& cam, const TrackSettings& s, io::ResultStream* stream) {
  try {
    CameraResultWriter writer(camera_output(s, s.jsonl_name, cam.id), camera_output(s, s.csv_name, cam.id),
                              s.write_landmarks);
    std::unique_ptr<io::VideoWriter> preview;
    io::VideoRgbConverter to_rgb;
    std::vector<std::uint8_t> rgb;
    while (std::optional<SaveItem> item = cam.to_save.pop()) {
      if (s.signals) {
        ScopedStage span("face signals");
        for (TrackedFace& face : item->result.faces)
          if (!face.landmarks.empty())
            face.signals = face_signals(face.landmarks, item->result.width, item->result.height, s.camera_fov_deg);
      }
      {
        ScopedStage span("write results");
        writer.write(item->result);
        if (stream) stream->publish(cam.id, frame_json(item->result, s.write_landmarks), item->due_us);
      }
      if (!s.preview_name.empty()) {
        ScopedStage span("preview");
        const int width = item->image ? item->image->width : item->frame.width();
        const int height = item->image ? item->image->height : item->frame.height();
        if (!preview) {
          io::VideoWriterOptions wo;
          wo.input = io::VideoPixels::rgb24;
          wo.crf = s.preview_crf;
          wo.preset = "veryfast";
          wo.frame_rate = cam.frame_rate;  // a 24 fps camera's preview lasts as long as the camera
          preview = std::make_unique<io::VideoWriter>(camera_output(s, s.preview_name, cam.id), width / 2 * 2,
                                                      height / 2 * 2, wo);
        }
        rgb.resize(std::size_t(width) * height * 3);
        const ImageView view = packed_view(rgb.data(), width, height, 3, PixelType::u8);
        if (item->image) {
          std::copy(item->image->pixels.begin(), item->image->pixels.end(), rgb.begin());
        } else {
          to_rgb.convert(item->frame, view);
        }
        draw_faces(view, item->result.faces);
        ImageView even = view;
        even.width = width / 2 * 2;
        even.height = height / 2 * 2;
        preview->write(even);
      }
      cam.latency_ms.push_back(double(Trace::now_us() - item->due_us) / 1000.0);
      cam.due_us.push_back(item->due_us);
    }
    // A camera stopped before its last frame (a failure elsewhere, a stop signal) keeps no file:
    // the writers' temporaries go with them.
    if (cam.failed() || !cam.stream_ended) return;
    writer.finish();
    for (const std::string& name : {s.jsonl_name, s.csv_name})
      if (!name.empty()) cam.written.push_back(camera_output(s, name, cam.id));
    if (preview) {
      preview->finish();
      cam.written.push_back(preview->path());
    }
    cam.summary = writer.summary().to_json();
    if (!s.summary_name.empty()) {
      const std::string path = camera_output(s, s.summary_name, cam.id);
      write_atomically(path, [&](const std::string& temp) {
        std::FILE* f = std::fopen(temp.c_str(), "wb");
        if (!f) throw ItemError(path, "write", "cannot create the file");
        const std::string text = cam.summary.dump(2) + "\n";
        const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
        if (std::fclose(f) != 0 || !ok) throw ItemError(path, "write", "cannot write the file");
      });
      cam.written.push_back(path);
    }
  } catch (const ItemError& e) {
    cam.fail(e.stage(), e.what());
  } catch (const std::exception& e) {
    cam.fail("write", cam.id + ": " + describe(e));
  }
}

}  // namespace gp::track
